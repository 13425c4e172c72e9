"""The site for programs: ``/llms.txt`` and the markdown views of an arena, a head-to-head, a
cell and the API. Each view reads through the same selectors as its HTML page and hands the
result to a renderer of ``web.formats.markdown``; "not found" is a short markdown 404. Cached and
validated like the pages (``web.http.pagecache.PAGE_VERSIONS``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from drf_spectacular.generators import SchemaGenerator

from arena import selectors
from arena.selectors.arenas import arena_documented_pairs, documented_pairs
from products.models import Product
from web.formats.markdown import api_page, arena_page, cell_page, head_to_head_page, llms_page
from web.formats.markdown.links import Licence, Links
from web.formats.markdown.llms_page import Resource
from web.formats.markdown.text import not_found_markdown

MARKDOWN = "text/markdown; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
SITE_NAME = "Arena"


def _links(request: HttpRequest) -> Links:
    return Links(request.build_absolute_uri("/").rstrip("/"))


def _licence() -> Licence:
    return Licence(settings.DATA_LICENSE_NAME, settings.DATA_LICENSE_URL)


def _raw(links: Links) -> dict[str, str]:
    """Resources that are not markdown, named (not linked) by llms.txt and the API summary."""
    return {
        "OpenAPI schema (YAML; JSON with ?format=json)": links.path("api-schema"),
        "Interactive API docs (HTML)": links.path("api-docs"),
    }


def _markdown(text: str, status: int = 200) -> HttpResponse:
    return HttpResponse(text, content_type=MARKDOWN, status=status)


def _not_found(what: str) -> HttpResponse:
    return _markdown(not_found_markdown(what), status=404)


@require_safe
def arena_markdown(request: HttpRequest, arena: str) -> HttpResponse:
    found = selectors.arena_get(slug=arena)
    if found is None:
        return _not_found(f"arena {arena!r}")
    categories = selectors.arena_category_list(arena=found)
    board = selectors.arena_leaderboard(
        arena=found, categories=[c.name for c in categories], stale=False
    )
    products = selectors.arena_product_list(arena=found)
    text = arena_page.arena_markdown(
        arena=found,
        board=board,
        persona_results=selectors.arena_persona_result_list(arena=found),
        matrix=selectors.arena_matrix(arena=found, products=products),
        pairs=arena_documented_pairs(arena=found),
        links=_links(request),
        licence=_licence(),
    )
    return _markdown(text)


@require_safe
def head_to_head_markdown(request: HttpRequest, arena: str, a: str, b: str) -> HttpResponse:
    found = selectors.arena_get(slug=arena)
    if found is None:
        return _not_found(f"arena {arena!r}")
    pair = selectors.arena_product_pair_get(arena=found, a=a, b=b)
    if a == b or a not in pair or b not in pair:
        return _not_found(f"head-to-head {a!r} vs {b!r} in {found.slug}")
    cmp = selectors.head_to_head_get(arena=found, a=pair[a], b=pair[b])
    text = head_to_head_page.head_to_head_markdown(
        arena=found, cmp=cmp, links=_links(request), licence=_licence()
    )
    return _markdown(text)


@require_safe
def cell_markdown(request: HttpRequest, cell: int) -> HttpResponse:
    page = selectors.cell_page_get(pk=cell)
    if page is None:
        return _not_found(f"cell {cell}")
    return _markdown(cell_page.cell_markdown(page=page, links=_links(request), licence=_licence()))


def _optional(links: Links, arenas: list[Any]) -> list[Resource]:
    """What ``/llms.txt`` links under ``## Optional``: the resources that are not markdown."""
    out: list[Resource] = [
        (name, href, notes)
        for name, (href, notes) in {
            "OpenAPI schema": (links.path("api-schema"), "YAML; JSON with ?format=json"),
            "Interactive API docs": (links.path("api-docs"), "HTML"),
            "Arena file format": (
                links.path("arena-file-schema"),
                "the JSON Schema of every arena's JSON export",
            ),
            "Disputes format": (
                links.path("published-schema", "disputes-v1"),
                "the JSON Schema of each arena's disputes.json",
            ),
            "Verification queue format": (
                links.path("published-schema", "verify-v1"),
                "the JSON Schema of each arena's verify.json",
            ),
        }.items()
    ]
    for a in arenas:  # the exports: one CSV row per cell; the arena file format, imports back
        csv, json = links.path("arena-export-csv", a.slug), links.path("arena-export-json", a.slug)
        out.append((f"{a.name} as CSV", csv, "one row per cell"))
        out.append((f"{a.name} as JSON", json, "the arena file format, imports back"))
    return out


@require_safe
def llms_txt(request: HttpRequest) -> HttpResponse:
    arenas = list(selectors.arena_list())
    links = _links(request)
    pairs: dict[int, list[tuple[Product, Product]]] = {}
    for arena, a, b in documented_pairs():  # (one query for every arena)
        pairs.setdefault(arena.pk, []).append((a, b))
    text = llms_page.llms_txt(
        site=SITE_NAME,
        arenas=arenas,
        pairs=pairs,
        links=links,
        licence=_licence(),
        optional=_optional(links, arenas),
    )
    return HttpResponse(text, content_type=TEXT)


@require_safe
def api_markdown(request: HttpRequest) -> HttpResponse:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return _markdown(api_page.api_markdown(schema=schema, raw=_raw(_links(request))))
