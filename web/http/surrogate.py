"""The ``Surrogate-Key`` header: every public page names the content it shows, so that an HTTP
cache in front of the site (deploy/varnish/default.vcl, or a CDN with tag purges) can drop exactly
the pages a change touches when ``arena.purge`` asks it to.

The page cache's middleware works the names out once per request from what it already knows (the
URL's name and arguments, and the content version it looked up: an arena's or a cell's version
starts with the arena's id), with no query of its own, and the view's response carries them (so a
page kept by the page cache carries them too). The tags (``arena.cachetags``):

* an arena's pages: ``arena-<id>``, and ``story-<id>``, ``cell-<id>``, ``product-<arena>-<slug>``
  for the story, cell and product(s) the address names;
* the pages spanning every arena (home, recent changes and their feed, llms.txt, the sitemap, the
  API's list of arenas): ``site``; every purge of an arena names ``site`` too, as the site-wide
  version moves with every arena's;
* the pages that change only with a release (methodology, robots.txt, schemas...): ``static``.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.http import HttpRequest, HttpResponseBase

from arena import cachetags

HEADER = "Surrogate-Key"
# where the middleware leaves a request's tags for the response the view makes
META_KEY = "arena.surrogate_keys"


def page_keys(kwargs: Mapping[str, object], version: str, *, arena_bound: bool) -> str:
    """The tags of a cacheable page, from its URL's arguments and its content version
    (``arena_bound``: an arena's or a cell's version, ``<arena id>-<version>``)."""
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
    """Name the page's content on a response a shared cache may keep (a 200 setting no cookie)."""
    keys = request.META.get(META_KEY)
    if keys and response.status_code == 200 and not response.cookies:
        response[HEADER] = keys
