"""The front door: the 404's suggestions, the search page's address, the API reference's rows."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.urls import reverse

from arena.selectors.search import Known
from web.pages import links
from web.params import SEARCH_Q, query_string

SUGGESTIONS_MAX = 6  # at most this many suggestions on a 404
SUGGEST_CUTOFF = 0.6  # how alike (difflib's ratio) a part of the address and a name must be
# At most this many parts of a missing address are matched, each cut to WORD_MAX characters (difflib
# takes time with the square of a text's length: a made-up address costs little).
WORDS_MAX = 6
WORD_MAX = 60
# The parts of the site's addresses that name no arena, product or story.
_ROUTE_WORDS = frozenset({"arenas", "products", "stories", "vs", "cells", "compare", "changes"})


@dataclass(frozen=True)
class Suggestion:
    title: str
    kind: str  # "arena", "product" or "story"
    url: str


def search_url(text: str) -> str:
    return reverse("search") + query_string([(SEARCH_Q.name, text)])


def _words(path: str) -> list[str]:
    """A path's parts that could be a slug or name: ``/arenas/x/vs/a-vs-b/`` → ``x``, ``a``, ``b``."""
    words: list[str] = []
    for part in path.strip("/").split("/"):
        for piece in part.split("-vs-"):
            piece = piece.removesuffix(".md").lower()
            if piece and piece not in _ROUTE_WORDS and not piece.isdigit():
                words.append(piece[:WORD_MAX])
    return words[:WORDS_MAX]


def arena_named(path: str) -> str:
    """The slug of ``/arenas/<slug>/…`` ("" elsewhere)."""
    parts = path.strip("/").split("/")
    return parts[1] if len(parts) >= 2 and parts[0] == "arenas" else ""


def suggestions(path: str, known: Known) -> list[Suggestion]:
    """The pages whose names are nearest to the parts of ``path``: the arena it names first."""
    names = dict(known.arenas)
    arena = arena_named(path).removesuffix(".md")
    arena = arena if arena in names else ""  # only one of the site's
    arenas = links.url_prefix("arena-detail")
    entries: list[tuple[tuple[str, ...], Suggestion]] = [
        ((s, n), Suggestion(n, "arena", f"{arenas}{s}/")) for s, n in known.arenas
    ]
    # the arena's own products first: another arena's product of the same slug comes after
    for arena_slug, slug, name in sorted(known.products, key=lambda p: p[0] != arena):
        title = f"{name} ({names.get(arena_slug, arena_slug)})"
        url = f"{links.url_prefix('product-detail', arena_slug)}{slug}/"
        entries.append(((slug, name), Suggestion(title, "product", url)))
    for pk, text in known.stories:
        entries.append(((text,), Suggestion(text, "story", f"{arenas}{arena}/stories/{pk}/")))
    candidates: dict[str, Suggestion] = {}
    for keys, suggestion in entries:
        for key in keys:
            candidates.setdefault(key.lower(), suggestion)
    found = [candidates[arena]] if arena else []
    for word in _words(path):
        close = difflib.get_close_matches(word, list(candidates), SUGGESTIONS_MAX, SUGGEST_CUTOFF)
        found += [candidates[key] for key in close]
        # a story is matched by its words ("retry-policies" in "Set retry policies per step")
        if len(spaced := word.replace("-", " ")) >= 4:
            found += [candidates[t.lower()] for _pk, t in known.stories if spaced in t.lower()]
    return list(dict.fromkeys(found))[:SUGGESTIONS_MAX]


def _schema_name(content: Mapping[str, Any] | None) -> str:
    """``ArenaDetail`` of ``{"application/json": {"schema": {"$ref": ".../ArenaDetail"}}}``."""
    for media in (content or {}).values():
        schema = media.get("schema") or {}
        ref = schema.get("$ref") or (schema.get("items") or {}).get("$ref") or ""
        if ref:
            name = ref.rsplit("/", 1)[-1]
            return f"list of {name}" if schema.get("type") == "array" else name
        if schema.get("type"):
            return str(schema["type"])
    return ""


def api_endpoints(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "method": method.upper(),
            "path": path,
            "anchor": op.get("operationId") or f"{method}-{path}",
            "description": op.get("summary") or op.get("description") or "",
            "parameters": op.get("parameters", []),  # each with its name, in, required, description
            "answers": [
                (str(code), r.get("description", ""), _schema_name(r.get("content")))
                for code, r in sorted(op.get("responses", {}).items())
            ],
            "body": _schema_name((op.get("requestBody") or {}).get("content")),
        }
        for path, ops in schema.get("paths", {}).items()
        for method, op in ops.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
