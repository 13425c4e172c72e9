"""The arena page read by a first-time visitor: ties shown as shared ranks with their tie-break,
the "vs" links, every term defined where it appears, persona winners with their weight of
evidence, and a matrix that can be sorted by one product's verdicts and skipped."""

from __future__ import annotations

import re
from html import unescape

import pytest

from arena.scoring.tally import verdict_strength
from tests.web.pages.test_pages import ARENA, get, squeeze, text_of

pytestmark = pytest.mark.django_db


def rows_of(html: str) -> list[str]:
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return body.split("<tr>")[1:]


def test_ties_share_a_rank_and_say_how_they_were_ordered(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    ranks = [
        squeeze(unescape(re.sub(r"<[^>]+>", "", r.split("</td>", 1)[0])))
        for r in rows_of(html.split('class="leaderboard"', 1)[1])
    ]
    tied = [r for r in ranks if r.strip().startswith("=")]
    assert tied, ranks  # the seed arena has two products at 57/100
    # the rank cell also gives the ranks the product could take: "=2 (could be 1–5)"
    rank = tied[0].strip().removeprefix("=").removeprefix("tied at ").split("(")[0].strip()
    text = text_of(get(client, ARENA))
    assert re.search(
        rf"={rank}: \w[\w.]* and \w[\w.]* tie on PA Score; listed by verified share", text
    )
    assert "tied at " in html  # what a screen reader says instead of "="


def test_vs_links_follow_the_current_ranking(client, seeded_arena):
    for rank in ("pa", "integrity", "verified"):
        html = get(client, f"{ARENA}?rank={rank}").content.decode()
        names = re.findall(r'class="pname" href="[^"]+/products/([\w-]+)/"', html)
        vs = dict(re.findall(r'href="[^"]+/vs/([\w-]+)-vs-([\w-]+)/"', html))
        for i, product in enumerate(names):
            rival = names.index(vs[product])
            # the nearest product in this order that is not Temporal or DBOS (nothing published)
            candidates = [
                j for j, p in enumerate(names) if j != i and p not in ("temporal", "dbos")
            ]
            assert abs(rival - i) == min(abs(j - i) for j in candidates), (rank, product)


def test_every_column_and_letter_is_defined_on_the_page(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    for term in ("pa", "persona", "verified", "integrity", "confidence"):
        assert f'aria-describedby="term-{term}"' in html
        assert f'<dt id="term-{term}">' in html
    text = text_of(get(client, ARENA))
    assert "Not a rating of the vendor's honesty" in text
    assert (
        "Proof: T probed (tested) · U community (users) · C claimed · D contradicted (disproved)"
        " · G auth-gated (gated)"
    ) in text
    assert "user type (persona) is the kind of user a story is written for" in text
    assert "backend-developer (backend developer)" in text


def test_persona_winners_resting_on_few_stories_are_flagged(client, seeded_arena):
    text = text_of(get(client, ARENA))
    agent = text.split("Best for agent-builder", 1)[1].split("See these stories", 1)[0]
    assert "2 agent-builder stories scored" in agent
    assert "Only 2 stories decide this: a hint, not a verdict." in agent
    backend = text.split("Best for backend-developer", 1)[1].split("See these stories", 1)[0]
    assert "decide this" not in backend  # 13 stories


def story_order(html: str) -> list[str]:
    return re.findall(r'<th scope="row" class="story-col"><a href="[^"]+/stories/(\d+)/"', html)


def test_stories_sort_by_one_products_verdicts_within_each_sub_group(client, seeded_arena):
    from stories.models import Cell

    plain = story_order(get(client, ARENA).content.decode())
    html = get(client, f"{ARENA}?sort=inngest").content.decode()
    ordered = story_order(html)
    assert sorted(ordered) == sorted(plain) and ordered != plain
    assert '<th scope="col" class="sorted" aria-sort="descending"><a href="' in html
    assert re.search(r'aria-sort="descending"><a href="[^"]+/products/inngest/">Inngest</a>', html)
    assert '<option value="inngest" selected>Inngest’s verdicts</option>' in html
    cells = {
        str(c.story_id): verdict_strength(c.verdict, c.quality)
        for c in Cell.objects.filter(product__slug="inngest", story__arena__slug=seeded_arena.slug)
    }
    groups = {}
    from stories.models import Story

    for story in Story.objects.filter(arena=seeded_arena):
        groups[str(story.pk)] = (story.category_id, story.subgroup_id)
    for a, b in zip(ordered, ordered[1:], strict=False):
        if groups[a] == groups[b]:
            assert cells[a] >= cells[b]  # strongest verdict first within a sub-group


def test_sorting_by_a_product_not_shown_adds_its_column(client, big_arena):
    html = get(client, "/arenas/big/").content.decode()
    heads = re.findall(r'<th scope="col"[^>]*><a href="/arenas/big/products/([\w-]+)/"', html)
    hidden = next(f"product-{i:03}" for i in range(1, 31) if f"product-{i:03}" not in heads)
    html = get(client, f"/arenas/big/?sort={hidden}").content.decode()
    heads = re.findall(r'<th scope="col"[^>]*><a href="/arenas/big/products/([\w-]+)/"', html)
    assert heads[0] == hidden and len(set(heads)) == 9
    # an unknown product orders nothing
    assert story_order(get(client, "/arenas/big/?sort=nope").content.decode()) == story_order(
        get(client, "/arenas/big/").content.decode()
    )


def test_the_matrix_can_be_skipped_and_typing_replaces_the_history_entry(client, big_arena):
    html = get(client, "/arenas/big/").content.decode()
    skip = html.index('href="#legend">Skip the story matrix</a>')
    assert skip < html.index('<table class="matrix story-matrix">') and 'id="legend"' in html
    field = re.search(r'<input type="search" id="f-q"[^>]*>', html, re.S).group(0)
    assert 'hx-replace-url="true"' in field
    form = re.search(r'<form id="matrix-filters"[^>]*>', html, re.S).group(0)
    assert 'hx-disinherit="*"' in form  # (else the field would inherit the form's hx-push-url)
    assert "from:#f-q" not in form  # the form itself pushes only on change and submit
    # every loaded category says how many stories it holds; collapsed ones too
    assert '<span class="cat-count">50 stories</span>' in html
    assert html.count("Show 50 stories") == 5


def test_a_category_folds_and_opens_again_with_or_without_javascript(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    hide = re.search(r'<a class="cat-fold" href="([^"]+)"[^>]*hx-target="#mx-cat-(\d+)"', html)
    url, pk = unescape(hide.group(1)), hide.group(2)
    assert url.endswith("?fold=agent-workloads#matrix-section")
    # without JavaScript: the page with that category folded, its link opens it again
    folded = get(client, url.split("#")[0]).content.decode()
    body = folded.split(f'<tbody id="mx-cat-{pk}"', 1)[1].split("</tbody>", 1)[0]
    assert body.startswith(' class="collapsed"') and "Show 3 stories" in body
    assert 'th scope="row"' not in body
    show = unescape(re.search(r'class="cat-load" href="([^"]+)"', body).group(1))
    assert show == ARENA + "#matrix-section"
    # other categories fold on top of it (their links keep the first fold)
    assert "?fold=agent-workloads&amp;fold=agenticness#matrix-section" in folded
    # with htmx: the "Hide" link's answer holds the folded heading (``hx-select`` picks it), the
    # "Show" link's the rows; a category picked is never folded
    hx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": f"mx-cat-{pk}"}
    part = get(client, ARENA + "?fold=agent-workloads", **hx).content.decode()
    assert f'<tbody id="mx-cat-{pk}" class="collapsed">' in part and "<html" not in part
    rows = get(client, ARENA + "?fold=agent-workloads&category=agent-workloads", **hx)
    assert rows.content.decode().count('<th scope="row"') == 3


@pytest.mark.parametrize("fold", ["%00", "a" * 5000, ",,,", "<script>", "agent-workloads," * 300])
def test_odd_fold_values_are_ignored_or_applied_never_an_error(client, seeded_arena, fold):
    response = get(client, f"{ARENA}?fold={fold}")
    assert "<script>" not in response.content.decode().split("<main", 1)[1].split("matrix", 1)[0]


@pytest.mark.parametrize("rewrite", [False, True])
def test_the_head_to_head_says_how_a_rationale_stands_to_its_correction(
    client, seeded_arena, moderator, django_capture_on_commit_callbacks, rewrite
):
    from flags.forms import DecisionForm, FlagForm
    from flags.services import flag_submit, review_item_uphold
    from stories.models import Cell
    from web.http.clients import client_hash

    cell = Cell.objects.get(
        story__text__startswith="I run LLM agent loops", product__slug="hatchet"
    )
    assert cell.detail_published and cell.rationale
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": "wrong_quality",
                "explanation": "The docs show it needs a plug-in for tool calls, so less than this.",
                "proposed_verdict": "partial",
                "proposed_quality": 4,
            }
        ),
        client=client_hash("10.1.2.3"),
    )
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm(
                {
                    "note": "Checked the docs.",
                    "rationale": "Partial: tool calls need a plug-in." if rewrite else "",
                }
            ),
        )
    url = f"{ARENA}vs/inngest-vs-hatchet/?open=all"
    text = text_of(get(client, url))
    expected = "Rewritten with the correction of" if rewrite else "Written before the correction of"
    assert expected in text
    assert ("Partial: tool calls need a plug-in." in text) == rewrite


