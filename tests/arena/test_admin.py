"""The admin holds the content; its edits go through the services."""

import pytest

from arena.models import ProductScore
from stories.models import Cell, CellChange, Story


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw")
    client.force_login(user)
    return client


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


def cell_post_data(cell, **overrides):
    data = {
        "verdict": cell.verdict,
        "proof": cell.proof or "",
        "quality": "" if cell.quality is None else cell.quality,
        "rationale": cell.rationale,
        "evidence-TOTAL_FORMS": "0",
        "evidence-INITIAL_FORMS": "0",
        "changes-TOTAL_FORMS": "0",
        "changes-INITIAL_FORMS": "0",
    }
    ev = list(cell.evidence.all())
    data["evidence-TOTAL_FORMS"] = data["evidence-INITIAL_FORMS"] = str(len(ev))
    for i, e in enumerate(ev):
        data.update(
            {
                f"evidence-{i}-id": e.pk,
                f"evidence-{i}-cell": cell.pk,
                f"evidence-{i}-position": e.position,
                f"evidence-{i}-source": e.source,
                f"evidence-{i}-quote": e.quote,
            }
        )
    changes = list(cell.changes.all())
    data["changes-TOTAL_FORMS"] = data["changes-INITIAL_FORMS"] = str(len(changes))
    for i, c in enumerate(changes):
        data[f"changes-{i}-id"] = c.pk
        data[f"changes-{i}-cell"] = cell.pk
    data.update(overrides)
    return data


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
            cell_post_data(cell, verdict="full", proof="claimed", quality="9"),
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
        cell_post_data(cell, verdict="none", proof="claimed", quality="4"),
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
    from stories.services import story_update

    with django_capture_on_commit_callbacks(execute=True):
        story_update(story=story, weight=1)
    seeded_arena.refresh_from_db()
    assert seeded_arena.computed_seq == seq + 1 and seeded_arena.scores_stale_since is None


@pytest.mark.django_db
def test_deleting_a_product_in_the_admin_recomputes(admin_client, seeded_arena, django_capture_on_commit_callbacks):
    from products.models import Product

    dbos = Product.objects.get(slug="dbos")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/products/product/{dbos.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not ProductScore.objects.filter(product__slug="dbos").exists()
    assert ProductScore.objects.filter(arena=seeded_arena).count() == 5
    assert ProductScore.objects.get(rank=1).vs.slug != "dbos"
