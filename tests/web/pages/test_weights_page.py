"""The arena page with a visitor's weights: the leaderboard ranked by the published formula with
those weights, "Yours" beside the PA Score and how each rank moved, the address that carries them
(also from the plain form, by a redirect), a notice for what could not be read; every score's
range, the groups of overlapping ranges and the persona winners' ranges."""

from __future__ import annotations

import re
from html import unescape

import pytest

from arena.models import ProductScore
from arena.scoring.results import Part, Weights, personal_score, score_range
from products.models import Product
from products.services import product_update
from tests.web.pages.test_pages import ARENA, HX, get, leaderboard_names, squeeze, text_of

pytestmark = pytest.mark.django_db

MINE = "privacy-posture:3,agenticness:0"
# the same weights as scoring reads them (by category name)
WEIGHTS = Weights(categories={"Privacy posture": 3, "Agenticness": 0})
CANONICAL = "weights=agenticness:0,privacy-posture:3"  # categories in matrix order


def rows(html: str) -> list[str]:
    table = html[html.index('class="leaderboard"') :]
    body = table[table.index("<tbody>") : table.index("</tbody>")]
    cells = [re.sub(r"</t[dh]>|<svg", " \\g<0>", r) for r in body.split("<tr>")[1:]]
    return [squeeze(unescape(re.sub(r"<[^>]+>", "", r))).strip() + " " for r in cells]


def stored() -> dict[str, ProductScore]:
    return {s.product.name: s for s in ProductScore.objects.select_related("product")}


def personal(score: ProductScore, weights: Weights) -> tuple[int, tuple[int, int]]:
    parts = [Part(*p) for p in score.parts]
    return personal_score(parts, weights), score_range(parts, weights)


def test_your_weights_rank_the_leaderboard_by_the_published_formula(client, seeded_arena):
    response = get(client, f"{ARENA}?weights={MINE}")
    html = response.content.decode()
    scores = stored()
    mine = {name: personal(s, WEIGHTS) for name, s in scores.items()}
    names = leaderboard_names(response)
    # ranked by the personal score, high to low
    assert [mine[n][0] for n in names] == sorted((v[0] for v in mine.values()), reverse=True)
    assert names != sorted(scores, key=lambda n: scores[n].rank)  # it is another order
    published = {s.product.name: s.rank for s in scores.values()}
    for name, row in zip(names, rows(html), strict=True):
        value, (low, high) = mine[name]
        # "Yours" with its range, then how the row moved, then the published PA Score
        s = scores[name]
        assert f"{name} " in row
        assert f" {value}/100, range ({low}–{high}) " in row, row
        assert f" {s.pa_score}/100, range ({s.pa_low}–{s.pa_high}) " in row, row
        assert re.search(r"(up|down) \d from published rank \d|same as published rank \d", row)
    text = text_of(response)
    assert "Ranked by your weights: Agenticness ignored, Privacy posture ×3 · Reset" in text
    # the moves say where the published ranking had the row
    first = rows(html)[0]
    assert first.startswith("1 ") and f"published rank {published[names[0]]}" in first
    # the weights panel is open, its controls show the levels in effect; "Rank by" says whose
    assert '<details id="weights-panel" class="weights-panel" open>' in html
    assert re.search(r'id="w-privacy-posture".*?<option value="3" selected>critical', html, re.S)
    assert re.search(r'id="w-agenticness".*?<option value="0" selected>ignore', html, re.S)
    assert '<option value="" disabled selected>Your weights</option>' in html
    # the weights travel with the matrix filters, and with the links that load a category
    assert 'form="matrix-filters" name="weights" value="agenticness:0,privacy-posture:3"' in html


def test_moves_read_as_arrows_and_words(client, seeded_arena):
    html = get(client, f"{ARENA}?weights={MINE}").content.decode()
    # DBOS shares the published second place with Inngest and falls behind it
    assert (
        '<span class="moved down"><span aria-hidden="true">▼1</span>'
        '<span class="visually-hidden">down 1 from published rank 2</span></span>'
    ) in html
    assert '<span class="visually-hidden">up 1 from published rank 5</span>' in html
    assert '<span aria-hidden="true">=</span><span class="visually-hidden">same as' in html


def test_all_weights_normal_is_the_published_page(client, seeded_arena):
    published = get(client, ARENA).content
    assert get(client, f"{ARENA}?weights=privacy-posture:1,backend-developer:1").content == (
        published
    )
    assert get(client, f"{ARENA}?weights=").content == published
    html = published.decode()
    assert '<details id="weights-panel" class="weights-panel">' in html
    assert "Yours" not in text_of(get(client, ARENA)).split("Best by user type")[0]


