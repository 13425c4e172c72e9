"""A story as the matrix's rows and the head-to-head's rounds show it: plain records rather than
model instances, its category, sub-group and persona shared by every row that has them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from core.text import arena_slugify
from stories.models import Story


@dataclass(frozen=True, slots=True)
class CategoryLine:
    """A category as a story row shows it (its heading)."""

    pk: int
    name: str
    blurb: str
    slug: str  # the matrix's ``category`` filter value


@dataclass(frozen=True, slots=True)
class SubGroupLine:
    pk: int
    name: str


@dataclass(frozen=True, slots=True)
class PersonaLine:
    pk: int
    slug: str
    label: str


@dataclass(frozen=True, slots=True)
class StoryLine:
    """What a row of the matrix or a head-to-head round shows of a story: a lighter stand-in for
    ``stories.Story`` (a model instance costs ten times as much to load; the big arena has 300),
    its category, sub-group and persona shared by every row that has them."""

    pk: int
    text: str
    weight: int
    category: CategoryLine
    subgroup: SubGroupLine | None
    persona: PersonaLine

    @property
    def category_id(self) -> int:
        return self.category.pk

    @property
    def subgroup_id(self) -> int | None:
        return self.subgroup.pk if self.subgroup else None


STORY_LINE_FIELDS = (
    "pk",
    "text",
    "weight",
    "category_id",
    "category__name",
    "category__blurb",
    "subgroup_id",
    "subgroup__name",
    "persona_id",
    "persona__slug",
    "persona__label",
)


def story_line_list(*, stories: QuerySet[Story]) -> list[StoryLine]:
    """``stories`` (a queryset of ``arena_story_list``, filtered or not) as plain rows, in its
    order: one query, no model instance."""
    return story_lines_of(stories.values_list(*STORY_LINE_FIELDS))


def story_lines_of(rows: Iterable[Sequence[Any]]) -> list[StoryLine]:
    """Rows of ``STORY_LINE_FIELDS`` as ``StoryLine`` records (categories, sub-groups and personas
    shared)."""
    categories: dict[int, CategoryLine] = {}
    subgroups: dict[int, SubGroupLine] = {}
    personas: dict[int, PersonaLine] = {}
    lines = []
    for pk, text, weight, cid, cname, blurb, gid, gname, perid, slug, label in rows:
        category = categories.get(cid)
        if category is None:
            category = categories[cid] = CategoryLine(cid, cname, blurb, arena_slugify(cname))
        subgroup = None
        if gid is not None:
            subgroup = subgroups.get(gid)
            if subgroup is None:
                subgroup = subgroups[gid] = SubGroupLine(gid, gname)
        persona = personas.get(perid)
        if persona is None:
            persona = personas[perid] = PersonaLine(perid, slug, label)
        lines.append(StoryLine(pk, text, weight, category, subgroup, persona))
    return lines
