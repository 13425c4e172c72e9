"""A visitor's weights (``?weights=privacy-posture:3`` or the panel's ``w-<key>``) read against an
arena's stored categories and personas, no query; a key's category wins over its persona."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from arena.scoring.results import WEIGHT_NORMAL, Weights
from core.text import arena_slugify

CATEGORY, PERSONA = "category", "persona"
WEIGHT_CRITICAL = 3  # what a persona preset ("Rank as a backend-developer would") gives it
IGNORED_MAX = 8  # at most this many ignored entries are named, each cut to ENTRY_SHOWN characters
ENTRY_SHOWN = 40
_SAID = {0: "ignored", 2: "×2", 3: "×3"}  # "Privacy posture ×3, Agenticness ignored"


@dataclass(frozen=True)
class WeightEntry:
    written: str
    name: str | None  # before the ``:`` (None: no ``:``)
    level: int | None  # after it (None: not 0-3)


@dataclass(frozen=True)
class WeightsAsked:
    entries: tuple[WeightEntry, ...] = ()  # ``?weights=``
    fields: Mapping[str, int | None] = field(default_factory=dict)  # the panel's, by key
    given: bool = False  # the request says anything about weights

    @property
    def from_form(self) -> bool:
        return bool(self.fields)


@dataclass(frozen=True)
class WeightKey:
    key: str  # the slug in the URL and the field name
    label: str  # the category's name or the persona's slug: what ``Weights`` is keyed by
    kind: str  # CATEGORY or PERSONA


@dataclass(frozen=True)
class WeightsRead:
    weights: Weights  # 1 where nothing was asked
    keys: tuple[WeightKey, ...]  # categories in order, then personas
    ignored: tuple[str, ...] = ()  # each entry left out, with why

    def value(self, key: WeightKey) -> int:
        mapping = self.weights.categories if key.kind == CATEGORY else self.weights.personas
        return mapping.get(key.label, WEIGHT_NORMAL)

    @property
    def query(self) -> str:
        """The canonical ``?weights=`` value: only the levels that are not 1."""
        return ",".join(f"{k.key}:{v}" for k in self.keys if (v := self.value(k)) != WEIGHT_NORMAL)

    @property
    def controls(self) -> list[tuple[WeightKey, int]]:
        return [(k, self.value(k)) for k in self.keys]  # each with its level in effect, 0-3

    @property
    def summary(self) -> list[str]:
        return [f"{k.label} {_SAID[v]}" for k in self.keys if (v := self.value(k)) != WEIGHT_NORMAL]

    def by_kind(self, kind: str) -> dict[str, int]:
        """``{key: level}`` of every category (or persona), in order: what the API echoes."""
        return {k.key: self.value(k) for k in self.keys if k.kind == kind}


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= ENTRY_SHOWN else f"{text[: ENTRY_SHOWN - 1]}…"


def weights_read(
    *, asked: WeightsAsked, categories: Iterable[str], personas: Iterable[str]
) -> WeightsRead:
    """The panel's known fields, or the ``?weights=`` entries (the last of a key counts)."""
    keys = [WeightKey(arena_slugify(name), name, CATEGORY) for name in categories]
    taken = {k.key for k in keys}
    keys += [WeightKey(slug, slug, PERSONA) for slug in personas if slug not in taken]
    by_key = {k.key: k for k in keys}
    chosen: dict[WeightKey, int] = {}
    ignored: list[str] = []
    if asked.from_form:
        for name, level in asked.fields.items():
            if (key := by_key.get(name)) is not None and level is not None:
                chosen[key] = level
    for entry in () if asked.from_form else asked.entries:
        key = by_key.get(entry.name.strip().lower()) if entry.name is not None else None
        written = f"“{_cut(entry.written)}”"
        if key is not None and entry.level is not None:
            chosen[key] = entry.level
        elif entry.name is None:
            ignored.append(f"{written} (write key:level)")
        elif key is None:
            ignored.append(f"{written} (no category or user type “{_cut(entry.name)}”)")
        else:
            ignored.append(f"{written} (a weight is 0, 1, 2 or 3)")
    if len(ignored) > IGNORED_MAX:
        ignored[IGNORED_MAX:] = [f"{len(ignored) - IGNORED_MAX} more"]
    weights = Weights(
        categories={k.label: v for k, v in chosen.items() if k.kind == CATEGORY},
        personas={k.label: v for k, v in chosen.items() if k.kind == PERSONA},
    )
    return WeightsRead(weights, tuple(keys), tuple(ignored))
