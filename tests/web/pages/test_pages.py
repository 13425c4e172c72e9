"""The public pages as a visitor sees them: the seed arena's texts and counts, htmx fragments,
filters and rank-by, 404s, and query counts that stay flat from 6 × 53 to 30 × 300."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.models import Arena
from core.text import arena_slugify
from products.models import Product
from stories.models import Cell, Story
from stories.services import cell_correct
from stories.values import CellValue, Proof, Verdict

pytestmark = pytest.mark.django_db

ARENA = "/arenas/durable-execution-engines/"
HX = {"HTTP_HX_REQUEST": "true"}


def text_of(response) -> str:
    """The page's visible text, roughly: tags dropped, entities decoded, whitespace collapsed."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def get(client, url, status=200, **headers):
    response = client.get(url, **headers)
    assert response.status_code == status, (url, response.status_code, response.content[:500])
    return response


def leaderboard_names(response) -> list[str]:
    html = response.content.decode()
    table = html[html.index('class="leaderboard"') :]
    table = table[: table.index("</table>")]
    return re.findall(r'class="pname" href="[^"]+">([^<]+)</a>', table)


def card(html: str, heading: str) -> str:
    """The text of the card whose heading is ``heading``."""
    start = html.index(f"<h3>{heading}</h3>")
    return squeeze(
        unescape(re.sub(r"<[^>]+>", " ", html[start : html.index("</li>", start)]))
    ).strip()


def shown(response) -> str:
    return re.search(r"(\d+/\d+) stories shown", text_of(response)).group(1)


# ------------------------------------------------------------------------- home


def test_home_lists_each_arena_with_counts_leader_and_update(client, seeded_arena):
    response = get(client, "/")
    text = text_of(response)
    assert "Durable Execution Engines" in text
    assert "6 products" in text and "53 user stories" in text
    # the first of the published ranking; not called a leader: the second's range reaches its
    assert "First Temporal (too close to call with DBOS)" in text and "Leader" not in text
    assert "2026-09-16" in text
    assert f'href="{ARENA}"' in response.content.decode()


# ------------------------------------------------------------------------- arena page


def test_arena_page_shows_the_seed_page_texts_and_counts(client, seeded_arena):
    response = get(client, ARENA)
    text = text_of(response)
    assert "Durable Execution Engines" in text
    assert "Temporal anchors the battle-tested end" in text  # the description
    assert (
        "53 user stories · 318 judged cells (12 of them not applicable) · updated 2026-09-16 · "
        "Evidence as of 2026-09-16" in text
    )
    assert "Scores computed" in text
    # leaderboard: verified counts as on the seed page, disputed only when there are some
    for line in (
        "15/41 verified",
        "27/41 verified",
        "20/42 verified · 1 disputed",
        "23/43 verified · 1 disputed",
        "11/36 verified",
        "12/39 verified · 1 disputed",
    ):
        assert line in text
    assert not re.search(r"15/41 verified · \d+ disputed", text)
    assert re.search(r"\d+/100 integrity", text)
    # "vs" links pair each product with its nearest rival whose verdicts' detail is published:
    # never Temporal or DBOS, whose 53 cells have none (the seed page paired everyone with them)
    assert "vs Temporal" not in text and "vs DBOS" not in text
    assert "Temporal free-tier vs " in text and "DBOS free-tier vs " in text
    assert "★ 23k ▲ 3.3k/yr npm 2M/wk pypi 8.8M/wk" in text
    assert "npm 539.2k/wk" in text and "pypi 529k/wk" in text
    html = response.content.decode()
    assert '<label for="rank-by">Rank by</label>' in html
    assert f'href="{ARENA}vs/temporal-vs-' in html and "-vs-temporal/" not in html
    # best by user type
    backend = card(html, "Best for backend-developer")
    assert re.match(
        r"Best for backend-developer Inngest \d+/100 Runner-up: Temporal \(\d+/100\)", backend
    )
    assert "13 backend-developer stories scored" in backend
    assert "2 agent-builder stories scored" in card(html, "Best for agent-builder")
    # matrix, legend, adjacent arenas
    assert "53/53 stories shown" in text
    assert "Agent workloads" in text and "Agent loops" in text
    assert "Agent workloads — stories about agent workloads in this arena" in text
    assert "clear evidence" in text and "vendor claim only" in text
    assert "A–D = evidence confidence" in text
    assert "Workflow Automation" in text and "6 products · leader: Windmill" in text
    assert "shares: Performance scale" in text


