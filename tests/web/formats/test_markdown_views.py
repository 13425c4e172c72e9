"""The markdown views (``/arenas/<arena>.md``, ``…/vs/<a>-vs-<b>.md``, ``/cells/<id>.md``,
``/api.md``): what an agent reads there matches the API and the HTML, every table keeps its shape
whatever the data holds, unknown addresses are markdown 404s, the pages are cached like the HTML
ones with queries that stay flat from 6 × 53 to 30 × 300, and the HTML pages link them."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from arena.models import Arena, ProductScore
from arena.selectors.arenas import documented_pairs
from arena.selectors.matrix import MATRIX_COLUMNS
from core.conflicts import retire_set
from products.models import Product
from products.services import product_update
from stories.models import Cell, Story
from stories.values import CellValue
from tests.factories import (
    CategoryFactory,
    CellChangeFactory,
    CellFactory,
    EvidenceFactory,
    ProductFactory,
    StoryFactory,
    SubGroupFactory,
)
from web.formats import markdown

pytestmark = pytest.mark.django_db

SEED = "durable-execution-engines"
MARKDOWN = "text/markdown; charset=utf-8"
# Text that would break a table, a link or a heading if it were written as it is.
HOSTILE = (
    "A | B \\| [x](javascript:alert(1)) <b>&amp; *em* _u_ `c` ~s~\n# not a heading\n\n1. no list"
)

_md = MarkdownIt("commonmark").enable("table")


def normal(text: str) -> str:
    """What ``markdown.inline`` keeps of a text: the words, one space between them."""
    return " ".join(re.sub(r"[\x00-\x08\x0e-\x1f\x7f]", "", text).split())


def tables(text: str) -> list[list[list[str]]]:
    """Every table of a markdown text as parsed by a CommonMark + GFM-tables parser: rows of cells'
    text (the header row first)."""
    tokens = _md.parse(text)
    found: list[list[list[str]]] = []
    row: list[str] | None = None
    for token in tokens:
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            found[-1].append(row)
        elif token.type == "inline" and row is not None:
            row.append("".join(c.content for c in token.children or []))
        elif token.type == "table_close":
            row = None
    return found


def assert_tables_keep_shape(text: str) -> list[list[list[str]]]:
    found = tables(text)
    # as many tables as delimiter rows were written: no table was broken into paragraphs
    assert len(found) == len(re.findall(r"^\|(?:---:?\|)+$", text, flags=re.M))
    for rows in found:
        assert {len(r) for r in rows} == {len(rows[0])}, rows[0]
    return found


def md(client, url: str, status: int = 200):
    response = client.get(url)
    assert response.status_code == status, (url, response.content[:300])
    assert response["Content-Type"] == MARKDOWN
    return response.content.decode()


def links_of(text: str) -> list[tuple[str, str]]:
    """Each link of a markdown text: (its text, its address)."""
    out = []
    for token in _md.parse(text):
        children = token.children or []
        for i, child in enumerate(children):
            if child.type == "link_open":
                label = ""
                for inner in children[i + 1 :]:
                    if inner.type == "link_close":
                        break
                    label += inner.content
                out.append((label, child.attrGet("href")))
    return out


# ---------------------------------------------------------------- escaping, for any text


@given(st.text(max_size=200))
def test_any_text_in_a_table_cell_keeps_the_table_and_reads_back(text):
    written = f"| a | text | b |\n|---|---|---|\n| 1 | {markdown.inline(text)} | 2 |\n| 3 | x | 4 |"
    rows = tables(written)[0]
    assert [len(r) for r in rows] == [3, 3, 3]
    assert rows[1] == ["1", normal(text), "2"]


@given(st.text(max_size=200))
def test_any_text_as_link_text_makes_one_link_to_the_address(text):
    found = links_of(f"See [{markdown.inline(text)}](https://example.org/a/) now.")
    assert found == [(normal(text), "https://example.org/a/")]


@given(st.text(max_size=200))
def test_any_text_as_a_heading_stays_one_heading(text):
    tokens = _md.parse(f"## {markdown.inline(text)}\n\nafter\n")
    assert [t.type for t in tokens][:3] == ["heading_open", "inline", "heading_close"]
    assert tokens[1].children is not None
    assert "".join(c.content for c in tokens[1].children) == normal(text)
    assert [t.type for t in tokens].count("heading_open") == 1


@given(st.text(max_size=100))
def test_a_data_url_is_http_only_and_cannot_end_the_link(text):
    href = markdown.url(f"https://example.org/{text}")
    assert href is not None and not re.search(r"[\s()<>\[\]\\\"]", href)
    assert links_of(f"[source]({href})") == [("source", href)]
    assert markdown.url(f"javascript:{text}") is None


@given(st.text(max_size=300))
def test_any_text_as_paragraphs_stays_plain_paragraphs(text):
    kinds = {t.type for t in _md.parse(f"{markdown.paragraphs(text)}\n")}
    assert kinds <= {"paragraph_open", "inline", "paragraph_close"}


# ---------------------------------------------------------------- the arena


def leaderboard_of(text: str) -> list[list[str]]:
    section = text[text.index("## Leaderboard") : text.index("## Best by user type")]
    return tables(section)[0][1:]


def test_arena_markdown_matches_the_api_leaderboard_and_the_page(client, seeded_arena):
    text = md(client, f"/arenas/{SEED}.md")
    api = client.get(f"/api/arenas/{SEED}/").json()
    assert text.startswith("# Durable Execution Engines\n")
    assert "- Products: 6; user stories: 53; judged cells: 318 (12 of them not applicable)" in text
    assert "- Updated: 2026-09-16; evidence as of: 2026-09-16" in text
    assert "[CC BY 4.0](https://creativecommons.org/licenses/by/4.0/)" in text
    assert f"- Web page: http://testserver/arenas/{SEED}/" in text
    rows = leaderboard_of(text)
    names = [re.sub(r"\s+", " ", r[1]) for r in rows]
    assert names == [row["product"]["name"] for row in api["leaderboard"]]
    for row, entry in zip(rows, api["leaderboard"], strict=True):
        low, high = entry["pa_range"]
        assert row[2] == f"{entry['pa_score']} ({low}–{high})"
        assert row[-5].startswith(f"{entry['verified']}/{entry['with_evidence']}")
        assert row[-4] == str(entry["integrity"])
        assert row[-3] == entry["confidence"]
    # each product links to its page
    product_links = dict(links_of(text[: text.index("## Best by user type")]))
    assert product_links["Temporal"] == f"http://testserver/arenas/{SEED}/products/temporal/"
    # best by user type as the API has it
    best = tables(text[text.index("## Best by user type") : text.index("## Head-to-heads")])[0]
    assert [(r[0], r[2]) for r in best[1:]] == [
        (p["persona"], p["winner"]["name"]) for p in api["personas"]
    ]


def test_arena_markdown_matrix_has_every_story_and_product_verdict(client, seeded_arena):
    text = md(client, f"/arenas/{SEED}.md")
    matrix = client.get(f"/api/arenas/{SEED}/matrix/").json()
    found = assert_tables_keep_shape(text)
    story_rows = {}
    for rows in found:
        if rows[0][:4] == ["ID", "Story", "Persona", "Weight"]:
            head = rows[0]
            for r in rows[1:]:
                story_rows[int(r[0])] = dict(zip(head, r, strict=True))
    assert len(story_rows) == 53
    names = {p.slug: p.name for p in Product.objects.filter(arena=seeded_arena)}
    for story in matrix["stories"]:
        row = story_rows[story["id"]]
        assert row["Story"] == normal(story["text"])
        for slug, c in story["cells"].items():
            value = CellValue(c["verdict"], c["proof"], c["quality"])
            assert row[names[slug]] == markdown.mark(value)
    assert "`partial C5` is partial, vendor claim only, quality 5/10" in text


def test_arena_markdown_lists_the_documented_head_to_heads_as_markdown(client, seeded_arena):
    text = md(client, f"/arenas/{SEED}.md")
    section = text[text.index("## Head-to-heads") : text.index("## Story matrix")]
    pairs = [(a, b) for _, a, b in documented_pairs(arena=seeded_arena)]
    assert links_of(section) == [
        (f"{a.name} vs {b.name}", f"http://testserver/arenas/{SEED}/vs/{a.slug}-vs-{b.slug}.md")
        for a, b in pairs
    ]
    for _, href in links_of(section):
        md(client, href.removeprefix("http://testserver"))


# ---------------------------------------------------------------- a head-to-head


def test_head_to_head_markdown_has_the_tallies_rounds_and_rationales(client, seeded_arena):
    text = md(client, f"/arenas/{SEED}/vs/inngest-vs-temporal.md")
    api = client.get(f"/api/arenas/{SEED}/compare/inngest/temporal/").json()
    summary = api["summary"]
    won, weighted = summary["won"], summary["weighted"]
    assert text.startswith("# Inngest vs Temporal\n")
    found = assert_tables_keep_shape(text)
    tally = found[0]
    assert tally[1] == [
        "Rounds won",
        str(won["inngest"]),
        str(summary["drawn"]),
        str(won["temporal"]),
    ]
    assert tally[2][1] == str(weighted["inngest"]) and tally[2][3] == str(weighted["temporal"])
    rounds = [r for rows in found[1:] for r in rows[1:]]
    assert len(rounds) == len(api["stories"])
    winners = {"Inngest": 0, "Temporal": 0, "draw": 0}
    for r in rounds:
        winners[r[-1]] += 1
    assert (winners["Inngest"], winners["draw"], winners["Temporal"]) == (
        won["inngest"],
        summary["drawn"],
        won["temporal"],
    )
    # each round's two sides, their verdicts linking to the cells' proofs
    cells = [href for label, href in links_of(text) if href.endswith(".md") and "/cells/" in href]
    assert len(cells) == 2 * len(rounds)
    assert "## Why" in text and "evidence quote" in text


def test_head_to_head_markdown_unknown_or_equal_products_are_404(client, seeded_arena):
    for url in (
        f"/arenas/{SEED}/vs/inngest-vs-inngest.md",
        f"/arenas/{SEED}/vs/inngest-vs-nope.md",
        "/arenas/nope/vs/inngest-vs-temporal.md",
        "/arenas/nope.md",
        "/cells/999999999.md",
        "/cells/99999999999999999999.md",
    ):
        text = md(client, url, status=404)
        assert text.startswith("# Not found\n"), url


# ---------------------------------------------------------------- a cell


def test_cell_markdown_has_the_verdict_evidence_history_and_flag_form(client, seeded_arena):
    cell = (
        Cell.objects.filter(story__arena=seeded_arena, detail_published=True).order_by("pk").first()
    )
    CellChangeFactory(cell=cell, note="Re-checked | the docs")
    text = md(client, f"/cells/{cell.pk}.md")
    assert text.startswith(f"# {cell.product.name} on “")
    assert f"- Verdict: {cell.verdict}" in text
    assert f"- Quality: {cell.quality}/10" in text
    assert normal(cell.rationale)[:60] in text
    assert text.count("- \\[") == cell.evidence.count()  # one line per quote: ``[source] “…”``
    assert "from none 0/10" not in text and "none 0/10 →" in text
    assert "Re-checked \\| the docs" in text
    assert f"http://testserver/cells/{cell.pk}/flag/" in text
    assert f"- Web page: http://testserver/cells/{cell.pk}/" in text
    labels = [label for label, _ in links_of(text)]
    assert any(" vs " in label for label in labels)  # its head-to-heads, as markdown
    assert_tables_keep_shape(text)


def test_a_retired_storys_cell_is_kept_on_record_and_left_out_of_the_arena(client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena).order_by("pk").first()
    retire_set(cell.story, retired=True)
    text = md(client, f"/cells/{cell.pk}.md")
    assert "Kept on record only: the story left the arena on" in text
    arena = md(client, f"/arenas/{SEED}.md")
    assert "user stories: 52" in arena
    assert f"\n| {cell.story.pk} | {normal(cell.story.text)[:30]}" not in arena


# ---------------------------------------------------------------- whatever the data holds


def test_hostile_names_and_texts_never_break_the_markdown(client):
    story = StoryFactory(text=HOSTILE, category=CategoryFactory(name="Cat | [x]"))
    story.subgroup = SubGroupFactory(category=story.category, name="Sub\n| grp")
    story.save()
    arena = story.arena
    arena.name = "Arena ] [ | <i>"
    arena.save()
    a = ProductFactory(arena=arena, name="A | [b](c)")
    b = ProductFactory(arena=arena, name="B\n# c")
    cell_a = CellFactory(story=story, product=a, rationale=HOSTILE, detail_published=True)
    CellFactory(story=story, product=b, partial=True, rationale="ok", detail_published=True)
    EvidenceFactory(cell=cell_a, source="src]", quote=HOSTILE, url="https://x.org/a b)(<c>")
    pages = [
        f"/arenas/{arena.slug}.md",
        f"/arenas/{arena.slug}/vs/{a.slug}-vs-{b.slug}.md",
        f"/cells/{cell_a.pk}.md",
    ]
    for url in pages:
        text = md(client, url)
        assert_tables_keep_shape(text)
        for _label, href in links_of(text):
            assert href.startswith(("http://testserver/", "https://")), (url, href)
            assert "javascript" not in href
        # no raw HTML, no heading from the data
        assert not any(t.type.startswith("html") for t in _md.parse(text)), url
        assert "\n# not a heading" not in text and "\n# c" not in text
    matrix = tables(md(client, pages[0]))[-1]
    assert matrix[0][4:] == ["A | [b](c)", "B # c"]
    assert matrix[1][1] == normal(HOSTILE)
    evidence = [h for _, h in links_of(md(client, pages[2])) if h.startswith("https://x.org")]
    assert evidence == ["https://x.org/a%20b%29%28%3Cc%3E"]


# ---------------------------------------------------------------- caching and queries


def markdown_pages(arena: Arena) -> dict[str, str]:
    products = list(Product.objects.filter(arena=arena).order_by("position"))
    story = Story.objects.filter(arena=arena).order_by("position").first()
    cell = Cell.objects.filter(story=story, product=products[0]).get()
    return {
        "arena": f"/arenas/{arena.slug}.md",
        "head-to-head": f"/arenas/{arena.slug}/vs/{products[0].slug}-vs-{products[-1].slug}.md",
        "cell": f"/cells/{cell.pk}.md",
        "api": "/api.md",
    }


# The same for 6 × 53 and 30 × 300 (one of them the page cache's look-up of the version).
# (the cell: one more for its disputes; none read their flags)
# (a head-to-head reads its pair's stored PA Scores for who leads: one query; the head-to-head and
# the cell: one more reads the sources their detail cites)
MD_QUERY_BOUNDS = {"arena": 9, "head-to-head": 8, "cell": 7, "api": 1}


def test_markdown_pages_are_cached_validated_and_cookie_free(client, seeded_arena):
    for url in markdown_pages(seeded_arena).values():
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Type"] == MARKDOWN
        assert "public" in response["Cache-Control"] and "s-maxage" in response["Cache-Control"]
        assert response["ETag"].startswith('W/"')
        assert not response.cookies and "cookie" not in response.get("Vary", "").lower()
        again = client.get(url, HTTP_IF_NONE_MATCH=response["ETag"])
        assert again.status_code == 304, url
        head = client.head(url)
        assert head.status_code == 200 and head.content == b""
        assert head["Content-Length"] == str(len(response.content))


def test_a_change_to_the_arena_shows_in_its_markdown_at_once(client, seeded_arena):
    url = f"/arenas/{SEED}.md"
    etag = client.get(url)["ETag"]
    product = Product.objects.get(arena=seeded_arena, slug="hatchet")
    product_update(product=product, changes={"name": "Hatchet Renamed"})
    response = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200 and "Hatchet Renamed" in response.content.decode()


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_markdown_query_counts_are_bounded_whatever_the_arena_size(
    client, request, django_assert_max_num_queries, size
):
    arena = request.getfixturevalue(size)
    for page, url in markdown_pages(arena).items():
        with django_assert_max_num_queries(MD_QUERY_BOUNDS[page]):
            assert client.get(url).status_code == 200, url


def test_markdown_query_counts_are_flat_from_seed_to_big(client, seeded_arena, big_arena):
    counts = {}
    for arena in (seeded_arena, big_arena):
        for page, url in markdown_pages(arena).items():
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            assert response.status_code == 200
            counts[arena.slug, page] = len(queries)
            if arena.slug == "big" and page in ("arena", "head-to-head"):
                # the size an agent reads (the 30 × 300 arena's whole matrix in one page)
                assert len(response.content) < 400_000, (page, len(response.content))
                assert_tables_keep_shape(response.content.decode())
    for page in MD_QUERY_BOUNDS:
        assert counts["big", page] == counts[SEED, page], page


# ---------------------------------------------------------------- the HTML links them


def test_html_pages_link_their_markdown_alternate(client, seeded_arena):
    products = list(Product.objects.filter(arena=seeded_arena).order_by("position"))
    cell = Cell.objects.filter(story__arena=seeded_arena).order_by("pk").first()
    a, b = products[0].slug, products[1].slug
    for page, alternate in (
        (f"/arenas/{SEED}/", f"/arenas/{SEED}.md"),
        (f"/arenas/{SEED}/vs/{a}-vs-{b}/", f"/arenas/{SEED}/vs/{a}-vs-{b}.md"),
        (f"/cells/{cell.pk}/", f"/cells/{cell.pk}.md"),
    ):
        html = client.get(page).content.decode()
        head = html[: html.index("</head>")]
        assert f'<link rel="alternate" type="text/markdown" href="{alternate}"' in head, page
        md(client, alternate)


def test_api_markdown_summarises_every_path_of_the_schema(client):
    from drf_spectacular.generators import SchemaGenerator

    text = md(client, "/api.md")
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, methods in schema["paths"].items():
        for method in methods:
            assert f"### {method.upper()} `{path}`" in text
    for name in schema["components"]["schemas"]:
        assert f"### {name}" in text
    assert "`http://testserver/api/schema/`" in text
    assert "| `weights` | query | no | string |" in text
    assert_tables_keep_shape(text)


def test_a_big_arena_s_markdown_matrix_has_the_pages_columns(client, big_arena):
    """Over MATRIX_COLUMNS products the file's matrix shows the top ones by PA Score, as the page
    does, and says where every product's verdicts are; the leaderboard still lists them all."""
    text = client.get(f"/arenas/{big_arena.slug}.md").text
    rank = dict(ProductScore.objects.filter(arena=big_arena).values_list("product__name", "rank"))
    assert len(rank) == 30 and "- Products: 30;" in text
    assert f"Columns: the top {MATRIX_COLUMNS} of the 30 products by PA Score" in text
    matrix = text[text.index("## Story matrix") :]
    head = next(line for line in matrix.splitlines() if line.startswith("| ID | Story |"))
    columns = [c.strip() for c in head.strip("|").split("|")][4:]
    others = set(rank) - set(columns)
    assert len(columns) == MATRIX_COLUMNS and max(rank[c] for c in columns) <= min(
        rank[o] for o in others
    )
    board = text[text.index("## Leaderboard") : text.index("## Best by user type")]
    assert all(f"[{name}](" in board for name in rank)
