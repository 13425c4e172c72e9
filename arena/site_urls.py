from django.urls import path

from arena import badges, views

urlpatterns = [
    path("", views.home, name="home"),
    path("methodology/", views.methodology, name="methodology"),
    path("arenas/<slug:arena>/", views.arena_detail, name="arena-detail"),
    path("arenas/<slug:arena>/vs/<slug:a>-vs-<slug:b>/", views.head_to_head, name="head-to-head"),
    path("arenas/<slug:arena>/compare/", views.arena_compare, name="arena-compare"),
    path(
        "arenas/<slug:arena>/products/<slug:product>/", views.product_detail, name="product-detail"
    ),
    path("arenas/<slug:arena>/stories/<int:story>/", views.story_detail, name="story-detail"),
    path("cells/<int:cell>/", views.cell_detail, name="cell-detail"),
    # issue 13, feeds and badges: a product's embeddable badge (the feeds are in flags/urls.py)
    path(
        "arenas/<slug:arena>/products/<slug:product>/badge.svg",
        badges.product_badge_svg,
        name="product-badge",
    ),
]
