"""What makes the site findable and linkable: ``/robots.txt``, ``/sitemap.xml``, ``/favicon.ico``,
and the template library of ``base.html``'s head (canonical links, OpenGraph and Twitter meta).

Absolute URLs name ``settings.SITE_URL`` when it is set, else the request's scheme and host (the
page cache keys pages by both, so each host gets its own copy).

The library is registered as ``discovery`` in ``TEMPLATES["OPTIONS"]["libraries"]`` (settings).
"""

from __future__ import annotations

import html
import struct
import zlib
from functools import cache

from django import template
from django.conf import settings
from django.contrib.sitemaps import views as sitemaps_views
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.encoding import iri_to_uri
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_safe

from web.formats.sitemaps import SECTIONS

register = template.Library()


def absolute_url(request: HttpRequest, path: str) -> str:
    """``path`` (``/arenas/x/``) as an absolute URL on ``SITE_URL``, else on the request's host."""
    if settings.SITE_URL:
        return f"{settings.SITE_URL}{iri_to_uri(path)}"
    return request.build_absolute_uri(iri_to_uri(path))


# ----------------------------------------------------------------------------- the head's tags


@register.simple_block_tag
def capture(content: str) -> SafeString:
    """``{% capture as name %}…{% endcapture %}``: what the body renders, whitespace collapsed,
    kept in ``name``. A page writes its title and description once, in its block, and the head
    needs each three times (``<title>``/meta description, OpenGraph, Twitter); Django renders a
    block once, where it stands, so base.html renders each block inside ``capture`` and uses the
    variable. (The body was escaped as it rendered; collapsing spaces keeps it safe.)"""
    return mark_safe(" ".join(content.split()))


@register.simple_tag(takes_context=True, name="absolute_url")
def absolute_url_tag(context: template.Context, path: str) -> str:
    """``{% absolute_url path as url %}``: ``path`` (as a template rendered it, entities and all)
    as an absolute URL; the template escapes it again where it writes it."""
    return absolute_url(context["request"], html.unescape(str(path)))


# ----------------------------------------------------------------------------- robots.txt

# Crawlers may read every public page; not the admin, the flag forms (one per cell, with a CSRF
# token), the reporters' secret status links, or the moderators' flag API. The admin is named only
# at its default address: an address of its own (ADMIN_URL) is not published here (its pages say
# noindex in a header instead, web.http.staff).
ROBOTS = """\
User-agent: *
{admin}Disallow: /cells/*/flag/
Disallow: /flags/
Disallow: /api/flags/
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
#
# static/favicon.svg is the icon browsers that read SVG icons show (``<link rel="icon"
# type="image/svg+xml">``, linked after the ICO, whose ``sizes="32x32"`` keeps Chrome from
# preferring it), with its own dark-mode colours. ``/favicon.ico`` is for the browsers that take no
# SVG icon (older Safari) and the clients that fetch it without reading the page (feed readers,
# bookmarks, link previews): a redirect to the SVG would leave those without an icon. It is the same
# mark, drawn here in Python from the same shapes (32 × 32 units) into a PNG inside an ICO (read by
# every browser since IE 9), so no image library is needed and no binary file is committed.

ICON_SIZE = 32
TILE_RGB = (0x1D, 0x5F, 0xA8)  # --accent (light), as in favicon.svg
MARK_RGB = (0xFF, 0xFF, 0xFF)
TILE_RADIUS = 7.0
# The mark, in favicon.svg's units (the same numbers as its shapes)
RECTS = ((15, 6, 2, 19), (5, 9, 22, 2), (10, 24, 12, 3))  # x, y, width, height: post, beam, base
KNOB = (16, 5.5, 2)  # cx, cy, r
PANS = ((7, 19, 4.5), (25, 19, 4.5))  # cx, cy, r: the discs' lower halves
CORD = 1.2  # the cords' width
CORDS = ((7, 10, 3.5, 19), (7, 10, 10.5, 19), (25, 10, 21.5, 19), (25, 10, 28.5, 19))


def _in_disc(x: float, y: float, cx: float, cy: float, r: float) -> bool:
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def _in_tile(x: float, y: float) -> bool:
    r, far = TILE_RADIUS, ICON_SIZE - TILE_RADIUS
    cx, cy = min(max(x, r), far), min(max(y, r), far)  # the nearest corner centre (or the point)
    return _in_disc(x, y, cx, cy, r)


def _near_segment(x: float, y: float, x1: float, y1: float, x2: float, y2: float) -> bool:
    dx, dy = x2 - x1, y2 - y1
    t = min(max(((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy), 0.0), 1.0)
    return (x - x1 - t * dx) ** 2 + (y - y1 - t * dy) ** 2 <= (CORD / 2) ** 2


def _in_mark(x: float, y: float) -> bool:
    return (
        any(rx <= x <= rx + w and ry <= y <= ry + h for rx, ry, w, h in RECTS)
        or _in_disc(x, y, *KNOB)
        or any(y >= cy and _in_disc(x, y, cx, cy, r) for cx, cy, r in PANS)
        or any(_near_segment(x, y, *cord) for cord in CORDS)
    )


def _png(width: int, height: int, rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + row for row in rows)  # filter 0 (none) on every row
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


@cache
def favicon_png(size: int = ICON_SIZE, samples: int = 4) -> bytes:
    """The mark as a ``size`` px PNG, anti-aliased (``samples``² points per pixel)."""
    scale = ICON_SIZE / size
    rows = []
    for py in range(size):
        row = bytearray()
        for px in range(size):
            tile = mark = 0
            for i in range(samples):
                for j in range(samples):
                    x = (px + (i + 0.5) / samples) * scale
                    y = (py + (j + 0.5) / samples) * scale
                    if _in_tile(x, y):
                        tile += 1
                        mark += _in_mark(x, y)
            if not tile:
                row += b"\x00\x00\x00\x00"
                continue
            row += bytes(
                round((m * mark + t * (tile - mark)) / tile)
                for m, t in zip(MARK_RGB, TILE_RGB, strict=True)
            )
            row.append(round(255 * tile / samples**2))
        rows.append(bytes(row))
    return _png(size, size, rows)


@cache
def favicon_ico() -> bytes:
    """An ICO holding one 32 × 32 PNG entry."""
    png = favicon_png()
    directory = struct.pack("<HHH", 0, 1, 1)  # reserved, type 1 (icon), one image
    entry = struct.pack("<BBBBHHII", ICON_SIZE, ICON_SIZE, 0, 0, 1, 32, len(png), 6 + 16)
    return directory + entry + png


@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(favicon_ico(), content_type="image/x-icon")
