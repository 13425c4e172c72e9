"""robots.txt, sitemap.xml, favicon.ico, ``base.html``'s head tags; URLs on ``SITE_URL`` if set."""

import html
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from django import template
from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps import views as sitemaps_views
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.encoding import iri_to_uri
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from arena.models import Arena
from arena.selectors.arenas import documented_pairs
from products.models import Product
from stories.models import Story

register = template.Library()


def absolute_url(request: HttpRequest, path: str) -> str:
    if settings.SITE_URL:
        return f"{settings.SITE_URL}{iri_to_uri(path)}"
    return request.build_absolute_uri(iri_to_uri(path))


@register.simple_block_tag
def capture(content: str) -> SafeString:
    """``{% capture as name %}…{% endcapture %}``: the body, whitespace collapsed."""
    return mark_safe(" ".join(content.split()))


@register.simple_tag(takes_context=True, name="absolute_url")
def absolute_url_tag(context: template.Context, path: str) -> str:
    """``{% absolute_url path as url %}``: ``path`` as rendered (entities and all), absolute."""
    return absolute_url(context["request"], html.unescape(str(path)))


# Flag forms may be crawled (canonical: their cell); a custom ADMIN_URL is noindex'd by header.
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


Item = tuple[str, date | None]


def _lastmod(computed: datetime | None, updated: date | None) -> date | None:
    # a date either way: Django compares the items' lastmods, and a datetime is no date
    return computed.date() if computed else updated


class Section(Sitemap):
    """A section of ``(path, lastmod)`` items, made per request (a sitemap keeps its lastmod)."""

    def __init__(self, rows: Callable[[], list[Item]]) -> None:
        self.rows = rows

    def items(self) -> list[Item]:
        return self.rows()

    def get_protocol(self, protocol: str | None = None) -> str:
        return settings.SITE_URL.partition("://")[0] or super().get_protocol(protocol)

    def get_domain(self, site: Any = None) -> str:  # (no sites framework: the request's host)
        return settings.SITE_URL.partition("://")[2] or super().get_domain(site)

    def location(self, item: Item) -> str:
        return item[0]

    def lastmod(self, item: Item) -> date | None:
        return item[1]


def pages() -> list[Item]:
    return [(reverse(name), None) for name in ("home", "methodology", "recent-changes")]


def arena_pages(arena: Arena) -> list[Item]:
    """An arena's pages in matrix order; lastmod the scores' day, else the arena's ``updated``."""
    slug = arena.slug
    products = Product.objects.filter(arena=arena).order_by("position").values_list("slug")
    stories = Story.objects.filter(arena=arena).order_by("position").values_list("pk")
    pairs = [(a.slug, b.slug) for _, a, b in documented_pairs(arena=arena)]
    paths = [reverse(name, args=[slug]) for name in ("arena-detail", "arena-disputes")]
    paths += [reverse("product-detail", args=[slug, *row]) for row in products]
    paths += [reverse("story-detail", args=[slug, *row]) for row in stories]
    paths += [reverse("head-to-head", args=[slug, *pair]) for pair in pairs]
    day = _lastmod(arena.scores_computed_at, arena.updated)
    return [(path, day) for path in paths]


def _sitemap(request: HttpRequest, rows: Callable[[], list[Item]]) -> HttpResponse:
    return sitemaps_views.sitemap(request, sitemaps={"pages": Section(rows)})


@require_safe
def sitemap_xml(request: HttpRequest) -> HttpResponse:
    """Sitemap index: the site's pages, then a sitemap per arena, dated by its arena: one query."""
    rows = Arena.objects.order_by("name").values_list("slug", "scores_computed_at", "updated")
    found: list[Item] = [(reverse("sitemap-pages"), None)]
    found += [(reverse("arena-sitemap", args=[slug]), _lastmod(c, u)) for slug, c, u in rows]
    # (as Django's index template reads them)
    maps = [{"location": absolute_url(request, path), "last_mod": day} for path, day in found]
    response = TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": maps}, content_type="application/xml"
    )
    response["X-Robots-Tag"] = "noindex, noodp, noarchive"  # (as Django's own sitemap views)
    return response


@require_safe
def sitemap_pages_xml(request: HttpRequest) -> HttpResponse:
    return _sitemap(request, pages)


@require_safe
def arena_sitemap_xml(request: HttpRequest, arena: str) -> HttpResponse:
    if (found := Arena.objects.filter(slug=arena).first()) is None:
        raise Http404(f"No arena {arena!r}")
    return _sitemap(request, lambda: arena_pages(found))


# For the clients that take no SVG icon or fetch it without reading the page (feed readers).
FAVICON = (Path(settings.BASE_DIR) / "static" / "favicon.ico").read_bytes()


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(FAVICON, content_type="image/x-icon")
    # browsers keep it a day (it changes only with a release); shared caches as long as any page
    patch_cache_control(
        response,
        public=True,
        max_age=86400,
        s_maxage=settings.CACHE_S_MAXAGE,
        stale_while_revalidate=settings.CACHE_STALE_WHILE_REVALIDATE,
    )
    return response
