"""Source ids in evidence, as the pages show them: an id with an entry in the arena's source list
links to the source (its title and the day it was read as the link's description); an id without
one is an unresolved reference, never a link."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.safestring import SafeString, mark_safe

from arena.models import Source
from core.text import split_source_ids
from web.pages.markup import esc

UNRESOLVED_TITLE = "Unresolved reference: this arena's source list does not publish this id"


def source_ref_html(key: str, sources: Mapping[str, Source]) -> str:
    """One cited id: a link to its source, or an unresolved reference."""
    source = sources.get(key)
    if source is None or not source.url:
        return f'<span class="unresolved-ref" title="{esc(UNRESOLVED_TITLE)}">{esc(key)}</span>'
    about = source.title or source.url
    if source.accessed is not None:
        about += f", accessed {source.accessed:%Y-%m-%d}"
    return (
        f'<a class="source-ref" href="{esc(source.url)}" title="{esc(about)}"'
        f' rel="nofollow noopener">{esc(key)}</a>'
    )


def refs_html(text: str, sources: Mapping[str, Source]) -> str:
    """``text`` escaped, each source id in it shown by ``source_ref_html``."""
    return "".join(
        source_ref_html(piece, sources) if is_id else esc(piece)
        for piece, is_id in split_source_ids(text)
    )


def with_refs(text: str, sources: Mapping[str, Source]) -> SafeString:
    """``refs_html`` for a template."""
    # every piece is escaped
    return mark_safe(refs_html(text, sources))
