"""How the pages write a judgement: once, in the template tags, from ``CellValue``."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

from django.template.loader import render_to_string

from stories.models import CellChange
from stories.values import CellValue, Proof, Verdict
from web.pages import cells
from web.pages.matrix import cells_html

verdict = cells.verdict


def verdict_label(value):
    return render_to_string("arena/_cell.html#label", {"v": value})


def cell_card(cell):
    html = render_to_string("arena/_cell.html#card", {"card": cells.card(cell)})
    return " ".join(html.split())


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
        product_id=3,  # as the matrix's CellLine has it
        evidence_as_of=date.today(),
    )
    row = SimpleNamespace(cells=[cell])
    assert cells_html(row.cells, False, {}) == (
        '<td class="v-disputed" data-p="A&amp;B"><a href="/cells/7/"><i aria-hidden="true">!</i>'
        ' disputed D 4/10<span class="visually-hidden">: A&amp;B, disputed, contradicted, 4/10'
        "</span></a></td>"
    )
    assert 'aria-label="Flag A&amp;B"' in cells_html(row.cells, True, {})
    # a product's name is escaped once and used for each of its cells
    twice = SimpleNamespace(cells=[cell, cell])
    assert cells_html(twice.cells, True, {}).count('aria-label="Flag A&amp;B"') == 2


def test_legend_marks_each_verdict_and_proof_as_the_badges_do():
    # the legend is written out: each verdict's and proof's mark as the badges draw it
    html = render_to_string("arena/_legend.html")
    assert html.count('<dt><span class="verdict v-') == len(Verdict)
    assert "<dd>question doesn&#x27;t apply to this kind of product</dd>" in html
    for v in Verdict:
        head = render_to_string("arena/_cell.html#head", {"v": CellValue(v)})
        assert f"<dt>{head}</dt>" in html
    for p in Proof:
        mark = f'<abbr class="proof" title="{p}">{cells.proof_mark(p)}</abbr>'
        assert f"<dt>{mark} {p}</dt>" in html and mark in verdict(CellValue(Verdict.FULL, p, 8))
    assert "<dd>vendor claim only</dd>" in html


def _card_cell(**fields):
    quote = SimpleNamespace(source="github", quote='says "yes" & more', url="", checked_on=None)
    base = {
        "pk": 5,
        "verdict": "full",
        "proof": "claimed",
        "quality": 8,
        "rationale": "Works <well>",
        "detail_published": True,
        "evidence": SimpleNamespace(all=lambda: [quote]),
        "product": SimpleNamespace(name="A&B"),
        "rationale_predates": None,
        "rationale_rewritten_at": None,
        "evidence_as_of": date.today(),
    }
    cell = SimpleNamespace(**{**base, **fields})
    cell.value = CellValue(cell.verdict, cell.proof, cell.quality)
    cell.backing = "quotes" if cell.detail_published else "none"
    return cell


def test_cell_card_shows_rationale_quotes_proof_link_and_flag_control_escaped():

    html = cell_card(_card_cell())
    assert html.lstrip().startswith(
        '<article class="cell-card" id="cell-5" aria-label="A&amp;B: full">'
    )
    assert (
        '<strong class="cell-name">A&amp;B</strong> '
        + verdict(CellValue(Verdict.FULL, Proof.CLAIMED, 8), words=True)
        in html
    )
    assert '<p class="rationale">Works &lt;well&gt;</p>' in html
    assert '<span class="source">[github]</span> <q>says &quot;yes&quot; &amp; more</q>' in html
    assert '<a class="proof-link" href="/cells/5/">proof <span aria-hidden="true">↗</span>' in html
    assert '<a class="flag-control" href="/cells/5/flag/"' in html and "hx-get" not in html
    assert 'aria-label="Flag this verdict: A&amp;B, full"' in html
    assert "flag-slot" not in html


def test_cell_card_says_how_the_rationale_stands_to_the_last_correction():
    from datetime import UTC, datetime

    day = datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert "correction" not in cell_card(_card_cell())
    before = cell_card(_card_cell(rationale_predates=day))
    assert "Written before the correction of 2026-11-30 — the verdict changed since." in before
    rewritten = cell_card(_card_cell(rationale_rewritten_at=day))
    assert "Rewritten with the correction of 2026-11-30." in rewritten


def test_cell_card_of_unpublished_or_unevidenced_cell():

    hidden = cell_card(_card_cell(detail_published=False))
    assert hidden.lstrip().startswith('<div class="cell-line" id="cell-5">')
    assert "rationale not published" in hidden and "Works" not in hidden and "github" not in hidden
    assert "proof-link" not in hidden and "Flag this verdict: A&amp;B, full" in hidden
    none = cell_card(_card_cell(verdict="none", proof=None, quality=0))
    assert '<a class="proof-link quiet" href="/cells/5/">details' in none


def test_collapsed_category_links_to_its_rows_with_the_query_kept():
    from arena.selectors.matrix import CategoryBlock, Matrix, MatrixFilters

    category = SimpleNamespace(pk=4, name="Ops & more", blurb="", slug="ops-more")
    blocks = [CategoryBlock(category, [], collapsed=True, stories=2)]
    matrix = Matrix(products=[], blocks=blocks, total=2, filters=MatrixFilters())
    query = {"q": "a b", "show": "x,y"}
    context = {"matrix": matrix, "matrix_query": query, "arena": SimpleNamespace(slug="big")}
    html = render_to_string("arena/_matrix.html#table", context)
    assert (
        '<tbody id="mx-cat-4" class="collapsed"><tr class="cat-row"><th colspan="1"'
        ' scope="colgroup" id="cat-4"><div class="sticky-left"><span class="row-heading" role="heading" aria-level="3">Ops &amp; more</span>'
        ' <a class="cat-load" href="/arenas/big/?q=a+b&amp;show=x%2Cy&amp;category=ops-more'
        '#matrix-section" hx-get="/arenas/big/?q=a+b&amp;show=x%2Cy&amp;category=ops-more"'
        ' hx-target="#mx-cat-4" hx-swap="outerHTML">Show 2 stories'
        '<span class="visually-hidden"> of Ops &amp; more</span></a></div></th></tr>\n</tbody>'
    ) in html
    assert '<tr><th scope="row"' not in html  # no row of a collapsed category
