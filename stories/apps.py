from django.apps import AppConfig


class StoriesConfig(AppConfig):
    name = "stories"
