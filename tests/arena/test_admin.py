"""The admin holds the content; its edits go through the services."""

import pytest

from arena.models import AdjacentArena, Arena, Category, ProductScore
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.services import story_update
from tests.forms import page_form


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw")
    client.force_login(user)
    return client


def story_form(beside: Story, text: str) -> dict:
    """The admin's add-story form for a story placed as ``beside`` is."""
    return {
        "arena": beside.arena_id,
        "category": beside.category_id,
        "subgroup": beside.subgroup_id,
        "persona": beside.persona_id,
        "text": text,
        "weight": 2,
        "weight_published": "on",
        "position": 99,
        "cells-TOTAL_FORMS": "0",
        "cells-INITIAL_FORMS": "0",
    }


@pytest.mark.parametrize(
    "url",
    [
        "/admin/arena/arena/",
        "/admin/arena/category/",
        "/admin/products/product/",
        "/admin/stories/story/",
        "/admin/stories/cell/",
        "/admin/stories/cellchange/",
        "/admin/stories/story/?persona__id__exact=1",
        "/admin/stories/cell/?q=approval",
    ],
)
@pytest.mark.django_db
def test_admin_lists_load(admin_client, seeded_arena, url):
    assert admin_client.get(url).status_code == 200


def cell_form(client, cell, **changes):
    """What the cell's admin page posts after an editor's ``changes``."""
    return page_form(client, f"/admin/stories/cell/{cell.pk}/change/", "cell_form", **changes)


@pytest.mark.django_db
def test_saving_a_cell_in_the_admin_records_and_recomputes(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    cell = Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )
    before = ProductScore.objects.get(product=cell.product).pa_score
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            f"/admin/stories/cell/{cell.pk}/change/",
            cell_form(admin_client, cell, verdict="full", proof="claimed", quality="9"),
        )
    assert response.status_code == 302, response.content.decode()[:2000]
    change = CellChange.objects.get(cell=cell)
    assert (change.kind, change.new_verdict, change.changed_by.username) == (
        "admin",
        "full",
        "admin",
    )
    assert ProductScore.objects.get(product=cell.product).pa_score > before


@pytest.mark.django_db
def test_admin_refuses_an_invalid_cell_with_a_message_per_field(admin_client, seeded_arena):
    cell = Cell.objects.filter(story__arena=seeded_arena, verdict="full").first()
    response = admin_client.post(
        f"/admin/stories/cell/{cell.pk}/change/",
        cell_form(admin_client, cell, verdict="none", proof="claimed", quality="4"),
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "A none cell has no proof level." in text
    assert "A none cell (no evidence found) has quality 0." in text
    cell.refresh_from_db()
    assert cell.verdict == "full" and not CellChange.objects.exists()


@pytest.mark.django_db
def test_changing_a_story_weight_in_the_admin_recomputes(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    story = Story.objects.get(text__startswith="A workflow pauses for human approval")
    seeded_arena.refresh_from_db()
    seq = seeded_arena.computed_seq

    with django_capture_on_commit_callbacks(execute=True):
        story_update(story=story, changes={"weight": 1})
    seeded_arena.refresh_from_db()
    assert seeded_arena.computed_seq == seq + 1 and seeded_arena.scores_stale_since is None


@pytest.mark.django_db
def test_retiring_a_product_in_the_admin_recomputes_and_keeps_it(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):

    dbos = Product.objects.get(slug="dbos")
    assert admin_client.get(f"/admin/products/product/{dbos.pk}/delete/").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/products/product/",
            {"action": "retire_selected", "_selected_action": [dbos.pk]},
        )
    assert response.status_code == 302
    assert not ProductScore.objects.filter(product__slug="dbos").exists()
    assert ProductScore.objects.filter(arena=seeded_arena).count() == 5
    assert ProductScore.objects.get(rank=1).vs.slug != "dbos"
    assert Product.all_objects.get(slug="dbos").retired_at is not None
    assert Cell.objects.filter(product__slug="dbos").count() == 53  # kept, with their history
    page = admin_client.get("/arenas/durable-execution-engines/").content.decode()
    assert "/products/dbos/" not in page
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            "/admin/products/product/",
            {"action": "restore_selected", "_selected_action": [dbos.pk]},
        )
    assert ProductScore.objects.filter(arena=seeded_arena).count() == 6


@pytest.mark.django_db
def test_adding_a_story_in_the_admin_gives_it_a_cell_per_product(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    approvals = Story.objects.get(text__startswith="A workflow pauses for human approval")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/stories/story/add/",
            story_form(approvals, "A workflow escalates to a second approver after a deadline"),
        )
    assert response.status_code == 302, response.content.decode()[:1500]
    story = Story.objects.get(text__startswith="A workflow escalates")
    assert sorted(story.cells.values_list("verdict", flat=True)) == ["n/a"] * 6
    matrix = admin_client.get("/api/arenas/durable-execution-engines/matrix/").json()
    assert len(matrix["stories"]) == 54
    assert all(len(s["cells"]) == 6 for s in matrix["stories"])


