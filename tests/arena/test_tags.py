"""How the pages write a judgement: once, in the template tags, from ``CellValue``."""

from __future__ import annotations

from types import SimpleNamespace

from arena.templatetags.arena_tags import (
    legend_proofs,
    legend_verdicts,
    matrix_cells,
    verdict,
    verdict_label,
)
from stories.models import CellChange
from stories.values import CellValue, Proof, Verdict


def test_badge_reads_symbol_word_proof_letter_and_quality():
    html = verdict(CellValue(Verdict.PARTIAL, Proof.CLAIMED, 5))
    assert html == (
        '<span class="verdict v-partial"><span class="sym" aria-hidden="true">~</span> partial'
        '</span> <abbr class="proof" title="claimed">C</abbr> <span class="q">5/10</span>'
    )


def test_badge_with_words_names_the_proof_and_its_meaning():
    html = verdict(CellValue(Verdict.FULL, Proof.PROBED, 9), words=True)
    assert ' <span class="proof" title="tested by us">probed</span> ' in html


def test_badge_of_na_is_the_word_alone():
    assert verdict(CellValue(Verdict.NA)) == '<span class="verdict v-na">n/a</span>'


def test_a_recorded_change_reads_as_words_on_each_side():
    change = CellChange(
        old_verdict="full",
        old_proof="community",
        old_quality=9,
        new_verdict="n/a",
        new_proof=None,
        new_quality=None,
    )
    assert verdict_label(change.old_value) == (
        '<span class="verdict v-full">full community 9/10</span>'
    )
    assert verdict_label(change.new_value) == '<span class="verdict v-na">n/a</span>'


def test_matrix_cell_is_the_short_badge_linking_to_the_proof_page():
    cell = SimpleNamespace(
        pk=7,
        verdict="disputed",
        proof="contradicted",
        quality=4,
        product=SimpleNamespace(name="A&B"),
        product_id=3,  # as the matrix's MatrixCell has it
    )
    row = SimpleNamespace(cells=[cell])
    assert matrix_cells(row) == (
        '<td class="v-disputed"><a href="/cells/7/"><i aria-hidden="true">!</i> disputed D 4/10'
        "</a></td>"
    )
    assert 'aria-label="Flag A&amp;B"' in matrix_cells(row, flag_controls=True)
    # a product's name is escaped once and used for each of its cells
    twice = SimpleNamespace(cells=[cell, cell])
    assert matrix_cells(twice, flag_controls=True).count('aria-label="Flag A&amp;B"') == 2


def test_legend_marks_each_verdict_and_proof_as_the_badges_do():
    verdicts = dict(legend_verdicts())
    assert len(verdicts) == len(Verdict)
    assert (
        verdicts[verdict(CellValue(Verdict.NA))] == "question doesn't apply to this kind of product"
    )
    badge = verdict(CellValue(Verdict.FULL, Proof.CLAIMED, 8))
    assert next(mark for mark in verdicts if "v-full" in mark) in badge
    proofs = dict(legend_proofs())
    assert proofs['<abbr class="proof" title="claimed">C</abbr> claimed'] == "vendor claim only"
    assert '<abbr class="proof" title="claimed">C</abbr>' in badge
