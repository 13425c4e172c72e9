from django.urls import path

from arena import discovery, views

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
    # issue 13 part 5, discoverable: robots.txt, the sitemap, the favicon
    path("robots.txt", discovery.robots_txt, name="robots-txt"),
    path("sitemap.xml", discovery.sitemap_xml, name="sitemap-xml"),
    path("favicon.ico", discovery.favicon, name="favicon-ico"),
]