def test_the_plain_form_redirects_to_the_shareable_address(client, seeded_arena):
    form = (
        "w-agent-workloads=1&w-agenticness=0&w-privacy-posture=3&w-backend-developer=1"
        "&w-nope=3&w-openness=9&persona=ai-native&show=temporal,dbos"
    )
    response = client.get(f"{ARENA}?{form}")
    assert response.status_code == 302
    assert response["Location"] == (
        f"{ARENA}?persona=ai-native&show=temporal,dbos&{CANONICAL}#leaderboard-section"
    )
    # the same fields from htmx: the leaderboard alone, the address pushed in the same form
    fragment = get(client, f"{ARENA}?{form}", **HX, HTTP_HX_TARGET="leaderboard")
    assert fragment["HX-Push-Url"] == f"{ARENA}?persona=ai-native&show=temporal,dbos&{CANONICAL}"
    page = get(client, f"{ARENA}?{CANONICAL}")
    assert leaderboard_names(fragment) == leaderboard_names(page)


def test_htmx_re_ranks_the_leaderboard_and_updates_the_controls(client, seeded_arena):
    fragment = get(client, f"{ARENA}?weights={MINE}", **HX, HTTP_HX_TARGET="leaderboard")
    html = fragment.content.decode()
    assert "<html" not in html and 'class="leaderboard"' in html
    assert fragment["HX-Push-Url"] == f"{ARENA}?{CANONICAL}"
    # the controls outside the leaderboard follow (swapped out of band, same ids)
    assert '<select id="rank-by" name="rank" hx-swap-oob="true">' in html
    assert '<option value="" disabled selected>Your weights</option>' in html
    assert re.search(r'id="w-privacy-posture".*?<option value="3" selected>', html, re.S)
    assert 'hx-swap-oob="innerHTML:#rank-weights"><input type="hidden"' in re.sub(
        r">\s+<", "><", html
    )
    assert leaderboard_names(fragment) == leaderboard_names(get(client, f"{ARENA}?{CANONICAL}"))
    # "Reset" (an empty list): the published board, the controls back to normal
    reset = get(client, f"{ARENA}?weights=,", **HX, HTTP_HX_TARGET="leaderboard")
    assert reset["HX-Push-Url"] == ARENA
    html = reset.content.decode()
    assert 'hx-swap-oob="innerHTML:#rank-weights"></span>' in re.sub(r">\s+<", "><", html)
    assert '<option value="3" selected>' not in html and "disabled selected" not in html
    assert '<select id="rank-by" name="rank" hx-swap-oob="true">' in html
    assert leaderboard_names(reset) == leaderboard_names(get(client, ARENA))
    # a rank picked without weights: the menu is left as the visitor set it
    plain = get(client, f"{ARENA}?rank=verified", **HX, HTTP_HX_TARGET="leaderboard")
    assert 'id="rank-by"' not in plain.content.decode() and "HX-Push-Url" not in plain


def test_a_rank_picked_replaces_the_weights(client, seeded_arena):
    # the "Rank by" form carries the weights along (they travel with the matrix filters)
    response = get(
        client, f"{ARENA}?rank=verified&weights={MINE}", **HX, HTTP_HX_TARGET="leaderboard"
    )
    assert response["HX-Push-Url"] == f"{ARENA}?rank=verified"
    assert "Ranked by Verified share" in text_of(response)
    assert "Yours" not in text_of(response)
    page = get(client, f"{ARENA}?rank=verified&weights={MINE}")
    assert leaderboard_names(page) == leaderboard_names(get(client, f"{ARENA}?rank=verified"))


def test_entries_that_cannot_be_read_are_named_and_the_rest_apply(client, seeded_arena):
    response = get(client, f"{ARENA}?weights=privacy-posture:3,foo:2,agenticness:7,openness")
    text = text_of(response)
    assert (
        "Left out of your weights: “foo:2” (no category or user type “foo”); “agenticness:7” "
        "(a weight is 0, 1, 2 or 3); “openness” (write key:level). The rest apply."
    ) in text
    assert "Ranked by your weights: Privacy posture ×3 · Reset" in text
    only = get(client, f"{ARENA}?weights=privacy-posture:3")
    assert leaderboard_names(response) == leaderboard_names(only)
    # nothing readable: the published board, and the notice
    nothing = get(client, f"{ARENA}?weights=%00%3Cb%3E:1")
    assert leaderboard_names(nothing) == leaderboard_names(get(client, ARENA))
    assert "Left out of your weights: “&lt;b&gt;:1”" in nothing.content.decode()


