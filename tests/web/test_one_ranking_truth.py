"""One ranking truth: for every pair of products of the bundled arena, every surface that says or
implies who is ahead (the leaderboard, best by user type, the head-to-head page, its Markdown and
its API, the comparison page and its API, the badges, the arena's Markdown and llms.txt) agrees
with ``pair_call`` on the stored PA Score ranges, including pairs too close to call and
pairs that are not."""

from __future__ import annotations

import itertools
import re
from html import unescape

import pytest

from arena.models import PersonaResult, ProductScore
from arena.scoring.certainty import Ranged, pair_call
from tests.web.pages.test_pages import text_of as _text_of

SEED = "durable-execution-engines"
ARENA = f"/arenas/{SEED}/"


def text_of(response) -> str:
    """The page's visible text, a tag's end not spaced from the punctuation after it."""
    return re.sub(r" ([:;,.)])", r"\1", _text_of(response))


def _ranged(score: ProductScore) -> Ranged:
    return Ranged(score.product_id, score.pa_score, score.pa_low, score.pa_high)


def _persona_ranged(score: ProductScore, persona: str) -> Ranged:
    rng = (score.persona_ranges or {}).get(persona)
    value = (score.persona_scores or {}).get(persona)
    if not rng:
        return Ranged(score.product_id, value, None, None)
    return Ranged(score.product_id, value, rng[0], rng[1])


@pytest.fixture
def board(seeded_arena, settings):
    """The stored scores in the published order, each with the ranks it could take stored as the
    rank engineer's recompute will (best: 1 + products whose low beats its high; worst: the
    number of products whose high reaches its low)."""
    settings.PAGE_CACHE = False
    scores = list(
        ProductScore.objects.filter(arena=seeded_arena).select_related("product").order_by("rank")
    )
    for s in scores:
        others = [o for o in scores if o.pk != s.pk]
        s.rank_best = 1 + sum(1 for o in others if o.pa_low > s.pa_high)
        s.rank_worst = len(scores) - sum(1 for o in others if s.pa_low > o.pa_high)
        s.save(update_fields=["rank_best", "rank_worst"])
    return scores


def _pairs(board):
    return list(itertools.combinations(board, 2))


def test_the_bundled_arena_has_pairs_of_both_kinds(board):
    calls = [pair_call(_ranged(a), _ranged(b)) for a, b in _pairs(board)]
    assert any(c.close for c in calls) and any(not c.close for c in calls)


@pytest.mark.django_db
def test_head_to_heads_say_what_pair_call_says(client, board):
    for a, b in _pairs(board):
        call = pair_call(_ranged(a), _ranged(b))
        names = {a.product_id: a.product.name, b.product_id: b.product.name}
        pa, pb = a.product.slug, b.product.slug
        page = text_of(client.get(f"{ARENA}vs/{pa}-vs-{pb}/"))
        md = client.get(f"{ARENA}vs/{pa}-vs-{pb}.md").content.decode()
        api = client.get(f"/api/arenas/{SEED}/compare/{pa}/{pb}/").json()
        many = client.get(f"/api/arenas/{SEED}/compare/?products={pa},{pb}").json()
        compare = text_of(client.get(f"{ARENA}compare/?products={pa},{pb}"))
        if call.close:
            assert "Too close to call:" in page, (pa, pb)
            assert "**Too close to call**" in md
            assert api["call"] == {"leader": None, "close": True}
            assert many["call"] == {"leader": None, "close": True}
            assert "Too close to call:" in compare and "▲ leads" not in compare
            assert not any(f"{n} leads" in page for n in names.values())
        else:
            leader = names[call.leader]
            slug = a.product.slug if call.leader == a.product_id else b.product.slug
            assert f"{leader} leads:" in page, (pa, pb)
            assert f"**{leader} leads**" in md
            assert api["call"] == {"leader": slug, "close": False}
            assert many["call"] == {"leader": slug, "close": False}
            trailer = names[call.trailer]
            assert f"{leader} leads {trailer}: its lowest possible PA Score" in compare
            assert compare.count("▲ leads") == 1
            assert "Too close to call" not in page
        # the rounds' tally is worded as what it is, never as who leads
        won = api["summary"]["leader"]
        if won != "draw":
            winner = a.product.name if won == pa else b.product.name
            assert f"{winner} wins more rounds" in page
            assert f"{winner} wins more rounds" in md


def _leaderboard_rows(html: str) -> list[str]:
    body = html[html.index('<table class="leaderboard">') :]
    body = body[body.index("<tbody>") : body.index("</tbody>")]
    return [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", r))).strip()
        for r in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


@pytest.mark.django_db
def test_the_leaderboard_and_its_formats_agree_with_pair_call(client, board):
    html = client.get(ARENA).content.decode()
    rows = _leaderboard_rows(html)
    api = client.get(f"/api/arenas/{SEED}/").json()["leaderboard"]
    md = client.get(f"/arenas/{SEED}.md").content.decode()
    md_rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in md[md.index("## Leaderboard") : md.index("## Best by user type")].splitlines()
        if line.startswith("| ") and "[" in line
    ]
    # the shown order is the published one, in every surface
    assert [r["product"]["slug"] for r in api] == [s.product.slug for s in board]
    assert len(rows) == len(md_rows) == len(board)
    for i, (score, row, entry, md_row) in enumerate(zip(board, rows, api, md_rows, strict=True)):
        name = score.product.name
        assert name in row and name in md_row[1]
        assert entry["rank_range"] == [score.rank_best, score.rank_worst]
        could = f"{score.rank_best}–{score.rank_worst}"
        if score.rank_best != score.rank_worst:
            assert f"(could be {could})" in row
            assert md_row[-2] == could
        else:
            assert "could be" not in row
        after = board[i + 1] if i + 1 < len(board) else None
        if after is None:
            assert "too close to call" not in row and md_row[-1] == ""
            continue
        close = pair_call(_ranged(score), _ranged(after)).close
        said = f"too close to call with {after.product.name}" in row
        assert said == close, name
        assert md_row[-1] == ("too close to call" if close else "leads")
    assert any("too close to call with" in r for r in rows)
    assert any("(could be" in r for r in rows)


