"""What makes the site findable and linkable: ``/robots.txt``, ``/sitemap.xml``, ``/favicon.ico``,
and the ``discovery`` template library of ``base.html``'s head (canonical links, OpenGraph and
Twitter meta). Absolute URLs name ``settings.SITE_URL`` when it is set, else the request's host."""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

from django import template
from django.conf import settings
from django.contrib.sitemaps import views as sitemaps_views
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.encoding import iri_to_uri
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from web.formats.sitemaps import SECTIONS
from web.pages import links

register = template.Library()


def absolute_url(request: HttpRequest, path: str) -> str:
    """``path`` (``/arenas/x/``) as an absolute URL on ``SITE_URL``, else on the request's host."""
    if settings.SITE_URL:
        return f"{settings.SITE_URL}{iri_to_uri(path)}"
    return request.build_absolute_uri(iri_to_uri(path))


# ----------------------------------------------------------------------------- the head's tags


@register.simple_block_tag
def capture(content: str) -> SafeString:
    """``{% capture as name %}…{% endcapture %}``: the body, whitespace collapsed, kept in
    ``name``: the head writes a page's title and description three times, and Django renders a
    block once. (The body was escaped as it rendered; collapsing spaces keeps it safe.)"""
    return mark_safe(" ".join(content.split()))


@register.simple_tag(takes_context=True, name="absolute_url")
def absolute_url_tag(context: template.Context, path: str) -> str:
    """``{% absolute_url path as url %}``: ``path`` (as a template rendered it, entities and all)
    as an absolute URL; the template escapes it again where it writes it."""
    return absolute_url(context["request"], html.unescape(str(path)))


@register.simple_tag
def site_url(name: str) -> str:
    """``{% site_url "home" %}``: ``{% url %}`` of a view that takes no argument, reversed once per
    script prefix (``links.site_url``): every page's header and footer link the same few."""
    return links.site_url(name)


# ----------------------------------------------------------------------------- robots.txt

# Crawlers may read every public page, the flag forms too (one per cell: each names its cell's proof
# page as canonical, which folds it into that page); not the admin, the reporters' secret status
# links, the moderators' flag API, or the operator's metrics.
# The admin is named only at its default address: an address of its own (ADMIN_URL) is not published
# here (its pages say noindex in a header instead, web.http.staff).
ROBOTS = """\
User-agent: *
{admin}Disallow: /flags/
Disallow: /api/flags/
Disallow: /metrics
Allow: /

Sitemap: {sitemap}
"""


@require_safe
def robots_txt(request: HttpRequest) -> HttpResponse:
    admin = "Disallow: /admin/\n" if settings.ADMIN_URL == "admin/" else ""
    body = ROBOTS.format(admin=admin, sitemap=absolute_url(request, reverse("sitemap-xml")))
    return HttpResponse(body, content_type="text/plain; charset=utf-8")


# ----------------------------------------------------------------------------- sitemap.xml


@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    return sitemaps_views.sitemap(request, sitemaps=SECTIONS)


# ----------------------------------------------------------------------------- favicon.ico
# For the browsers that take no SVG icon and the clients that fetch it without reading the page
# (feed readers, link previews): a redirect to static/favicon.svg would leave those without one.

FAVICON_FILE = Path(settings.BASE_DIR) / "static" / "favicon.ico"
# Browsers keep the icon a day (it changes only with a release); shared caches as long as any page.
FAVICON_MAX_AGE = 86400


@cache
def favicon_ico() -> bytes:
    return FAVICON_FILE.read_bytes()


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(favicon_ico(), content_type="image/x-icon")
    patch_cache_control(
        response,
        public=True,
        max_age=FAVICON_MAX_AGE,
        s_maxage=settings.CACHE_S_MAXAGE,
        stale_while_revalidate=settings.CACHE_STALE_WHILE_REVALIDATE,
    )
    return response
