"""The arena page's lists written by one tag each (leaderboard rows, persona cards, filter
options, products shown, adjacent arenas, legend): what they show, and hostile names escaped."""

from __future__ import annotations

import re
from datetime import date
from types import SimpleNamespace as NS

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from arena.selectors.leaderboard import Leaderboard
from tests.factories import CellFactory, StoryFactory

EVIL = "<script>alert('x')</script> & \"Co\""
EVIL_HTML = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;Co&quot;"


def product(pk, name=EVIL, slug="evil", **kw):
    fields = dict(tier="", stars=None, stars_growth=None, npm_weekly=None, pypi_weekly=None)
    return NS(pk=pk, name=name, slug=slug, **{**fields, **kw})


def score_row(position, p, vs=None, **kw):
    fields = dict(
        pa_score=71,
        pa_low=None,
        pa_high=None,
        persona_scores={"ops": 60},
        category_scores={EVIL: 40},
        verified=3,
        with_evidence=5,
        disputed=0,
        integrity=90,
        confidence="B",
        range_group=None,
        stale_cells=0,
        cells=0,
    )
    return NS(position=position, product=p, product_id=p.pk, vs=vs, tied=False, **{**fields, **kw})


def tight(html: str) -> str:
    """The template's output without the layout's whitespace between tags."""
    return re.sub(r">\s+<", "><", " ".join(html.split()))


def leaderboard_rows(board, arena):
    """The rows as the arena page's leaderboard draws them."""
    context = {"board": board, "arena": NS(slug=arena), "open_disputes": {}}
    return tight(render_to_string("arena/detail.html#leaderboard_rows", context))


def leaderboard(board):
    """The arena page's leaderboard region."""
    context = {"board": board, "arena": NS(slug="arena", story_count=1), "open_disputes": {}}
    return tight(render_to_string("arena/detail.html#leaderboard", context))


def persona_cards(persona_results, arena, board=None):
    context = {"persona_results": persona_results, "arena": NS(slug=arena), "board": board}
    return tight(render_to_string("arena/detail.html#persona_cards", context))


def adjacent_cards(adjacent):
    return tight(render_to_string("arena/detail.html#adjacent_cards", {"adjacent": adjacent}))


def rank_options(board):
    return render_to_string("arena/detail.html#rank_options", {"board": board})


def board(key="pa", rows=()):
    return Leaderboard(key, "PA Score", list(rows), ["ops"], [EVIL], [])


def test_leaderboard_rows_show_each_figure_with_the_ranked_column_marked():
    vs = product(2, name="Other", slug="other")
    p = product(1, tier=EVIL, stars=143400, npm_weekly=1200, pypi_weekly=None)
    html = leaderboard_rows(board(rows=[score_row(1, p, vs=vs, disputed=2)]), "arena")
    assert "<script>" not in html and html.count(EVIL_HTML) == 3  # name, tier, the "vs" link's name
    assert f'href="{reverse("product-detail", args=["arena", "evil"])}"' in html
    assert f'href="{reverse("head-to-head", args=["arena", "evil", "other"])}"' in html
    assert '<td class="num ranked">71/100</td><td class="num">60/100</td>' in html
    assert '<span title="GitHub stars">★ 143.4k</span>' in html and "pypi" not in html
    assert '3/5 verified</span><span class="nw">· 2 disputed</span>' in html
    assert 'title="evidence confidence B">B</span>' in html


def test_leaderboard_rows_ranked_by_a_category_show_its_column():
    rows = [score_row(1, product(1), pa_score=None, persona_scores={})]
    html = leaderboard_rows(board(key=f"category:{EVIL}", rows=rows), "arena")
    assert '<td class="num">—</td><td class="num">—</td><td class="num ranked">40/100</td>' in html


def test_persona_heads_mark_the_ranked_persona_only():
    b = Leaderboard("persona:ops", "ops", [score_row(1, product(1))], ["dev", "ops"], [], [])
    html = leaderboard(b)
    assert html.count('aria-describedby="term-persona"') == 2
    assert '<span class="col-kind">persona</span> dev</th>' in html
    assert (
        'aria-describedby="term-persona" aria-sort="descending"><span class="col-kind">'
        "persona</span> ops</th>" in html
    )
    assert html.count('aria-sort="descending"') == 1


