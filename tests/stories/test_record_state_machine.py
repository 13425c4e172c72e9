"""The record's promises, checked by a machine: hypothesis interleaves admin edits of cells and of
structure, flags, upholds and rejections, and imports of the bundled pages, and after every step
checks that

1. nothing upheld or moderated is lost (every part of a cell a moderator or an editor last wrote
   is still there, through any import, and so is every edit of a story, a product, a category, a
   persona and every adjacent arena added in the admin),
2. every public change record is kept,
3. no page answers a 500,
4. the arena's content version moves whenever its export changes (no cached page keeps old text),
5. export → import → export gives the same bytes.

Bounded in ``make test``; ``ARENA_STATEFUL_EXAMPLES`` and ``ARENA_STATEFUL_STEPS`` ask for more.
"""

from __future__ import annotations

import io
import itertools
import os
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from arena.imports.pages import read_arena
from arena.imports.service import arena_import
from arena.models import AdjacentArena, Arena, Category, Persona
from arena.services import structure_save
from flags.forms import DecisionForm, FlagForm
from flags.models import Status
from flags.services import flag_submit, review_item_reject, review_item_uphold
from products.models import Product
from products.services import product_update
from stories.models import Cell, CellChange, Evidence, Story
from stories.services import cell_edit, evidence_update, story_update
from tests.conftest import SEED_SLUG, seed_paths
from web.http.clients import client_hash

pytestmark = pytest.mark.long

EXAMPLES = int(os.environ.get("ARENA_STATEFUL_EXAMPLES", "3"))
STEPS = int(os.environ.get("ARENA_STATEFUL_STEPS", "8"))
# a few cells, so that edits, flags and imports often meet on the same one
CELLS = st.integers(min_value=0, max_value=11)
clients = itertools.count(1)


def parts(cell: Cell) -> tuple:
    """Every part of a cell a moderator or an editor may have written."""
    cell.refresh_from_db()
    quotes = tuple(
        Evidence.objects.filter(cell=cell).order_by("position").values_list("source", "quote")
    )
    return (cell.verdict, cell.proof, cell.quality, cell.rationale, quotes)


def export_bytes(folder: Path, name: str) -> bytes:
    path = folder / name
    call_command("export_arena", SEED_SLUG, "-o", str(path), stdout=io.StringIO())
    return path.read_bytes()


