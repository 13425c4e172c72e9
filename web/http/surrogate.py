"""The Surrogate-Key header: the content tags (``arena.cachetags``) of each public page, worked out
from the URL and the content version without a query, so that the HTTP cache in front drops
exactly the pages a change touches."""

from __future__ import annotations

from collections.abc import Mapping

from django.http import HttpRequest, HttpResponseBase

from arena import cachetags

HEADER = "Surrogate-Key"
# where the middleware leaves a request's tags for the response the view makes
META_KEY = "arena.surrogate_keys"


def page_keys(kwargs: Mapping[str, object], version: str, *, arena_bound: bool) -> str:
    """``arena_bound``: an arena's or a cell's version, ``<arena id>-<version>``."""
    if not arena_bound:
        return cachetags.STATIC if version.startswith("static.") else cachetags.SITE
    arena_id = version.split("-", 1)[0]
    tags = [cachetags.arena_tag(arena_id)]
    if "story" in kwargs:
        tags.append(cachetags.story_tag(str(kwargs["story"])))
    if "cell" in kwargs:
        tags.append(cachetags.cell_tag(str(kwargs["cell"])))
    for name in ("product", "a", "b"):  # a product's pages; the two of a head-to-head
        if name in kwargs:
            tags.append(cachetags.product_tag(arena_id, str(kwargs[name])))
    return cachetags.header_value(tags)


def remember(request: HttpRequest, keys: str) -> None:
    request.META[META_KEY] = keys


def tag(request: HttpRequest, response: HttpResponseBase) -> None:
    keys = request.META.get(META_KEY)
    if keys and response.status_code == 200 and not response.cookies:
        response[HEADER] = keys