def test_tie_notes_name_each_group_of_tied_rows():
    def tied(position, name):
        row = score_row(position, product(position, name=name), decided_by="verified share")
        row.tied = True
        return row

    rows = [tied(2, "A"), tied(2, "B & co"), score_row(4, product(4))]
    html = leaderboard(Leaderboard("pa", "PA <Score>", rows, [], [], []))
    assert (
        "<li>=2: A and B &amp; co tie on PA &lt;Score&gt;; listed by verified share.</li>" in html
    )
    assert html.count("<li>=") == 1


def test_options_escape_values_and_labels_and_select_the_chosen_one():
    options = [("Overall", [("pa", "PA Score")]), (EVIL, [(EVIL, EVIL)])]
    html = tight(rank_options(Leaderboard(EVIL, "", [], [], [], options)))
    assert f'<optgroup label="{EVIL_HTML}"><option value="{EVIL_HTML}" selected>' in html
    assert '<option value="pa">PA Score</option>' in html and "<script>" not in html


@pytest.fixture
def evil_arena(db):
    """An arena whose category and first product carry a hostile name, one cell each."""
    story = StoryFactory(category__name=EVIL)
    CellFactory(story=story, product__name=EVIL, product__slug="evil")
    CellFactory(story=story, product__name="Two", product__slug="two", partial=True)
    return story.arena


def test_matrix_filters_escape_names_and_select_the_chosen_ones(client, evil_arena):
    url = reverse("arena-detail", args=[evil_arena.slug])
    html = client.get(url, {"verdict": "partial", "sort": "two", "show": "two"}).content.decode()
    html = " ".join(html.split())
    assert "<script>alert" not in html
    assert f'">{EVIL_HTML}</option>' in html
    assert '<option value="partial" selected>~ partial</option>' in html
    assert '<option value="n/a">n/a</option>' in html
    assert '<option value="">Matrix order</option>' in html
    assert '<option value="two" selected>Two’s verdicts</option>' in html
    assert f'value="evil" > {EVIL_HTML}</label>' in html
    assert 'value="two" checked> Two</label>' in html


def test_persona_cards_link_winner_runner_up_and_stories():
    winner, runner_up = product(1), product(2, name="B & B", slug="b")
    result = NS(
        persona=NS(slug=EVIL),
        winner=winner,
        winner_score=80,
        runner_up=runner_up,
        runner_up_score=None,
        story_count=1,
    )
    html = persona_cards([result], "arena")
    assert "<script>" not in html and f"<h3>Best for {EVIL_HTML}</h3>" in html
    assert '<span class="big-score">80/100</span>' in html and "B &amp; B</a> (—)" in html
    assert f"1 {EVIL_HTML} story scored" in html
    assert "?persona=%3Cscript%3Ealert%28%27x%27%29%3C/script%3E%20%26%20%22Co%22#matrix" in html
    result.winner, result.runner_up, result.story_count = None, None, 2
    html = persona_cards([result], "arena")
    assert '<p class="winner">No product scored</p>' in html and "Runner-up" not in html
    assert "stories scored" in html
    assert persona_cards([], "arena") == '<li class="card">No persona results stored yet.</li>'


def test_adjacent_cards_link_arenas_on_this_site():
    here = NS(name=EVIL, slug="here", product_count=4, leader=EVIL, shares=EVIL)
    away = NS(name="Away", slug=None, product_count=2, leader="X", shares="")
    html = adjacent_cards([here, away])
    assert "<script>" not in html and html.count(EVIL_HTML) == 3
    assert f'<a href="{reverse("arena-detail", args=["here"])}">{EVIL_HTML}</a>' in html
    assert "<h3> Away <span" in html and html.count("(no page yet)") == 1
    assert html.count("Not on this site yet") == 1
    assert f'<a href="{reverse("search")}?q=Away">search for it</a>' in html
    assert f'<a href="{reverse("home")}#arenas-h">see the arenas we have</a>' in html


def test_legend_lists_verdicts_proofs_and_links_the_guide(client, db):
    html = client.get(reverse("methodology")).content.decode()
    html = html[html.index('<section id="legend"') :]
    assert "doesn&#x27;t apply" in html and "<div><dt>8/10</dt><dd>quality of the cell" in html
    assert f'<a href="{reverse("methodology")}">full guide</a>' in html
    assert '<abbr class="proof" title="probed">' in html