def test_a_long_head_to_head_sends_its_rounds_cards_on_demand(
    client, big_arena, django_assert_max_num_queries
):
    url = "/arenas/big/vs/product-001-vs-product-002/"
    html = get(client, url).content.decode()
    assert 'class="cell-card"' not in html
    first = re.search(r'hx-get="[^"]+\?open=(\d+)" hx-trigger="toggle once"', html).group(1)
    hx = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": f"why-{first}"}
    # (one more than the rounds need: the pair's stored scores, read with the comparison)
    with django_assert_max_num_queries(8):
        cards = get(client, f"{url}?open={first}", **hx).content.decode()
    assert cards.count('class="cell-card"') == 2 and "<html" not in cards
    assert 'id="cell-' in cards
    # without htmx, the page with that round open (and only that one)
    page = get(client, f"{url}?open={first}").content.decode()
    assert page.count('class="cell-card"') == 2 and page.count('<details class="why" open>') == 1
    everything = get(client, f"{url}?open=all").content.decode()
    assert everything.count('class="cell-card"') == 2 * everything.count('<tr id="story-')
    # a round of another pair, or no round at all: 404 for the fragment, the plain page otherwise
    get(client, f"{url}?open=1", status=404, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="why-1")
    for odd in ("-1", "٣", "9" * 40, "%00", "al"):
        assert 'class="cell-card"' not in get(client, f"{url}?open={odd}").content.decode()


