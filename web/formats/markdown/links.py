"""Where the markdown documents point: the site's addresses on the host a request came to, and the
line naming the data's licence."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.urls import reverse

from web.formats.markdown.text import inline, link, url


@functools.lru_cache(maxsize=64)
def _prefix(name: str, *args: str) -> str:
    """The path of ``name`` with ``args`` and a last argument still to append (reversed once)."""
    return reverse(name, args=[*args, "0"])[: -len("0/")]


@dataclass(frozen=True)
class Links:
    """Absolute addresses on the host a request came to (``root``: ``https://host``, no slash)."""

    root: str

    def _abs(self, path: str) -> str:
        return f"{self.root}{path}"

    def arena(self, slug: str) -> str:
        return self._abs(reverse("arena-detail", args=[slug]))

    def arena_md(self, slug: str) -> str:
        return self._abs(reverse("arena-markdown", args=[slug]))

    def product(self, arena: str, product: str) -> str:
        return self._abs(f"{_prefix('product-detail', arena)}{product}/")

    def story(self, arena: str, story: int) -> str:
        return self._abs(f"{_prefix('story-detail', arena)}{int(story)}/")

    def head_to_head(self, arena: str, a: str, b: str) -> str:
        return self._abs(reverse("head-to-head", args=[arena, a, b]))

    def head_to_head_md(self, arena: str, a: str, b: str) -> str:
        return self._abs(reverse("head-to-head-markdown", args=[arena, a, b]))

    def cell(self, pk: int) -> str:
        return self._abs(reverse("cell-detail", args=[int(pk)]))

    def cell_md(self, pk: int) -> str:
        return self._abs(reverse("cell-markdown", args=[int(pk)]))

    def flag(self, pk: int) -> str:
        return self._abs(reverse("flag-create", args=[int(pk)]))

    def path(self, name: str, *args: object) -> str:
        return self._abs(reverse(name, args=list(args)))


@dataclass(frozen=True)
class Licence:
    name: str
    url: str

    def line(self, *, linked: bool = True) -> str:
        """``Data licence: [CC BY 4.0](…)``; not ``linked``: its address as code (llms.txt links
        markdown pages only)."""
        name = (
            link(self.name, url(self.url) or "")
            if linked
            else f"{inline(self.name)} (`{url(self.url)}`)"
        )
        return f"Data licence: {name}; cite the arena page."