def _sections(cmp, open_all=False):
    """The head-to-head's tables as its template draws them."""
    context = {"cmp": cmp, "arena": NS(slug="arena"), "stories": "/arenas/arena/stories/"}
    context["open_all"] = open_all
    html = "".join(
        render_to_string("arena/head_to_head.html#section", {**context, "block": block})
        for block in cmp.blocks
    )
    return " ".join(html.split())


def test_head_to_head_rounds_write_every_round_of_a_group_escaped():
    from arena.selectors.matrix import CategoryBlock, SubGroupBlock

    a, b = product(1), product(2, name="Two", slug="two")

    def cell(pk, p):
        return NS(
            pk=pk,
            product=p,
            verdict="full",
            proof="probed",
            quality=8,
            rationale=EVIL,
            detail_published=True,
            backing="quotes",  # as Cell.objects.with_backing() reads it
            evidence=NS(all=lambda: [NS(source=EVIL, quote=EVIL)]),
            rationale_predates=None,
            rationale_rewritten_at=None,
            evidence_as_of=date.today(),
        )

    story = NS(pk=7, text=EVIL, weight=3, persona=NS(label=EVIL))
    rows = [
        NS(number=n, story=story, winner=w, cells=[cell(10 + n, a), cell(20 + n, b)])
        for n, w in ((1, a), (2, None))
    ]
    category = NS(pk=3, name="C", slug="c")
    block = CategoryBlock(category, [SubGroupBlock(None, rows)])
    cmp = NS(a=a, b=b, blocks=[block], tallies={}, differences_only=False, sources={})
    html = _sections(cmp)
    assert "<script>" not in html and html.count('<tr id="story-7" class="round') == 2
    assert f'<span aria-hidden="true">◀</span> <span class="wname">{EVIL_HTML}</span>' in html
    assert '<span aria-hidden="true">=</span> draw' in html
    assert f"<q>{EVIL_HTML}</q>" in html


def test_head_to_head_tables_write_categories_sub_groups_and_tallies_escaped():
    from arena.scoring.rounds import ManyStanding, ManySummary
    from arena.selectors.matrix import CategoryBlock, SubGroupBlock

    a, b = product(1), product(2, name="Two", slug="two")

    def cell(pk, p):
        return NS(
            pk=pk,
            product=p,
            verdict="full",
            proof="probed",
            quality=8,
            rationale="",
            detail_published=False,
            backing="none",
            evidence=NS(all=lambda: []),
            rationale_predates=None,
            rationale_rewritten_at=None,
            evidence_as_of=date.today(),
        )

    category = NS(pk=3, name=EVIL, slug="evil-cat")
    story = NS(pk=7, text="Story", weight=2, persona=NS(label="dev"))
    row = NS(number=1, story=story, winner=b, cells=[cell(11, a), cell(12, b)])
    block = CategoryBlock(category, [SubGroupBlock(NS(name=EVIL), [row])])
    standings = {1: ManyStanding(1, 0, 0, 0), 2: ManyStanding(2, 1, 0, 2)}
    tally = ManySummary(products=(1, 2), rounds=(), standings=standings, drawn=3)
    cmp = NS(a=a, b=b, blocks=[block], tallies={3: tally}, differences_only=False, sources={})
    html = _sections(cmp, open_all=True)
    assert "<script>" not in html
    assert f'<h2 id="h2h-cat-3">{EVIL_HTML}</h2>' in html
    assert f'<th scope="rowgroup" colspan="5">{EVIL_HTML}</th>' in html
    assert f'<th scope="col" class="h-a">{EVIL_HTML}</th>' in html
    assert f"{EVIL_HTML} 0 won</span> · 3 drawn · " in html and "weighted 0–2" in html
    assert '<span class="wname">Two</span><span class="visually-hidden"> wins</span>' in html
    # unpublished cells: unfolded, each a quiet line with its flag control, no proof link
    assert '<details class="why quiet" open>' in html and "proof-link" not in html
    assert html.count('<div class="cell-line"') == 2 and html.count("Flag this verdict") == 2
    jump = tight(render_to_string("arena/head_to_head.html#jump", {"cmp": cmp}))
    assert jump == f'<li><a href="#cat-evil-cat">{EVIL_HTML} <span class="n">(1)</span></a></li>'
