"""What the arena's views, feeds, exports and API share: the arena or a 404, an htmx URL push."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django_htmx.http import push_url

from arena.selectors.arenas import CountedArena, arena_get


def arena_or_404(slug: str) -> CountedArena:
    if (found := arena_get(slug=slug)) is None:
        raise Http404(f"No arena {slug!r}")
    return found


def swapped(response: HttpResponse, url: str) -> HttpResponse:
    """An htmx fragment that pushes ``url``; a 4xx one is swapped too, so its message shows."""
    if response.status_code != 200:
        response["HX-Reswap"] = "innerHTML"
    return push_url(response, url)