@pytest.mark.django_db
def test_adding_a_product_in_the_admin_gives_it_a_cell_per_story(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/products/product/add/",
            {
                "arena": seeded_arena.pk,
                "name": "Windmill",
                "slug": "windmill",
                "tier": "free-tier",
                "position": 6,
            },
        )
    assert response.status_code == 302, response.content.decode()[:1500]
    assert Cell.objects.filter(product__slug="windmill", verdict="n/a").count() == 53
    row = ProductScore.objects.get(product__slug="windmill")
    assert row.pa_score is None and row.rank == 7  # nothing judged yet: no score, ranked last


@pytest.mark.django_db
def test_editing_a_cell_inline_on_its_story_page(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    story = Story.objects.get(text__startswith="A workflow pauses for human approval")
    cells = list(story.cells.order_by("product__position"))
    data = page_form(admin_client, f"/admin/stories/story/{story.pk}/change/", "story_form")
    hatchet = next(i for i, c in enumerate(cells) if c.product.slug == "hatchet")
    data.update(
        {
            f"cells-{hatchet}-verdict": "partial",
            f"cells-{hatchet}-proof": "claimed",
            f"cells-{hatchet}-quality": "4",
        }
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/stories/story/{story.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:1500]
    change = CellChange.objects.get()
    assert (change.cell.product.slug, change.new_verdict, change.new_quality) == (
        "hatchet",
        "partial",
        4,
    )


def _category_inline(client, url, category) -> tuple[dict, str]:
    data = page_form(client, url, "arena_form")
    key = next(
        k
        for k, v in data.items()
        if k.startswith("categories-") and k.endswith("-id")
        if str(v) == str(category.pk)
    )
    return data, key.removesuffix("-id")


@pytest.mark.django_db
def test_renaming_a_category_on_the_arena_page_recomputes(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    url = f"/admin/arena/arena/{seeded_arena.pk}/change/"
    data, prefix = _category_inline(admin_client, url, category)
    data[f"{prefix}-name"] = category.name + " renamed"
    with django_capture_on_commit_callbacks(execute=True):
        assert admin_client.post(url, data).status_code == 302
    scores = ProductScore.objects.filter(arena=seeded_arena).first().category_scores
    assert category.name + " renamed" in scores and category.name not in scores


@pytest.mark.django_db
def test_deleting_a_category_its_stories_use_is_refused_with_a_message(admin_client, seeded_arena):
    category = Category.objects.filter(arena=seeded_arena).order_by("position").first()
    url = f"/admin/arena/arena/{seeded_arena.pk}/change/"
    data, prefix = _category_inline(admin_client, url, category)
    data[f"{prefix}-DELETE"] = "on"
    response = admin_client.post(url, data)
    assert response.status_code == 200
    assert "protected" in response.content.decode().lower()
    assert Category.objects.filter(pk=category.pk).exists()


def _content_version(arena) -> int:
    return Arena.objects.values_list("content_version", flat=True).get(pk=arena.pk)


@pytest.mark.django_db
def test_editing_the_arena_moves_its_pages_version_and_keeps_the_bookkeeping(
    admin_client, seeded_arena
):
    before = Arena.objects.get(pk=seeded_arena.pk)
    url = f"/admin/arena/arena/{seeded_arena.pk}/change/"
    data = page_form(admin_client, url, "arena_form")
    data["description"] = "Edited in the admin."
    assert admin_client.post(url, data).status_code == 302
    after = Arena.objects.get(pk=seeded_arena.pk)
    assert after.description == "Edited in the admin."
    assert after.content_version > before.content_version
    assert (after.change_seq, after.computed_seq) == (before.change_seq, before.computed_seq)
    page = admin_client.get(seeded_arena.get_absolute_url())
    assert "Edited in the admin." in page.content.decode()


@pytest.mark.django_db
def test_deleting_an_unused_category_or_an_adjacent_arena_moves_the_version(
    admin_client, seeded_arena
):
    empty = Category.objects.create(arena=seeded_arena, name="Nothing here yet", position=99)
    version = _content_version(seeded_arena)
    response = admin_client.post(f"/admin/arena/category/{empty.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert _content_version(seeded_arena) > version
    adjacent = AdjacentArena.objects.filter(arena=seeded_arena).first()
    version = _content_version(seeded_arena)
    response = admin_client.post(
        f"/admin/arena/adjacentarena/{adjacent.pk}/delete/", {"post": "yes"}
    )
    assert response.status_code == 302
    assert _content_version(seeded_arena) > version


@pytest.mark.django_db
def test_a_name_with_a_line_break_is_refused_where_an_editor_writes_it(
    admin_client, seeded_arena, django_capture_on_commit_callbacks
):
    # a name reaches mail subjects and log lines: one line, refused at the form
    approvals = Story.objects.get(text__startswith="A workflow pauses for human approval")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            "/admin/stories/story/add/",
            story_form(approvals, "A workflow escalates\r\nBcc: victim@example.com"),
        )
    assert response.status_code == 200
    assert "A name is one line: remove the line break or control character U+000D." in (
        response.content.decode()
    )
    assert not Story.objects.filter(text__contains="Bcc").exists()