class RecordMachine(RuleBasedStateMachine):
    def __init__(self, moderator, record):
        super().__init__()
        # each run starts from the seeded arena and leaves it as it found it
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.moderator, self.record = moderator, record
        self.folder = Path(tempfile.mkdtemp())
        self.arena = Arena.objects.get(slug=SEED_SLUG)
        self.cells = list(Cell.objects.on_pages().filter(story__arena=self.arena).order_by("pk"))
        self.values = sorted({(c.verdict, c.proof, c.quality) for c in self.cells}, key=str)
        self.moderated: dict[int, tuple] = {}
        self.structure: dict[tuple, object] = {}
        self.records: set[int] = set(CellChange.objects.values_list("pk", flat=True))
        self.web = Client()
        self.seen_export = export_bytes(self.folder, "start.json")
        self.seen_version = self._version()

    def teardown(self):
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)

    def _version(self) -> int:
        return Arena.objects.values_list("content_version", flat=True).get(pk=self.arena.pk)

    def _moderated(self, cell: Cell) -> None:
        self.moderated[cell.pk] = parts(cell)

    # ------------------------------------------------------------ rules

    @rule(i=CELLS, v=st.integers(min_value=0, max_value=50))
    def edit_judgement(self, i, v):
        cell = Cell.objects.get(pk=self.cells[i].pk)
        verdict, proof, quality = self.values[v % len(self.values)]
        cell_edit(
            cell=cell,
            changes={"verdict": verdict, "proof": proof, "quality": quality},
            base_version=cell.version,
            by=self.moderator,
            note="Checked again.",
        )
        self._moderated(cell)

    @rule(i=CELLS, words=st.text(alphabet="abc xyz.", min_size=1, max_size=30))
    def edit_rationale(self, i, words):
        cell = Cell.objects.get(pk=self.cells[i].pk)
        cell_edit(
            cell=cell,
            changes={"rationale": f"Editor: {words}"},
            base_version=cell.version,
            by=self.moderator,
        )
        if parts(cell)[3] != self.moderated.get(cell.pk, (None,) * 4)[3]:
            self._moderated(cell)

    @rule(i=CELLS)
    def edit_a_quote(self, i):
        cell = Cell.objects.get(pk=self.cells[i].pk)
        quote = Evidence.objects.filter(cell=cell).order_by("position").first()
        if quote is not None:
            evidence_update(evidence=quote, changes={"quote": f"Checked on step {next(clients)}."})
            self._moderated(cell)

    @rule(i=CELLS, v=st.integers(min_value=0, max_value=50), accept=st.booleans())
    def flag_then_uphold(self, i, v, accept):
        cell = Cell.objects.get(pk=self.cells[i].pk)
        verdict, _, quality = self.values[v % len(self.values)]
        flag = flag_submit(
            cell=cell,
            form=FlagForm(
                {
                    "reason": "wrong_verdict",
                    "explanation": "The docs say otherwise, with an example.",
                    "source_url": "https://example.com/docs" if accept else "",
                    "proposed_verdict": "" if verdict == "n/a" else verdict,
                }
            ),
            client=client_hash(f"10.7.{next(clients) % 250}.{next(clients) % 250}"),
        )
        if flag.item.status != Status.PENDING:
            return
        review_item_uphold(
            item=flag.item,
            moderator=self.moderator,
            form=DecisionForm({"note": "Confirmed.", "accept_source": accept}),
        )
        self._moderated(cell)

    @rule(i=CELLS)
    def flag_then_reject(self, i):
        cell = Cell.objects.get(pk=self.cells[i].pk)
        flag = flag_submit(
            cell=cell,
            form=FlagForm({"reason": "other", "explanation": "I think this is wrong somehow."}),
            client=client_hash(f"10.8.{next(clients) % 250}.{next(clients) % 250}"),
        )
        review_item_reject(
            item=flag.item, moderator=self.moderator, form=DecisionForm({"note": "No source."})
        )

    @rule(i=st.integers(min_value=0, max_value=52), weight=st.integers(min_value=1, max_value=3))
    def edit_a_story(self, i, weight):
        story = Story.objects.filter(arena=self.arena).order_by("position")[i]
        if story_update(story=story, changes={"weight": weight}):
            self.structure[(Story, story.pk, "weight")] = weight

    @rule(i=st.integers(min_value=0, max_value=5), tier=st.sampled_from(["Leader", "Niche"]))
    def edit_a_product(self, i, tier):
        product = Product.objects.filter(arena=self.arena).order_by("position")[i]
        if product_update(product=product, changes={"tier": tier}):
            self.structure[(Product, product.pk, "tier")] = tier

    @rule(i=st.integers(min_value=0, max_value=20), words=st.text(alphabet="abc xyz", max_size=20))
    def edit_a_category(self, i, words):
        categories = list(Category.objects.filter(arena=self.arena).order_by("position"))
        category = categories[i % len(categories)]
        category.blurb = f"Editor: {words}"
        structure_save(category, changed=["blurb"])
        self.structure[(Category, category.pk, "blurb")] = category.blurb

    @rule(words=st.text(alphabet="abc xyz", min_size=1, max_size=20))
    def edit_a_persona(self, words):
        persona = Persona.objects.get(slug="backend-developer")
        persona.label = f"Backend {words}"
        structure_save(persona, changed=["label"])
        self.structure[(Persona, persona.pk, "label")] = persona.label

    @rule(n=st.integers(min_value=1, max_value=1000))
    def add_an_adjacent_arena(self, n):
        name = f"Neighbours {n}"
        if AdjacentArena.objects.filter(arena=self.arena, name=name).exists():
            return
        adjacent = AdjacentArena(
            arena=self.arena, name=name, product_count=n, leader="X", shares="", position=900 + n
        )
        structure_save(adjacent, changed=[])
        self.structure[(AdjacentArena, adjacent.pk, "name")] = name

    @rule()
    def import_the_bundled_pages(self):
        arena_import(record=self.record)

    # ------------------------------------------------------------ invariants

    @invariant()
    def nothing_moderated_is_lost(self):
        for pk, expected in self.moderated.items():
            assert parts(Cell.objects.get(pk=pk)) == expected, pk

    @invariant()
    def no_structure_edit_is_lost(self):
        for (model, pk, name), expected in self.structure.items():
            row = model._base_manager.filter(pk=pk).first()
            assert row is not None and getattr(row, name) == expected, (model, pk, name)

    @invariant()
    def every_change_record_is_kept(self):
        now = set(CellChange.objects.values_list("pk", flat=True))
        assert self.records <= now
        self.records = now

    @invariant()
    def no_page_answers_500(self):
        cell = self.cells[len(self.records) % len(self.cells)]
        for url in (
            "/",
            f"/arenas/{SEED_SLUG}/",
            f"/cells/{cell.pk}/",
            "/api/arenas/",
            f"/api/arenas/{SEED_SLUG}/matrix/",
            "/sitemap.xml",
            f"/arenas/{SEED_SLUG}/sitemap.xml",
            "/llms.txt",
            "/changes/",
        ):
            status = self.web.get(url).status_code
            assert status < 500, (url, status)

    @invariant()
    def the_version_moves_with_the_export_and_it_round_trips(self):
        exported = export_bytes(self.folder, "now.json")
        version = self._version()
        if exported != self.seen_export:
            assert version != self.seen_version, "the export changed under the same version"
        call_command("import_arena_json", str(self.folder / "now.json"), stdout=io.StringIO())
        again = export_bytes(self.folder, "again.json")
        assert again == exported
        self.seen_export, self.seen_version = again, self._version()


@pytest.mark.django_db
def test_the_record_holds_under_any_interleaving(seeded_arena, moderator, settings):
    settings.FLAG_RATE = "100000/hour"
    record = read_arena(seed_paths())
    run_state_machine_as_test(
        lambda: RecordMachine(moderator, record),
        settings=hsettings(
            max_examples=EXAMPLES,
            stateful_step_count=STEPS,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
