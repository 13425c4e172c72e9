from django.urls import path

from flags import feeds, views

urlpatterns = [
    path("cells/<int:cell>/flag/", views.flag_create, name="flag-create"),
    path("flags/status/<str:token>/", views.flag_status, name="flag-status"),
    path("changes/", views.recent_changes, name="recent-changes"),
    path("changes/feed/", feeds.RecentChangesFeed(), name="recent-changes-feed"),
    # feeds: one arena's and one product's verdict changes
    path("arenas/<slug:arena>/changes/feed/", feeds.ArenaChangesFeed(), name="arena-changes-feed"),
    path(
        "arenas/<slug:arena>/products/<slug:product>/changes/feed/",
        feeds.ProductChangesFeed(),
        name="product-changes-feed",
    ),
]
