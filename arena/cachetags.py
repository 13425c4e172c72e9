"""The tags an HTTP cache in front knows each response by (``Surrogate-Key``) and purges name:
words of ``[A-Za-z0-9_-]`` separated by one space (deploy/varnish/default.vcl relies on it)."""

import re

SITE = "site"  # pages spanning every arena (home, changes, llms.txt, sitemap, API list)
STATIC = "static"  # the pages that change only with a release (deploys ban everything anyway)

ALL = "*"  # not a tag: purging it alone bans every page (a restore replaced the database)

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
    """The tags as one header value: each once, in order, valid ones only (or ``ALL`` alone)."""
    if list(tags) == [ALL]:
        return ALL
    return " ".join(dict.fromkeys(t for t in tags if TAG.fullmatch(t)))
