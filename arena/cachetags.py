"""The names an HTTP cache in front of the site (Varnish, a CDN) knows each public response by:
the tags of its ``Surrogate-Key`` header (``web.http.pagekeys``) and of the purges the writes send
(``ops.purge``). One vocabulary in one place, so that what a page names and what a change purges
cannot drift apart.

Tags are words of ``[A-Za-z0-9_-]``, separated by one space in the header (a purge's regex relies
on it: deploy/varnish/default.vcl). Arenas, stories and cells are named by id, which never changes
and is never reused (a renamed arena's pages, kept under the old address, still carry its tag);
a product by its arena and slug, which is what its pages' addresses know.
"""

from __future__ import annotations

import re

# the pages that span every arena (home, recent changes, llms.txt, the sitemap, the API's list)
SITE = "site"
# the pages that change only with a release (deploys ban everything anyway)
STATIC = "static"

# not a tag: a purge of this word alone bans every page (a restore replaced the whole database)
ALL = "*"

TAG = re.compile(r"[A-Za-z0-9_-]+")


def arena_tag(arena_id: int | str) -> str:
    return f"arena-{arena_id}"


def story_tag(story_id: int | str) -> str:
    return f"story-{story_id}"


def cell_tag(cell_id: int | str) -> str:
    return f"cell-{cell_id}"


def product_tag(arena_id: int | str, slug: str) -> str:
    return f"product-{arena_id}-{slug}"


def header_value(tags: list[str] | tuple[str, ...]) -> str:
    """The tags as one header value: each once, in the order given, valid ones only (or ``ALL``
    alone)."""
    if list(tags) == [ALL]:
        return ALL
    return " ".join(dict.fromkeys(t for t in tags if TAG.fullmatch(t)))