def test_persona_presets_and_a_persona_key(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    link = re.search(r'<a href="([^"]+)"[^>]*>Rank as a backend-developer would</a>', html)
    assert unescape(link.group(1)) == f"{ARENA}?weights=backend-developer:3"
    assert "Rank as an ai-native would" in html and "Reset to the published weights" in html
    response = get(client, unescape(link.group(1)))
    weights = Weights(personas={"backend-developer": 3})
    mine = {name: personal(s, weights)[0] for name, s in stored().items()}
    names = leaderboard_names(response)
    assert [mine[n] for n in names] == sorted(mine.values(), reverse=True)
    assert "Ranked by your weights: backend-developer ×3" in text_of(response)


def test_scores_show_their_range_and_overlapping_ranges_form_a_group(client, seeded_arena):
    response = get(client, ARENA)
    html = response.content.decode()
    scores = stored()
    for name, row in zip(leaderboard_names(response), rows(html), strict=True):
        s = scores[name]
        assert s.pa_low <= s.pa_score <= s.pa_high
        assert f"{s.pa_score}/100, range ({s.pa_low}–{s.pa_high})" in row
    temporal = scores["Temporal"]
    assert (
        f'{temporal.pa_score}<span class="visually-hidden">/100, range</span> '
        f'<span class="rng">({temporal.pa_low}–{temporal.pa_high})</span>'
    ) in html
    # the bar: decorative, the range from low to high and a tick at the score
    bar = re.search(r'<svg class="rbar"[^>]*aria-hidden="true"[^>]*>(.*?)</svg>', html).group(1)
    assert f'x="{temporal.pa_low}" y="2" width="{temporal.pa_high - temporal.pa_low}"' in bar
    # the seed's first five ranges all overlap one another (Hatchet's misses DBOS's and
    # Inngest's): one group, named under the table; Hatchet is a group of its own
    text = text_of(response)
    assert re.findall(r'<td class="num group">([^<]*)</td>', html) == ["1–5"] * 5
    assert html.count('<span class="visually-hidden">alone</span>') == 1
    assert (
        "Temporal, DBOS, Inngest, Trigger.dev and Restate: ranges overlap; the evidence "
        "does not settle their order."
    ) in text


def test_persona_winners_show_their_range(client, seeded_arena):
    html = get(client, ARENA).content.decode()
    backend = html[html.index("<h3>Best for backend-developer</h3>") :]
    backend = squeeze(unescape(re.sub(r"<[^>]+>", " ", backend[: backend.index("</li>")])))
    low, high = ProductScore.objects.get(product__name="Inngest").persona_ranges[
        "backend-developer"
    ]
    assert f"13 backend-developer stories scored · range {low}–{high}" in backend


def test_the_address_is_the_same_from_the_page_and_from_htmx(client, big_arena):
    """The canonical order (categories in matrix order, then personas) needs no query of the
    categories: the htmx leaderboard reads it from the stored scores."""
    page = get(client, "/arenas/big/").content.decode()
    slugs = re.findall(r'<select id="w-([a-z0-9-]+)"', page)
    asked = ",".join(f"{slug}:{i % 4}" for i, slug in enumerate(reversed(slugs)))
    html = get(client, f"/arenas/big/?weights={asked}").content.decode()
    canonical = re.search(r'form="matrix-filters" name="weights" value="([^"]+)"', html).group(1)
    assert [e.split(":")[0] for e in canonical.split(",")] == [
        s for i, s in enumerate(slugs) if (len(slugs) - 1 - i) % 4 != 1
    ]
    fragment = get(client, f"/arenas/big/?weights={asked}", **HX, HTTP_HX_TARGET="leaderboard")
    assert fragment["HX-Push-Url"] == f"/arenas/big/?weights={canonical}"


def test_the_kept_winner_cards_and_weights_controls_follow_an_edit(client, seeded_arena):
    def best_and_controls() -> tuple[str, str]:
        html = get(client, ARENA).content.decode()
        best = html[html.index('id="best-section"') : html.index('id="matrix-section"')]
        controls = html[html.index('id="weights-controls"') : html.index('id="rank-weights"')]
        return squeeze(unescape(re.sub(r"<[^>]+>", " ", best))), controls

    best, controls = best_and_controls()
    assert "Inngest" in best and "Inngest Cloud" not in best
    assert best_and_controls() == (best, controls)  # the kept fragments, as drawn
    inngest = Product.objects.get(arena__slug=seeded_arena.slug, name="Inngest")
    product_update(product=inngest, changes={"name": "Inngest Cloud"})  # (a new content version)
    best_after, controls_after = best_and_controls()
    assert best_after == best.replace("Inngest", "Inngest Cloud")
    assert controls_after == controls
