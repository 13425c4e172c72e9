from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security, deploy=True)
def site_url_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """In production the mails' and canonical links should name the site's public origin."""
    if settings.DEBUG or settings.SITE_URL:
        return []
    return [
        checks.Warning(
            "SITE_URL is not set with DEBUG=0: the mails' links fall back to the first of "
            "ALLOWED_HOSTS over https, and canonical links, feeds and the sitemap to each "
            "request's host.",
            hint="Set SITE_URL to the site's public origin, e.g. https://arena.example.org.",
            id="arena.W040",
        )
    ]


class WebConfig(AppConfig):
    name = "web"
    verbose_name = "Public site"
