from django.urls import path

from flags import views

urlpatterns = [
    path("cells/<int:cell>/flag/", views.flag_create, name="flag-create"),
]
