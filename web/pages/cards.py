"""A judged cell as a card (the story and head-to-head pages show dozens to hundreds of them), as
the data ``arena/_cell.html#card`` draws: its judgement, how old its evidence is, what backs it,
its rationale and quotes with their source ids resolved, and its links."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from arena.models import Source
from core.text import SOURCE_ID_RE, split_source_ids
from stories import freshness
from stories.values import Backing, CellValue, backing_of
from web.pages import links
from web.pages.freshness import NO_DATE, AsOf, Now, freshness_now
from web.pages.shapes import CardCell, Dated, Quote

NO_SOURCES: Mapping[str, Source] = {}
# The longest story text a control's accessible name quotes whole.
STORY_NAME_MAX = 60


@dataclass(frozen=True)
class Ref:
    """A piece of text; a source id (``is_id``) links to its source when the list has one."""

    text: str
    is_id: bool = False
    url: str = ""
    about: str = ""  # the source's title and the day it was read


def refs(text: str, sources: Mapping[str, Source] = NO_SOURCES) -> list[Ref]:
    """``text`` in pieces, each source id in it resolved against the arena's source list."""
    out = []
    for piece, is_id in split_source_ids(text):
        source = sources.get(piece) if is_id else None
        if source is None or not source.url:
            out.append(Ref(piece, is_id))
            continue
        about = source.title or source.url
        if source.accessed is not None:
            about += f", accessed {source.accessed:%Y-%m-%d}"
        out.append(Ref(piece, True, source.url, about))
    return out


@dataclass(frozen=True)
class Age:
    """How old a cell's newest evidence is: ``checked 75 days ago``, its day, whether stale."""

    text: str
    as_of: date | None
    stale: bool
    days: int  # the stale age


def age(verdict: str, as_of: date | None, now: Now | None = None) -> Age:
    today, days = now or freshness_now()
    text = freshness.age_text(freshness.age_days(as_of, today=today))
    stale = freshness.is_stale(verdict, as_of, today=today, days=days)
    return Age(text, as_of, stale, int(days))


@dataclass(frozen=True)
class Evidence:
    source: str
    refs: list[Ref] | None  # the source in pieces when it cites a source id
    quote: str
    url: str  # visitors' sources, accepted from flags: ``rel="nofollow ugc noopener"``
    checked: str  # the day it was checked, ``2026-09-16``, "" for none


def evidence(quotes: Iterable[Quote], sources: Mapping[str, Source] = NO_SOURCES) -> list[Evidence]:
    out = []
    for e in quotes:
        checked = getattr(e, "checked_on", None)
        out.append(
            Evidence(
                e.source,
                refs(e.source, sources) if SOURCE_ID_RE.search(e.source) else None,
                e.quote,
                getattr(e, "url", ""),
                f"{checked:%Y-%m-%d}" if checked is not None else "",
            )
        )
    return out


def evidence_age(cell: Dated) -> dict[str, object]:
    """What ``arena/_cell.html#age`` draws of a cell: ``checked 75 days ago (2026-09-16)``, with a
    "stale" badge when it is older than ``EVIDENCE_STALE_DAYS``."""
    return {"age": age(cell.verdict, cell.evidence_as_of)}


def evidence_item(e: Quote, sources: Mapping[str, Source] = NO_SOURCES) -> dict[str, object]:
    """What ``arena/_cell.html#evidence`` draws: one evidence quote of a cell page."""
    return {"e": evidence([e], sources)[0]}


def with_refs(text: str, sources: Mapping[str, Source] = NO_SOURCES) -> dict[str, object]:
    """What ``arena/_cell.html#refs`` draws: ``text`` with its source ids linked."""
    return {"refs": refs(text, sources)}


def story_name(text: str) -> str:
    """A story's text as a control's accessible name quotes it: whole when short, else cut at a
    word before ``STORY_NAME_MAX`` characters, with an ellipsis."""
    if len(text) <= STORY_NAME_MAX:
        return text
    cut = text[:STORY_NAME_MAX].rsplit(" ", 1)[0].rstrip(",;:")
    return f"{cut}…"


@dataclass(frozen=True)
class Card:
    cell: CardCell
    value: CellValue
    name: str  # its heading, the product's name
    age: Age | None  # None for n/a, or a stand-in that does not read its date
    backing: Backing
    quotes: int
    rationale: list[Ref]
    evidence: list[Evidence]
    flag_label: str  # ``Inngest on “Resume after a crash”, full``
    url: str  # its proof page

    @property
    def backing_text(self) -> str:
        return self.backing.describe(self.quotes)


def card(
    cell: CardCell,
    name: str,
    sources: Mapping[str, Source] = NO_SOURCES,
    story: str = "",
    now: Now | None = None,
) -> Card:
    """One judged cell as a card: ``name`` its heading; its quotes (``cell.evidence.all()``,
    loaded beforehand); its flag control named for the product and ``story``, the story's text."""
    value = CellValue(cell.verdict, cell.proof or None, cell.quality)
    as_of: AsOf = getattr(cell, "evidence_as_of", NO_DATE)
    published = cell.detail_published
    quotes = list(cell.evidence.all()) if published else []
    on = f" on “{story_name(story)}”" if story else ""
    return Card(
        cell=cell,
        value=value,
        name=name,
        age=None if as_of is NO_DATE or not value.applicable else age(cell.verdict, as_of, now),
        backing=backing_of(published=published, rationale=cell.rationale, quotes=len(quotes)),
        quotes=len(quotes),
        rationale=refs(cell.rationale, sources) if published else [],
        evidence=evidence(quotes, sources),
        flag_label=f"{cell.product.name}{on}, {cell.verdict}",
        url=f"{links.cells_prefix()}{int(cell.pk)}/",
    )


def cell_card(
    cell: CardCell, name: str, sources: Mapping[str, Source] = NO_SOURCES, story: str = ""
) -> dict[str, object]:
    """What ``arena/_cell.html#card`` draws (see ``card``)."""
    return {"card": card(cell, name, sources, story)}