def test_a_whole_arenas_head_to_head_sends_its_cards_on_demand_and_links_to_them(
    client, seeded_arena
):
    # the bundled arena's 53 stories: the verdict rows are in the page, the cards are not (a
    # phone would spend its first seconds laying them out); a visitor without script reaches
    # each round's cards by its link, and every card through "Expand all"
    url = f"{ARENA}vs/inngest-vs-hatchet/"
    html = get(client, url).content.decode()
    rounds = re.findall(r'<tr id="story-(\d+)"', html)
    assert len(rounds) > 40 and 'class="cell-card"' not in html
    assert html.count('hx-trigger="toggle once"') == len(rounds)
    first = rounds[0]
    assert f'<a href="{url}?open={first}#story-{first}">' in html
    page = get(client, f"{url}?open={first}").content.decode()
    assert page.count('class="cell-card"') == 2 and page.count('<details class="why" open>') == 1
    assert f'<a href="{url}?open=all">Expand all</a>' in html
    everything = get(client, f"{url}?open=all").content.decode()
    assert everything.count('class="cell-card"') == 2 * len(rounds)
    assert "toggle once" not in everything


def test_a_whole_arenas_head_to_head_folds_its_categories_but_the_first(client, seeded_arena):
    # every round is in the page, under its category's heading and tally; only the first
    # category (and the one holding a round opened by its link) is unfolded
    url = f"{ARENA}vs/inngest-vs-hatchet/"
    html = get(client, url).content.decode()
    folds = re.findall(r'<details class="cat-fold"( open)?><summary class="cat-head"><h2 ', html)
    assert len(folds) == html.count('<section class="h2h-category"') > 2
    assert folds[0] == " open" and set(folds[1:]) == {""}
    last = re.findall(r'<tr id="story-(\d+)"', html)[-1]
    page = get(client, f"{url}?open={last}").content.decode()
    opened = re.findall(r'<details class="cat-fold"( open)?>', page)
    assert opened[0] == opened[-1] == " open" and opened.count(" open") == 2
    # the expanded view folds nothing
    assert "cat-fold" not in get(client, f"{url}?open=all").content.decode()
