from django.urls import path

from flags import views

urlpatterns = [
    path("cells/<int:cell>/flag/", views.flag_create, name="flag-create"),
    path("flags/status/<str:token>/", views.flag_status, name="flag-status"),
    path("changes/", views.recent_changes, name="recent-changes"),
    path("changes/feed/", views.RecentChangesFeed(), name="recent-changes-feed"),
]