def test_matrix_cells_read_as_symbol_word_letter_and_quality_and_link_to_their_proof(
    client, seeded_arena
):
    html = get(client, ARENA).content.decode()
    story = Story.objects.get(text__startswith="I run LLM agent loops")
    temporal = Cell.objects.get(story=story, product__slug="temporal")
    hatchet = Cell.objects.get(story=story, product__slug="hatchet")
    # each ends with its compact mark of what backs it, then for screen readers the product and
    # all of it in words
    backing = dict(Cell.objects.with_backing().values_list("pk", "backing"))
    marks = {"quotes": "❝", "rationale": "¶", "none": "∅"}
    words = {"quotes": "quotes with sources", "rationale": "a rationale only"}
    words["none"] = "no published evidence"
    link = rf'<a href="/cells/{temporal.pk}/">(.*?)</a>'
    assert squeeze(re.sub(r"<[^>]+>", "", re.search(link, html).group(1))) == (
        f"✓ full U 9/10 {marks[backing[temporal.pk]]}: Temporal, full, community, 9/10,"
        f" {words[backing[temporal.pk]]}"
    )
    assert backing[temporal.pk] == "none"  # (the leader's cells publish no detail)
    link = rf'<a href="/cells/{hatchet.pk}/">(.*?)</a>'
    assert squeeze(re.sub(r"<[^>]+>", "", re.search(link, html).group(1))) == (
        f"✓ full C 7/10 {marks[backing[hatchet.pk]]}: Hatchet, full, claimed, 7/10,"
        f" {words[backing[hatchet.pk]]}"
    )
    text = text_of(get(client, ARENA))
    assert "— none 0/10" in text and "! disputed D 4/10" in text and "~ partial C 6/10" in text
    assert " n/a " in text
    # 53 stories × 6 products, each a link to its cell's proof page
    assert (
        len(re.findall(r'<td class="v-[a-z]+" data-p="[^"]+"><a href="/cells/\d+/">', html)) == 318
    )


def test_rank_by_reorders_the_stored_leaderboard(client, seeded_arena):
    default = leaderboard_names(get(client, ARENA))
    assert default[0] == "Temporal" and len(default) == 6
    by_backend = leaderboard_names(get(client, ARENA + "?rank=persona:backend-developer"))
    assert by_backend[:2] == ["Inngest", "Temporal"]  # as "Best for backend-developer"
    by_verified = leaderboard_names(get(client, ARENA + "?rank=verified"))
    assert by_verified[0] == "DBOS"  # 27/41
    by_category = get(client, ARENA + "?rank=category:Human in the loop")
    # 90, 90, 80, 80, 80, 12: ties go to the higher verified share (27/41 before 23/43, …)
    assert leaderboard_names(by_category) == [
        "DBOS",
        "Inngest",
        "Trigger.dev",
        "Temporal",
        "Restate",
        "Hatchet",
    ]
    assert "Ranked by Category: Human in the loop" in text_of(by_category)
    # an unknown key falls back to the PA Score, it does not fail
    assert leaderboard_names(get(client, ARENA + "?rank=bogus")) == default
    html = get(client, ARENA + "?rank=integrity").content.decode()
    assert '<option value="integrity" selected>' in html


def test_htmx_rank_by_gets_only_the_leaderboard_fragment(client, seeded_arena):
    response = get(client, ARENA + "?rank=verified", **HX, HTTP_HX_TARGET="leaderboard")
    html = response.content.decode()
    assert "<html" not in html and "<body" not in html
    assert 'class="leaderboard"' in html and "Ranked by" in html
    assert "stories shown" not in html and "Best for" not in html
    assert leaderboard_names(response)[0] == "DBOS"
    assert "HX-Request" in response["Vary"]
    assert "HX-Request" in get(client, ARENA)["Vary"]


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ("persona=backend-developer", "13/53"),
        ("persona=agent-builder", "2/53"),
        ("category=privacy-posture", "4/53"),
        ("verdict=disputed", "2/53"),
        ("verdict=n%2Fa", "5/53"),
        ("q=RETRIES", "2/53"),
        ("persona=backend-developer&q=workflow", None),
        ("q=no+such+story+anywhere", "0/53"),
        ("verdict=bogus", "53/53"),
    ],
)
def test_matrix_filters(client, seeded_arena, query, count):
    response = get(client, f"{ARENA}?{query}")
    if count is None:
        stories = Story.objects.filter(
            arena=seeded_arena, persona__slug="backend-developer", text__icontains="workflow"
        ).count()
        count = f"{stories}/53"
    assert shown(response) == count
    rows = re.findall(r'<th scope="row" class="story-col">', response.content.decode())
    assert len(rows) == int(count.split("/")[0])


