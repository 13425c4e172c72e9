"""The embeddable badge of a product (``…/products/<product>/badge.svg``): valid, accessible SVG with
its texts escaped and readable colours; the stored rank and PA Score, followed when a verdict change
recomputes the scores (cached by the arena's content version); 404s; a constant number of queries;
the copy-paste snippet on the product page."""

from __future__ import annotations

import re
from html import unescape
from xml.etree import ElementTree

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.models import ProductScore
from core.conflicts import retire_set
from flags.forms import DecisionForm
from flags.services import review_item_uphold
from products.models import Product
from products.services import product_add
from stories.models import Cell
from stories.values import Verdict
from tests.factories import FlagFactory
from web.formats import badges

SVG = "{http://www.w3.org/2000/svg}"
SEED = "/arenas/durable-execution-engines/"


def svg(content: bytes | str) -> ElementTree.Element:
    root = ElementTree.fromstring(content)
    assert root.tag == f"{SVG}svg"
    return root


def texts(root: ElementTree.Element) -> list[str]:
    """What the badge shows (its visible texts, not their shadows)."""
    return [t.text for t in root.iter(f"{SVG}text") if t.get("aria-hidden") != "true"]


def badge_url(product: Product) -> str:
    return f"/arenas/{product.arena.slug}/products/{product.slug}/badge.svg"


# ---------------------------------------------------------------- drawing (no database)


def test_text_width_follows_the_characters():
    assert badges.text_width("") == 0
    assert badges.text_width("iiii") < badges.text_width("mmmm")
    assert badges.text_width("Temporal #1") == pytest.approx(
        sum(badges.text_width(c) for c in "Temporal #1")
    )
    # characters outside the table still take room; wide ones a whole em
    assert badges.text_width("é") > 0
    assert badges.text_width("漢") == badges.FONT_SIZE


def test_a_scored_badge_says_rank_and_score_and_names_itself():
    score = ProductScore(rank=2, pa_score=71)
    root = svg(
        badges.badge_svg(
            arena_name="Durable Execution Engines", product_name="Restate", score=score, products=6
        )
    )
    assert texts(root) == ["Durable Execution Engines", "Restate #2 · PA 71"]
    title = "Restate: rank 2 of 6 in Durable Execution Engines, PA Score 71 out of 100"
    assert root.get("role") == "img" and root.get("aria-label") == title
    assert root.findtext(f"{SVG}title") == title


@pytest.mark.parametrize("score", [None, ProductScore(rank=6, pa_score=None)])
def test_a_product_without_a_score_says_so(score):
    root = svg(badges.badge_svg(arena_name="A", product_name="B", score=score, products=6))
    assert texts(root) == ["A", "B · not scored yet"]
    assert root.get("aria-label") == "B in A: not scored yet"


def test_hostile_names_are_escaped_cut_and_still_parse():
    raw = badges.badge_svg(
        arena_name='Queues <&> "brokers"\x00',
        product_name="<script>alert('x')</script> & " + "very long name " * 5,
        score=ProductScore(rank=1, pa_score=90),
        products=3,
    )
    assert "<script>" not in raw and "\x00" not in raw
    root = svg(raw)
    label, message = texts(root)
    assert label == 'Queues <&> "brokers"'
    assert message.startswith("<script>alert('x')</script> & very long")
    assert "…" in message and len(message.partition(" #")[0]) <= badges.NAME_MAX


def test_the_two_parts_are_as_wide_as_their_texts():
    root = svg(
        badges.badge_svg(
            arena_name="Durable Execution Engines",
            product_name="Temporal",
            score=ProductScore(rank=1, pa_score=58),
            products=6,
        )
    )
    _clip, left, right, _sheen = root.iter(f"{SVG}rect")
    label_width = badges.text_width("Durable Execution Engines")
    message_width = badges.text_width("Temporal #1 · PA 58")
    assert float(left.get("width")) == pytest.approx(label_width + 2 * badges.PADDING, abs=0.1)
    assert float(right.get("width")) == pytest.approx(message_width + 2 * badges.PADDING, abs=0.1)
    assert float(root.get("width")) == pytest.approx(
        float(left.get("width")) + float(right.get("width")), abs=0.1
    )
    fitted = [float(t.get("textLength")) for t in root.iter(f"{SVG}text")]
    assert fitted == pytest.approx([label_width] * 2 + [message_width] * 2, abs=0.1)


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    channels = [int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _on_sheen(colour: str) -> str:
    """The colour under the top of the sheen (#bbb at 10% over it): the lightest it gets."""
    colour = colour.lstrip("#")
    if len(colour) == 3:
        colour = "".join(c * 2 for c in colour)
    return "#" + "".join(
        f"{round(int(colour[i : i + 2], 16) * 0.9 + 0xBB * 0.1):02x}" for i in (0, 2, 4)
    )


@pytest.mark.parametrize("colour", [badges.LABEL_COLOR, badges.SCORED_COLOR, badges.UNSCORED_COLOR])
def test_white_text_meets_aa_contrast_on_every_part(colour):
    for background in (colour, _on_sheen(colour)):
        contrast = 1.05 / (_luminance(background) + 0.05)
        assert contrast >= 4.5, (colour, background, contrast)


# ---------------------------------------------------------------- the view


@pytest.fixture
def seed_products(seeded_arena) -> list[Product]:
    return list(Product.objects.filter(arena=seeded_arena).order_by("position"))


@pytest.mark.django_db
def test_the_badge_shows_the_stored_rank_and_score(client, seed_products):
    response = client.get(badge_url(seed_products[0]))
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    score = ProductScore.objects.get(product=seed_products[0])
    root = svg(response.content)
    # with the ranks it could take, stored by the recompute (docs/scoring.md, "Who leads")
    assert (score.rank_best, score.rank_worst) == (1, 6)
    assert texts(root) == [
        "Durable Execution Engines",
        f"{seed_products[0].name} #{score.rank} (1–6) · PA {score.pa_score}",
    ]


@pytest.mark.django_db
def test_a_product_not_scored_yet_has_a_badge_saying_so(client, seeded_arena):
    # added in the admin (its cells n/a, to be judged), the recompute not run yet
    newcomer = product_add(
        product=Product(arena=seeded_arena, name="Newcomer", slug="newcomer", position=99)
    )
    root = svg(client.get(badge_url(newcomer)).content)
    assert texts(root)[1] == "Newcomer · not scored yet"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        f"{SEED}products/no-such-product/badge.svg",
        "/arenas/no-such-arena/products/temporal/badge.svg",
    ],
)
def test_unknown_products_have_no_badge(client, seeded_arena, url):
    assert client.get(url).status_code == 404


