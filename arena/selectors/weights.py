"""A visitor's weights read against an arena: ``scoring.Weights`` from what a request asked for
(``WeightsAsked``: the entries of ``?weights=privacy-posture:3,agenticness:0`` or the weights
panel's ``w-<key>`` fields, which ``web.params`` splits out of the query). A key is a category's
slug (``arena_slugify`` of its name) or a persona's slug; a category wins a clash. The categories
and personas are those of the stored scores (the keys of ``category_scores`` / ``persona_scores``):
reading weights costs no query.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena import scoring
from core.text import arena_slugify

CATEGORY, PERSONA = "category", "persona"
# The level a persona preset ("Rank as a backend-developer would") gives its persona.
WEIGHT_CRITICAL = 3
# At most this many ignored entries are named, each cut to ENTRY_SHOWN characters.
IGNORED_MAX = 8
ENTRY_SHOWN = 40
# How the summary above the leaderboard says a weight ("Privacy posture ×3, Agenticness ignored").
_SAID = {0: "ignored", 2: "×2", 3: "×3"}


@dataclass(frozen=True)
class WeightEntry:
    """One entry of ``?weights=`` as written: ``name`` is the part before the ``:`` (None when
    there is no ``:``), ``level`` the level after it (None when it is not one of 0-3)."""

    written: str
    name: str | None
    level: int | None


@dataclass(frozen=True)
class WeightsAsked:
    """What a request asked for, not yet read against the arena: the entries of ``?weights=``, or
    the panel's fields by key (when the panel's form sent them, they are the weights). ``given``:
    whether the request says anything about weights (``?weights=`` with more than spaces, or
    fields)."""

    entries: tuple[WeightEntry, ...] = ()
    fields: Mapping[str, int | None] = field(default_factory=dict)
    given: bool = False

    @property
    def from_form(self) -> bool:
        return bool(self.fields)


@dataclass(frozen=True)
class WeightKey:
    key: str  # the slug in the URL and the field name
    label: str  # the category's name or the persona's slug, as the page shows it
    kind: str  # CATEGORY or PERSONA
    name: str  # what ``scoring.Weights`` is keyed by: the category's name, the persona's slug


@dataclass(frozen=True)
class WeightControl:
    """One control of the weights panel: a key and the level in effect (0-3)."""

    key: WeightKey
    value: int


@dataclass(frozen=True)
class WeightsRead:
    """Weights read against an arena's categories and personas."""

    weights: scoring.Weights  # every key named, 1 where nothing was asked
    keys: tuple[WeightKey, ...]  # categories in order, then personas
    ignored: tuple[str, ...] = ()  # each entry left out, with why (``"x:2" — no such …``)

    def value(self, key: WeightKey) -> int:
        mapping = self.weights.categories if key.kind == CATEGORY else self.weights.personas
        return mapping.get(key.name, scoring.WEIGHT_NORMAL)

    @property
    def published(self) -> bool:
        return self.weights.published

    @property
    def query(self) -> str:
        """The canonical ``?weights=`` value: categories in order, then personas, only the levels
        that are not 1; ``""`` for the published weights."""
        return ",".join(
            f"{k.key}:{v}" for k in self.keys if (v := self.value(k)) != scoring.WEIGHT_NORMAL
        )

    @property
    def controls(self) -> list[WeightControl]:
        return [WeightControl(k, self.value(k)) for k in self.keys]

    @property
    def summary(self) -> list[str]:
        """``["Privacy posture ×3", "Agenticness ignored"]``: the levels that are not 1."""
        return [
            f"{k.label} {_SAID[v]}"
            for k in self.keys
            if (v := self.value(k)) != scoring.WEIGHT_NORMAL
        ]

    def by_kind(self, kind: str) -> dict[str, int]:
        """``{key: level}`` for every category (or persona), in order: what the API echoes."""
        return {k.key: self.value(k) for k in self.keys if k.kind == kind}


def weight_keys(*, categories: Iterable[str], personas: Iterable[str]) -> tuple[WeightKey, ...]:
    """The keys of an arena's weights: each category (by name, in the order given) by its slug,
    then each persona by its slug, without a persona whose slug is a category's."""
    keys = [WeightKey(arena_slugify(name), name, CATEGORY, name) for name in categories]
    taken = {k.key for k in keys}
    keys += [WeightKey(slug, slug, PERSONA, slug) for slug in personas if slug not in taken]
    return tuple(keys)


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= ENTRY_SHOWN else f"{text[: ENTRY_SHOWN - 1]}…"


def weights_read(
    *, asked: WeightsAsked, categories: Iterable[str], personas: Iterable[str]
) -> WeightsRead:
    """Read what was asked against the arena's keys. From the panel's fields: each known key's
    level (anything else is left out silently: the panel sends only levels it offers). From
    ``?weights=``: ``key:level`` entries separated by commas, the last one of a key counting; an
    entry with an unknown key, a level other than 0-3 or no ``:`` is left out and named in
    ``ignored`` (the page says so; the API refuses the request)."""
    keys = weight_keys(categories=categories, personas=personas)
    by_key = {k.key: k for k in keys}
    chosen: dict[WeightKey, int] = {}
    ignored: list[str] = []
    if asked.from_form:
        for name, level in asked.fields.items():
            key = by_key.get(name)
            if key is not None and level is not None:
                chosen[key] = level
    else:
        for entry in asked.entries:
            key = by_key.get(entry.name.strip().lower()) if entry.name is not None else None
            if key is not None and entry.level is not None:
                chosen[key] = entry.level
            elif entry.name is None:
                ignored.append(f"“{_cut(entry.written)}” (write key:level)")
            elif key is None:
                ignored.append(
                    f"“{_cut(entry.written)}” (no category or user type “{_cut(entry.name)}”)"
                )
            else:
                ignored.append(f"“{_cut(entry.written)}” (a weight is 0, 1, 2 or 3)")
        if len(ignored) > IGNORED_MAX:
            ignored[IGNORED_MAX:] = [f"{len(ignored) - IGNORED_MAX} more"]
    weights = scoring.Weights(
        categories={k.name: v for k, v in chosen.items() if k.kind == CATEGORY},
        personas={k.name: v for k, v in chosen.items() if k.kind == PERSONA},
    )
    return WeightsRead(weights, keys, tuple(ignored))