def test_matrix_filters_keep_their_values_and_the_verdict_filter_means_any_product(
    client, seeded_arena
):
    response = get(client, ARENA + "?verdict=disputed&rank=verified")
    text = text_of(response)
    assert "Rely on versioned APIs" in text and "Read the product's source" in text
    html = response.content.decode()
    assert '<option value="disputed" selected>' in html
    assert '<option value="verified" selected>' in html
    # without JavaScript each form carries the other one's state
    assert '<input type="hidden" name="verdict" value="disputed">' in html
    assert '<input type="hidden" name="rank" value="verified">' in html


def test_htmx_filter_gets_only_the_matrix_fragment_with_its_count(client, seeded_arena):
    response = get(client, ARENA + "?persona=backend-developer", **HX, HTTP_HX_TARGET="matrix")
    html = response.content.decode()
    assert "<html" not in html and 'class="leaderboard"' not in html
    assert 'class="matrix story-matrix"' in html
    assert '<span id="matrix-count" hx-swap-oob="innerHTML">13/53 stories shown</span>' in html
    assert "HX-Request" in response["Vary"]
    # without HX-Target the filters decide which region is asked for
    assert 'class="matrix story-matrix"' in get(client, ARENA + "?q=retries", **HX).content.decode()


def test_htmx_history_restore_gets_the_whole_page(client, seeded_arena):
    response = get(client, ARENA + "?rank=verified", **HX, HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert b"<html" in response.content


def test_pending_scores_are_marked(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="partial").first()
    cell_correct(cell=cell, value=CellValue(Verdict.FULL, cell.proof, 9), note="re-probed")
    assert Arena.objects.get(pk=seeded_arena.pk).scores_pending
    assert "scores are being recomputed" in text_of(get(client, ARENA))
    product = f"{ARENA}products/{cell.product.slug}/"
    assert "scores are being recomputed" in text_of(get(client, product))


# ------------------------------------------------------------------------- head-to-head


def round_texts(html: str) -> list[str]:
    """The text of each round of a head-to-head's table (tags dropped), in page order."""
    rows = re.findall(r'<tr id="story-\d+" class="round [a-z-]+">.*?</tr>', html, flags=re.S)
    return [re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", row))).strip() for row in rows]


def round_of(html: str, story: str) -> str:
    return next(t for t in round_texts(html) if story in t)


def test_head_to_head_like_the_seed_page(client, seeded_arena):
    response = get(client, ARENA + "vs/inngest-vs-hatchet/")
    text = text_of(response)
    html = response.content.decode()
    assert "<title>Inngest vs Hatchet" in html
    assert "Inngest vs Hatchet" in text
    assert "agent builder I run LLM agent loops as durable workflows" in text
    # each round: its weight, both badges and the winner between them
    agent_loops = round_of(html, "I run LLM agent loops")
    assert "weight 3 ✓ full U 9/10 ◀ Inngest wins ✓ full C 7/10" in agent_loops
    assert "weight 2" in round_of(html, "Point an agent at llms.txt")
    assert "Hatchet wins ▶" in round_of(html, "Point an agent at llms.txt")
    assert any("weight 2" in t and "= draw" in t for t in round_texts(html))
    # the cards, under their round, with the proof's name in words (a whole arena's pair loads
    # them on demand: here every round unfolded)
    unfolded = get(client, ARENA + "vs/inngest-vs-hatchet/?open=all")
    cards, cards_text = unfolded.content.decode(), text_of(unfolded)
    loops_cards = round_of(cards, "I run LLM agent loops")
    assert "Inngest ✓ full community 9/10" in loops_cards
    assert "Hatchet ✓ full claimed 7/10" in loops_cards
    assert "Inngest has dedicated docs for durable agent loops" in loops_cards
    assert "[claimed-docs] “Every step, every tool call" in cards_text or (
        "[claimed-docs]" in cards_text and "Every step, every tool call" in cards_text
    )
    assert "[github]" in cards_text and "[community]" in cards_text
    assert "proof ↗" in cards_text
    assert "Flag this verdict" in cards
    assert "ai-native user" in text and "backend developer" in text
    # sub-group headings shown, each category with its tally and in the jump menu
    assert '<th scope="rowgroup" colspan="5">Agent access</th>' in html
    assert '<a href="#cat-agenticness">Agenticness <span class="n">(15)</span></a>' in html
    assert "Agenticness Inngest 6 won · 8 drawn · Hatchet 1 won · weighted 13–2" in text
    # every cell in its own element, with a proof link to its page
    for cell_id in re.findall(r'<article class="cell-card" id="cell-(\d+)"', cards):
        assert f'href="/cells/{cell_id}/"' in cards
    # summary agrees with the API's
    api = client.get("/api/arenas/durable-execution-engines/compare/inngest/hatchet/").json()
    won, drawn = api["summary"]["won"], api["summary"]["drawn"]
    assert f"Inngest {won['inngest']} rounds won" in text
    assert f"{drawn} drawn" in text
    assert f"Hatchet {won['hatchet']} rounds won" in text
    weighted = api["summary"]["weighted"]
    assert f"Inngest {weighted['inngest']} – Hatchet {weighted['hatchet']}" in text
    assert len(re.findall(r'class="round ', html)) == len(api["stories"])
    total = len(api["stories"])
    assert f"Showing {total} of {total} rounds" in text
    # folded (<details>) unless every round is asked for unfolded
    assert '<details class="why"' in html and '<details class="why" open>' not in html
    opened = get(client, ARENA + "vs/inngest-vs-hatchet/?open=all").content.decode()
    assert opened.count('<details class="why" open>') == total
    assert "Collapse all" in opened


def test_head_to_head_differences_only(client, seeded_arena):
    api = client.get("/api/arenas/durable-execution-engines/compare/inngest/hatchet/").json()
    total, drawn = len(api["stories"]), api["summary"]["drawn"]
    response = get(client, ARENA + "vs/inngest-vs-hatchet/?diff=1")
    html, text = response.content.decode(), text_of(response)
    assert len(re.findall(r'class="round (win-a|win-b)"', html)) == total - drawn
    assert 'class="round draw"' not in html
    assert f"Showing {total - drawn} of {total} rounds" in text
    assert f"differences only, the rounds one side wins ({drawn} drawn rounds hidden)" in text
    # the tallies still count every round
    assert f"{drawn} drawn" in text
    assert "Agenticness Inngest 6 won · 8 drawn · Hatchet 1 won · weighted 13–2" in text
    # the links keep the other half of the view; the pair picker keeps it too
    assert (
        'href="/arenas/durable-execution-engines/vs/inngest-vs-hatchet/?diff=1&amp;open=all"'
        in html
    )
    assert '<input type="hidden" name="diff" value="1">' in html
    response = get(client, ARENA + "vs/inngest-vs-hatchet/?a=dbos&b=restate&diff=1", status=302)
    assert response["Location"] == ARENA + "vs/dbos-vs-restate/?diff=1"
    # with htmx: the comparison alone, and the address to push keeps the view
    response = get(client, ARENA + "vs/inngest-vs-hatchet/?diff=1", **HX)
    assert "<html" not in response.content.decode()
    assert response["HX-Push-Url"] == ARENA + "vs/inngest-vs-hatchet/?diff=1"


def test_head_to_head_of_unpublished_cells_says_so(client, seeded_arena):
    response = get(client, ARENA + "vs/temporal-vs-dbos/?open=all")
    text, html = text_of(response), response.content.decode()
    assert "Temporal vs DBOS" in text
    assert "rationale not published" in text
    # one quiet line per cell: no card, no proof link, the flag control kept
    assert '<article class="cell-card"' not in html and "proof ↗" not in text
    assert 'class="proof-link' not in html
    assert html.count('<div class="cell-line"') == html.count("Flag this verdict") > 0


def test_pair_picker_redirects_without_js_and_swaps_with_htmx(client, seeded_arena):
    response = get(client, ARENA + "vs/inngest-vs-hatchet/?a=dbos&b=restate", status=302)
    assert response["Location"] == ARENA + "vs/dbos-vs-restate/"
    response = get(client, ARENA + "vs/inngest-vs-hatchet/?a=dbos&b=restate", **HX)
    html = response.content.decode()
    assert "<html" not in html and "<h1>DBOS vs Restate</h1>" in html
    assert "<title>DBOS vs Restate" in html
    assert response["HX-Push-Url"] == ARENA + "vs/dbos-vs-restate/"
    assert "HX-Request" in response["Vary"]
    same = get(client, ARENA + "vs/inngest-vs-hatchet/?a=dbos&b=dbos")
    assert "Pick two different products." in text_of(same)


# ------------------------------------------------------------------------- product, story, cell


def test_product_page(client, seeded_arena):
    response = get(client, ARENA + "products/inngest/")
    html = response.content.decode()
    text = text_of(response)
    assert "<title>Inngest in Durable Execution Engines" in html
    assert "<svg" in html and 'role="img"' in html and "<script" not in html.split("<main")[1]
    score = Product.objects.get(slug="inngest").score
    for name, value in score.category_scores.items():
        assert f"{name} {value}/100" in text  # in the chart's description
    assert "Scores by user type" in text
    assert f"backend-developer {score.persona_scores['backend-developer']}/100" in text
    assert "13 stories scored" in text
    assert "23/43 verified · 1 disputed" in text
    assert len(re.findall(r'<td class="v-[a-z]+" data-p="[^"]+"><a href="/cells/\d+/"', html)) == 53
    assert html.count("Flag this verdict") == 53
    assert f'href="{ARENA}vs/inngest-vs-temporal/"' in html


def test_story_page_shows_every_products_cell(client, seeded_arena):
    story = Story.objects.get(text__startswith="I run LLM agent loops")
    response = get(client, f"{ARENA}stories/{story.pk}/")
    html = response.content.decode()
    text = text_of(response)
    assert story.text in text and "agent builder" in text and "weight 3" in text
    for product in ("Temporal", "Inngest", "Trigger.dev", "Restate", "Hatchet", "DBOS"):
        assert f"{product} ✓ full" in text
    assert html.count("Flag this verdict") == 6
    # a card per published cell, one quiet line per unpublished one (Temporal's, DBOS's)
    cards = len(re.findall(r'<article class="cell-card" id="cell-\d+"', html))
    lines = len(re.findall(r'<div class="cell-line" id="cell-\d+"', html))
    assert cards + lines == 6 and lines == 2
    assert "Temporal ✓ full" in text and "rationale not published" in text


def test_cell_page_with_evidence_history_and_head_to_heads(client, seeded_arena):
    story = Story.objects.get(text__startswith="I run LLM agent loops")
    cell = Cell.objects.get(story=story, product__slug="inngest")
    response = get(client, f"/cells/{cell.pk}/")
    text = text_of(response)
    html = response.content.decode()
    assert "✓ full U 9/10" in text and "community (U)" in text
    assert "Inngest has dedicated docs for durable agent loops" in text
    assert "[claimed-docs]" in text
    assert "Verdict history" in text and "No change since the verdict was published." in text
    assert 'id="flag-panel"' in html  # the flags app's region
    # its head-to-heads: Inngest against each other product (none is n/a on this story)
    for other in ("temporal", "trigger-dev", "restate", "hatchet", "dbos"):
        assert f'href="{ARENA}vs/inngest-vs-{other}/#story-{story.pk}"' in html
    assert "Hatchet: ✓ full C 7/10 · round to Inngest" in text
    cell_correct(cell=cell, value=CellValue(Verdict.PARTIAL, Proof.CLAIMED, 6), note="Docs moved")
    text = text_of(get(client, f"/cells/{cell.pk}/"))
    assert "full community 9/10 → partial claimed 6/10" in text
    assert "Docs moved" in text and "direct edit" in text


def test_unpublished_cell_says_so(client, seeded_arena):
    cell = Cell.objects.filter(product__slug="temporal", verdict="full").first()
    text = text_of(get(client, f"/cells/{cell.pk}/"))
    assert "The rationale and evidence for this verdict are not published" in text


def test_na_cell_appears_in_no_head_to_head(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="n/a").first()
    text = text_of(get(client, f"/cells/{cell.pk}/"))
    assert "appears in no head-to-head" in text


# ------------------------------------------------------------------------- methodology, 404


def test_methodology_page_explains_the_rules_with_the_legend(client, db):
    text = text_of(get(client, "/methodology/"))
    for phrase in (
        "PA Score",
        "weight × quality",
        "verified",
        "Integrity",
        "B from 40%",
        "a partial 3/10 beats a disputed 4/10",
        "weighted tally",
        "Legend",
        "evidence disagrees",
    ):
        assert phrase in text


@pytest.mark.parametrize(
    "url",
    [
        "/arenas/no-such-arena/",
        ARENA + "products/no-such-product/",
        ARENA + "vs/inngest-vs-nobody/",
        ARENA + "vs/inngest-vs-inngest/",
        "/arenas/no-such-arena/vs/a-vs-b/",
        ARENA + "stories/999999/",
        "/cells/999999/",
    ],
)
def test_unknown_things_get_the_404_page(client, seeded_arena, url):
    response = get(client, url, status=404)
    assert "Page not found" in text_of(response)
    assert b"<title>" in response.content


def test_story_of_another_arena_is_404(client, seeded_arena, big_arena):
    story = Story.objects.filter(arena=big_arena).first()
    get(client, f"{ARENA}stories/{story.pk}/", status=404)


# ------------------------------------------------------------------------- every page


def page_urls(arena: Arena) -> list[str]:
    products = list(Product.objects.filter(arena=arena).order_by("position"))
    story = Story.objects.filter(arena=arena).order_by("position").first()
    cell = Cell.objects.filter(story=story).first()
    base = f"/arenas/{arena.slug}/"
    return [
        "/",
        base,
        f"{base}vs/{products[0].slug}-vs-{products[1].slug}/",
        f"{base}products/{products[0].slug}/",
        f"{base}stories/{story.pk}/",
        f"/cells/{cell.pk}/",
        "/methodology/",
        "/no/such/page/",
    ]


def test_every_page_has_title_description_viewport_skip_link_and_no_inline_script(
    client, seeded_arena
):
    for url in page_urls(seeded_arena):
        response = client.get(url)
        html = response.content.decode()
        assert re.search(r"<title>[^<]{5,}</title>", html), url
        assert re.search(r'<meta name="description" content="[^"]{20,}">', html), url
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
        assert 'class="skip-link" href="#main"' in html and 'id="main"' in html, url
        # cached and shared: nothing per visitor (the flag form brings its own token)
        assert "csrf" not in html.lower(), url
        assert 'href="/api/docs/"' in html and 'href="/methodology/"' in html
        for script in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in script, (url, script)  # CSP: no inline scripts
        assert "script-src" in response["Content-Security-Policy"]
        # every form control has a label
        for control_id in re.findall(r'<(?:select|input)[^>]* id="([^"]+)"', html):
            assert f'<label for="{control_id}"' in html, (url, control_id)


def test_htmx_is_served_from_static_files(client, db):
    html = get(client, "/").content.decode()
    assert re.search(r'<script src="/static/vendor/htmx.min.js"', html)


# ------------------------------------------------------------------------- query counts

# One bound per page, the same for 6 × 53 and 30 × 300: no query per row, cell or product. Each
# counts one more for the page cache's look-up of the arena's content version; the arena page and
# the head-to-head one more for the open disputes per product, the cell page two for its disputes.
# The head-to-head also reads its pair's stored scores (who leads), its close call's cells (what
# would settle it) and the sources its published detail cites: one query each. A leaderboard read
# with a visitor's weights, or without the arena's categories at hand (its htmx swap, the
# must-haves), reads the stored score parts too: one query.
QUERY_BOUNDS = {
    "home": 5,  # (how many arenas; the page's arenas, their counts, their products: the pickers)
    "arena": 12,
    "arena filtered": 12,
    "arena, stale evidence only": 12,
    "htmx matrix, stale evidence only": 6,
    "arena, products picked": 12,
    "htmx leaderboard": 6,
    "arena, your weights": 12,
    "htmx leaderboard, your weights": 6,
    "htmx weights panel": 6,
    "htmx matrix": 6,
    "htmx matrix, products picked": 6,
    "htmx category": 6,
    "htmx category folded": 6,
    "arena sorted": 12,
    "head-to-head": 11,
    "htmx pair picker": 11,
    "product": 9,
    "story": 6,  # (one of them: the sources the cells' published detail cites)
    "cell": 7,  # (one of them: the sources its published detail cites)
    "compare": 6,
    "htmx compare, differences only": 6,
    "must-haves": 7,
    "must-haves with weights": 7,
    "arena changes feed": 3,
    "product changes feed": 4,
    "product badge": 4,
    "disputes": 6,
    "disputes filtered": 7,
    "htmx disputes": 6,
    "disputes json": 6,
    "disputes feed": 5,
}


def query_pages(arena: Arena) -> dict[str, tuple[str, dict]]:
    products = list(Product.objects.filter(arena=arena).order_by("position"))
    a, b, c = products[0], products[-1], products[1]
    story = Story.objects.filter(arena=arena).order_by("position").first()
    cell = Cell.objects.filter(story=story, product=a).first()
    persona = story.persona.slug
    base = f"/arenas/{arena.slug}/"
    category = arena_slugify(story.category.name)
    weights = f"{category}:3,{persona}:0"  # a visitor's weights (?weights=)
    return {
        "home": ("/", {}),
        "arena": (base, {}),
        "arena filtered": (f"{base}?persona={persona}&verdict=full&q=a&rank=verified", {}),
        "arena, stale evidence only": (f"{base}?stale=1", {}),
        "htmx matrix, stale evidence only": (
            f"{base}?stale=1&persona={persona}",
            {**HX, "HTTP_HX_TARGET": "matrix"},
        ),
        "htmx leaderboard": (f"{base}?rank=integrity", {**HX, "HTTP_HX_TARGET": "leaderboard"}),
        "arena, your weights": (f"{base}?weights={weights}&persona={persona}", {}),
        "htmx leaderboard, your weights": (
            f"{base}?weights={weights}",
            {**HX, "HTTP_HX_TARGET": "leaderboard"},
        ),
        "htmx weights panel": (
            f"{base}?w-{category}=3&w-{persona}=0&persona={persona}",
            {**HX, "HTTP_HX_TARGET": "leaderboard"},
        ),
        "htmx matrix": (f"{base}?persona={persona}&q=e", {**HX, "HTTP_HX_TARGET": "matrix"}),
        "arena, products picked": (f"{base}?show={a.slug},{b.slug}&verdict=full", {}),
        "htmx matrix, products picked": (
            f"{base}?show={a.slug}&show={c.slug}&rank=verified",
            {**HX, "HTTP_HX_TARGET": "matrix"},
        ),
        "htmx category": (
            f"{base}?category={arena_slugify(story.category.name)}",
            {**HX, "HTTP_HX_TARGET": f"mx-cat-{story.category_id}"},
        ),
        "htmx category folded": (
            f"{base}?fold={arena_slugify(story.category.name)}&sort={c.slug}",
            {**HX, "HTTP_HX_TARGET": f"mx-cat-{story.category_id}"},
        ),
        "arena sorted": (f"{base}?sort={b.slug}&fold=x", {}),
        "head-to-head": (f"{base}vs/{a.slug}-vs-{b.slug}/", {}),
        "htmx pair picker": (f"{base}vs/{a.slug}-vs-{b.slug}/?a={c.slug}&b={a.slug}", HX),
        "product": (f"{base}products/{a.slug}/", {}),
        "story": (f"{base}stories/{story.pk}/", {}),
        "cell": (f"/cells/{cell.pk}/", {}),
        "compare": (f"{base}compare/?products={a.slug},{b.slug},{c.slug}", {}),
        "htmx compare, differences only": (
            f"{base}compare/?products={b.slug}&products={a.slug}&diff=1",
            HX,
        ),
        "must-haves": (f"{base}must-have/?must={story.pk}&need=self-hosted", {}),
        "must-haves with weights": (f"{base}must-have/?must={story.pk}&weights={weights}", {}),
        "arena changes feed": (f"{base}changes/feed/", {}),
        "product changes feed": (f"{base}products/{a.slug}/changes/feed/", {}),
        "product badge": (f"{base}products/{b.slug}/badge.svg", {}),
        "disputes": (f"{base}disputes/", {}),
        "disputes filtered": (f"{base}disputes/?product={a.slug}&story={story.pk}&state=open", {}),
        "htmx disputes": (f"{base}disputes/?state=decided&page=2", HX),
        "disputes json": (f"{base}disputes.json?product={b.slug}", {}),
        "disputes feed": (f"{base}disputes/feed/", {}),
    }


@pytest.mark.parametrize("page", sorted(QUERY_BOUNDS))
@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_query_count_is_bounded_whatever_the_arena_size(
    client, request, django_assert_max_num_queries, page, size
):
    arena = request.getfixturevalue(size)
    url, headers = query_pages(arena)[page]
    with django_assert_max_num_queries(QUERY_BOUNDS[page]):
        response = client.get(url, **headers)
    assert response.status_code == 200


def test_query_counts_are_flat_from_seed_to_big(client, seeded_arena, big_arena, settings):
    # the seed's evidence is 75 days old: at 30 days both arenas have stale stories to show
    settings.EVIDENCE_STALE_DAYS = 30
    counts = {}
    for arena in (seeded_arena, big_arena):
        for page, (url, headers) in query_pages(arena).items():
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url, **headers).status_code == 200
            counts[arena.slug, page] = len(queries)
    for page in QUERY_BOUNDS:
        # the big arena has no adjacent arenas to look up: at most as many queries as the seed
        assert counts["big", page] <= counts["durable-execution-engines", page], page


def matrix_columns(html: str) -> list[str]:
    """The product names heading the matrix's columns (of its first column-head row)."""
    table = html[html.index('<table class="matrix story-matrix">') :]
    head = table[table.index('<tr class="col-head">') :]
    return re.findall(
        r'<th scope="col"><a href="[^"]+">([^<]+)</a></th>', head[: head.index("</tr>")]
    )


def test_big_arena_shows_the_top_8_products_and_its_first_category(client, big_arena):
    response = get(client, "/arenas/big/")
    html = response.content.decode()
    assert "300/300 stories shown" in text_of(response)
    board = leaderboard_names(response)
    columns = matrix_columns(html)
    # the top 8 of the ranking, in rank order
    assert columns == board[:8]
    assert "Products shown: 8 of 30" in text_of(response)
    assert html.count('type="checkbox" form="matrix-filters" name="show"') == 30
    assert html.count(" checked>") == 8
    # the first category's 50 stories with their cells; the other five collapsed, with counts
    assert (
        len(re.findall(r'<td class="v-[a-z-]+" data-p="[^"]+"><a href="/cells/\d+/"', html)) == 400
    )
    collapsed = re.findall(
        r'<tbody id="mx-cat-(\d+)" class="collapsed">.*?<a class="cat-load" href="([^"]+)"'
        r' hx-get="([^"]+)" hx-target="#mx-cat-\1" hx-swap="outerHTML">Show 50 stories'
        r'<span class="visually-hidden"> of ([^<]+)</span>',
        html,
    )
    assert len(collapsed) == 5
    pk, link, hx_get, name = collapsed[0]
    assert link == hx_get + "#matrix-section" and hx_get.startswith("/arenas/big/?category=")
    # without JavaScript the link opens the arena filtered to that category
    page = get(client, unescape(link))
    assert (
        "50/300 stories shown" in text_of(page) and 'class="collapsed"' not in page.content.decode()
    )
    # with htmx, the category's rows alone, for its collapsed body
    fragment = get(client, unescape(hx_get), **HX, HTTP_HX_TARGET=f"mx-cat-{pk}").content.decode()
    assert fragment.startswith(f'<tbody id="mx-cat-{pk}">') and "<html" not in fragment
    assert f'role="heading" aria-level="3">{name}</span>' in fragment
    cells = re.findall(r'<td class="v-[a-z-]+" data-p="([^"]+)"><a href="/cells/\d+/"', fragment)
    assert len(cells) == 50 * 8 and cells[:8] == columns  # (the column heads are the page's)
    assert shown(get(client, "/arenas/big/?persona=ai-native")) == "75/300"


def test_the_products_shown_follow_the_ranking_and_the_visitors_pick(client, big_arena):
    by_verified = get(client, "/arenas/big/?rank=verified")
    top = leaderboard_names(by_verified)[:8]
    assert matrix_columns(by_verified.content.decode()) == top  # in rank order
    # a pick, as the form sends it or as a shared link has it, with filters and ranking kept
    products = list(Product.objects.filter(arena=big_arena).order_by("position"))
    a, b, c = products[3], products[0], products[20]
    for query in (
        f"show={a.slug}&show={b.slug}&show={c.slug}&show=no-such-product",
        f"show={a.slug},{b.slug},{c.slug}",
    ):
        response = get(client, f"/arenas/big/?{query}&persona=ai-native&rank=verified")
        html = response.content.decode()
        ranked = sorted((a, b, c), key=lambda p: leaderboard_names(response).index(p.name))
        assert matrix_columns(html) == [p.name for p in ranked]  # in rank order
        assert "Products shown: 3 of 30" in text_of(response)
        assert shown(response) == "75/300"
        picked = ",".join(p.slug for p in ranked)
        # carried by the links that load a category and by the forms without JavaScript
        assert f"show={picked.replace(',', '%2C')}" in html
        assert f'<input type="hidden" name="show" value="{picked}">' in html
        assert leaderboard_names(response)[:8] == top
    # the htmx matrix alone, with the pick
    fragment = get(client, f"/arenas/big/?show={a.slug}", **HX, HTTP_HX_TARGET="matrix")
    assert matrix_columns(fragment.content.decode()) == [a.name]
    # a pick of unknown products only is no pick: the default columns
    unknown = get(client, "/arenas/big/?show=nope,%00,../x")
    assert sorted(matrix_columns(unknown.content.decode())) == sorted(
        leaderboard_names(unknown)[:8]
    )


def test_small_arena_shows_every_product_and_every_category(client, seeded_arena):
    response = get(client, ARENA)
    html = response.content.decode()
    # every product, in the leaderboard's order
    assert matrix_columns(html) == leaderboard_names(response) == [
        "Temporal", "DBOS", "Inngest", "Trigger.dev", "Restate", "Hatchet"
    ]  # fmt: skip
    assert "Products shown: 6 of 6" in text_of(response)
    assert 'class="collapsed"' not in html and "cat-load" not in html
    picked = get(client, ARENA + "?show=dbos,temporal&verdict=disputed")
    assert matrix_columns(picked.content.decode()) == ["Temporal", "DBOS"]