@pytest.mark.django_db
def test_a_retired_product_has_no_badge(client, seed_products):
    retire_set(seed_products[0], retired=True)
    assert client.get(badge_url(seed_products[0])).status_code == 404


@pytest.mark.django_db
def test_the_badge_is_public_validated_and_answers_head(client, seed_products):
    url = badge_url(seed_products[0])
    response = client.get(url)
    assert "public" in response["Cache-Control"] and "s-maxage=" in response["Cache-Control"]
    assert response["ETag"].startswith('W/"')
    assert not response.cookies and "Set-Cookie" not in response
    assert "cookie" not in response.get("Vary", "").lower()
    again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again.content == b""
    head = client.head(url)
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == response["ETag"]
    assert head["Content-Type"] == response["Content-Type"]
    assert int(head["Content-Length"]) == len(response.content)


@pytest.mark.django_db
def test_a_verdict_change_moves_the_badge_once_the_scores_are_recomputed(
    client, seed_products, moderator, django_capture_on_commit_callbacks
):
    leader = seed_products[0]
    url = badge_url(leader)
    before = client.get(url)
    old = ProductScore.objects.get(product=leader)
    cell = (
        Cell.objects.filter(product=leader, verdict=Verdict.FULL)
        .order_by("-story__weight", "story__position")
        .first()
    )
    with django_capture_on_commit_callbacks(execute=True):  # the recompute task, in-process
        flag = FlagFactory(item__cell=cell)
        review_item_uphold(
            item=flag.item,
            moderator=moderator,
            form=DecisionForm(
                {"note": "Not any more.", **{"verdict": Verdict.NONE, "proof": None, "quality": 0}}
            ),
        )
        # the change is public at once; the stored scores are not recomputed yet
        pending = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
        assert pending.status_code == 200 and pending.content == before.content
    new = ProductScore.objects.get(product=leader)
    assert new.pa_score < old.pa_score
    after = client.get(url, HTTP_IF_NONE_MATCH=pending["ETag"])
    assert after.status_code == 200 and after["ETag"] not in (before["ETag"], pending["ETag"])
    could = f" ({new.rank_best}–{new.rank_worst})" if new.rank_best != new.rank_worst else ""
    assert texts(svg(after.content))[1] == f"{leader.name} #{new.rank}{could} · PA {new.pa_score}"


@pytest.mark.django_db
def test_the_badge_reads_as_many_queries_for_6x53_as_for_30x300(seeded_arena, big_arena):
    counts = {}
    for arena in (seeded_arena, big_arena):
        product = Product.objects.filter(arena=arena).order_by("position").last()
        url = badge_url(product)
        with CaptureQueriesContext(connection) as queries:
            response = Client().get(url)
        assert response.status_code == 200
        svg(response.content)
        counts[arena.slug] = len(queries)
    # the content version, the arena, its products, their stored scores
    assert counts == {"durable-execution-engines": 4, "big": 4}


# ---------------------------------------------------------------- the snippet on the product page


def _textarea(html: str, id_: str) -> str:
    found = re.search(rf'<textarea id="{id_}"[^>]*>(.*?)</textarea>', html, re.S)
    assert found, id_
    return unescape(found[1])


@pytest.mark.django_db
def test_the_product_page_offers_the_badge_with_absolute_urls(client, seed_products, settings):
    settings.ALLOWED_HOSTS = ["testserver", "arena.example.org"]
    temporal = seed_products[0]
    page = f"{SEED}products/{temporal.slug}/"
    html = client.get(page, HTTP_HOST="arena.example.org", secure=True).content.decode()
    assert "<summary>Embed this badge</summary>" in html
    assert f'<img src="{badge_url(temporal)}" alt="Temporal in Durable Execution Engines' in html
    origin = "https://arena.example.org"
    snippet = _textarea(html, "badge-html")
    assert snippet == (
        f'<a href="{origin}{page}"><img src="{origin}{badge_url(temporal)}" '
        'alt="Temporal in Durable Execution Engines: rank and PA Score"></a>'
    )
    markdown = _textarea(html, "badge-md")
    assert markdown == (
        "[![Temporal in Durable Execution Engines: rank and PA Score]"
        f"({origin}{badge_url(temporal)})]({origin}{page})"
    )
    for id_, label in (("badge-html", "HTML"), ("badge-md", "Markdown")):
        assert f'<label for="{id_}">{label}</label>' in html
    # the host the page was asked for: another host gets its own copy
    plain = client.get(page).content.decode()
    assert f"http://testserver{page}" in _textarea(plain, "badge-html")
    # the snippet's image answers
    assert client.get(badge_url(temporal)).status_code == 200