@pytest.mark.django_db
def test_best_by_user_type_calls_the_winner_against_the_runner_up(client, board):
    by_product = {s.product_id: s for s in board}
    page = text_of(client.get(ARENA))
    md = client.get(f"/arenas/{SEED}.md").content.decode()
    best = md[md.index("## Best by user type") : md.index("## Head-to-heads")]
    results = list(PersonaResult.objects.select_related("persona", "winner", "runner_up"))
    assert results
    for r in results:
        if r.runner_up is None:
            continue
        slug = r.persona.slug
        call = pair_call(
            _persona_ranged(by_product[r.winner_id], slug),
            _persona_ranged(by_product[r.runner_up_id], slug),
        )
        line = next(line for line in best.splitlines() if line.startswith(f"| {slug} "))
        if call.close:
            assert (
                f"Too close to call: the ranges of {r.winner.name} and {r.runner_up.name}" in page
            )
            assert "| too close to call |" in line
        else:
            assert call.leader == r.winner_id
            assert f"{r.winner.name} leads {r.runner_up.name}" in page
            assert "| leads |" in line


@pytest.mark.django_db
def test_badges_and_llms_txt_name_a_leader_only_when_it_leads(client, board):
    for i, score in enumerate(board):
        svg = client.get(f"{ARENA}products/{score.product.slug}/badge.svg").content.decode()
        title = unescape(re.search(r"<title>(.*?)</title>", svg).group(1))
        near = [board[j] for j in (i - 1, i + 1) if 0 <= j < len(board)]
        close = [n.product.name for n in near if pair_call(_ranged(score), _ranged(n)).close]
        if close:
            assert f"too close to call with {' and '.join(close)}" in title
        else:
            assert "too close to call" not in title
        if score.rank_best != score.rank_worst:
            assert f"could be {score.rank_best}–{score.rank_worst}" in title
    first, second = board[0], board[1]
    leads = not pair_call(_ranged(first), _ranged(second)).close
    llms = client.get("/llms.txt").content.decode()
    home = text_of(client.get("/"))
    if leads:
        assert f"first {first.product.name} (leads)" in llms
        assert f"First {first.product.name} (leads)" in home
    else:
        said = f"{first.product.name} (too close to call with {second.product.name})"
        assert f"first {said}" in llms and f"First {said}" in home


@pytest.mark.django_db
def test_a_pair_whose_ranges_part_is_called_everywhere(client, board):
    """Narrow two products' ranges so they no longer overlap: every surface names the leader."""
    a, b = board[0], board[1]
    ProductScore.objects.filter(pk=a.pk).update(pa_low=a.pa_score, pa_high=a.pa_score)
    ProductScore.objects.filter(pk=b.pk).update(pa_low=b.pa_score, pa_high=b.pa_score)
    a.refresh_from_db()
    b.refresh_from_db()
    call = pair_call(_ranged(a), _ranged(b))
    if a.pa_score == b.pa_score:
        assert call.close  # equal scores with no range left: still too close to call
        return
    assert call.leader == a.product_id
    pa, pb = a.product.slug, b.product.slug
    assert f"{a.product.name} leads:" in text_of(client.get(f"{ARENA}vs/{pa}-vs-{pb}/"))
    assert client.get(f"/api/arenas/{SEED}/compare/{pb}/{pa}/").json()["call"] == {
        "leader": pa,
        "close": False,
    }
    row = _leaderboard_rows(client.get(ARENA).content.decode())[0]
    assert "too close to call" not in row
    assert f"first {a.product.name} (leads)" in client.get("/llms.txt").content.decode()


@pytest.mark.django_db
def test_a_comparison_of_three_names_a_leader_only_when_it_leads_both_others(client, board):
    # (no product of the seed leads two others: one with its claims all checked does)
    inngest = next(s for s in board if s.product.slug == "inngest")
    ProductScore.objects.filter(pk=inngest.pk).update(
        pa_low=inngest.pa_score, pa_high=inngest.pa_score
    )
    for s in board:
        s.refresh_from_db()
    seen = set()
    for trio in itertools.combinations(board, 3):
        leaders = [
            s.product.slug
            for s in trio
            if all(
                pair_call(_ranged(s), _ranged(o)).leader == s.product_id for o in trio if o is not s
            )
        ]
        slugs = ",".join(s.product.slug for s in trio)
        call = client.get(f"/api/arenas/{SEED}/compare/?products={slugs}").json()["call"]
        expected = leaders[0] if leaders else None
        assert call == {"leader": expected, "close": expected is None}, slugs
        seen.add(expected is None)
    assert seen == {True, False}  # trios of both kinds


@pytest.mark.django_db
def test_the_api_arena_list_and_the_product_page_follow_the_rule(client, board):
    first, second = board[0], board[1]
    leads = not pair_call(_ranged(first), _ranged(second)).close
    entry = next(a for a in client.get("/api/arenas/").json()["results"] if a["slug"] == SEED)
    assert entry["leader"]["slug"] == first.product.slug
    assert entry["call"] == {"leader": first.product.slug if leads else None, "close": not leads}
    for s in board:
        page = text_of(client.get(f"{ARENA}products/{s.product.slug}/"))
        could = f"(could be {s.rank_best}–{s.rank_worst})"
        assert (could in page) == (s.rank_best != s.rank_worst)
