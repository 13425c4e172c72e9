"""No lost update: an admin form opened before someone else's change never silently puts old values
back. It writes only what its editor changed, or it is refused with what changed meanwhile."""

import pytest
from django.test import Client

from arena.clients import client_hash
from flags.models import Flag
from flags.services import flag_submit, flag_uphold
from products.models import Product
from stories.models import Cell, CellChange, Story
from tests.forms import form_data, page_form

APPROVAL = "A workflow pauses for human approval"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.com", "pw")
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(story__text__startswith=APPROVAL, product__slug="hatchet")


def uphold_flag(cell, moderator, **values) -> Flag:
    flag_submit(
        cell=cell,
        reason="wrong_verdict",
        explanation=EXPLANATION,
        proposed_verdict="full",
        proposed_quality=8,
        client=client_hash("10.9.9.9"),
    )
    flag = Flag.objects.get(cell=cell)
    flag_uphold(item=flag.item, moderator=moderator, note="Confirmed in the docs.", **values)
    return flag


@pytest.mark.django_db
def test_stale_cell_page_fixing_a_typo_keeps_the_upheld_verdict(editor, moderator, cell):
    url = f"/admin/stories/cell/{cell.pk}/change/"
    before = (cell.verdict, cell.quality)
    data = page_form(editor, url, "cell_form")  # the editor opens the page …
    flag = uphold_flag(cell, moderator)  # … a moderator upholds a flag meanwhile …
    data["rationale"] = data["rationale"] + " (typo fixed)"  # … the editor fixes a typo and saves
    response = editor.post(url, data)
    assert response.status_code == 302
    cell.refresh_from_db()
    assert (cell.verdict, cell.proof, cell.quality) == ("full", "claimed", 8) != before
    assert cell.rationale.endswith("(typo fixed)")
    assert CellChange.objects.filter(cell=cell).count() == 1  # only the upheld flag's change
    status = Client().get(f"/flags/status/{flag.token}/").content.decode()
    assert "upheld" in status


@pytest.mark.django_db
def test_stale_cell_page_changing_the_verdict_is_refused_and_shows_the_current_values(
    editor, moderator, cell
):
    url = f"/admin/stories/cell/{cell.pk}/change/"
    data = page_form(editor, url, "cell_form", verdict="partial", proof="claimed", quality="3")
    uphold_flag(cell, moderator)
    response = editor.post(url, data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "was changed by someone else since you opened it" in html
    assert "verdict is now full (you read" in html
    assert "upheld flag by mod" in html  # who changed it, and how
    shown = form_data(html, "cell_form")
    assert (shown["verdict"], shown["proof"], shown["quality"]) == ("full", "claimed", "8")
    cell.refresh_from_db()
    assert cell.verdict == "full"
    # saving the re-displayed form again (the editor has now seen the current values) goes through
    shown.update(verdict="partial", proof="claimed", quality="3")
    assert editor.post(url, shown).status_code == 302
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("partial", 3)


@pytest.mark.django_db
def test_stale_story_page_keeps_upheld_cells_and_saves_the_weight(
    editor, moderator, cell, django_capture_on_commit_callbacks
):
    story = cell.story
    url = f"/admin/stories/story/{story.pk}/change/"
    data = page_form(editor, url, "story_form", weight="1")
    uphold_flag(cell, moderator)
    with django_capture_on_commit_callbacks(execute=True):
        response = editor.post(url, data)
    assert response.status_code == 302, response.content.decode()[:800]
    cell.refresh_from_db()
    story.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 8)
    assert story.weight == 1


@pytest.mark.django_db
def test_stale_story_inline_cell_edit_of_the_same_cell_is_refused(editor, moderator, cell):
    story = cell.story
    url = f"/admin/stories/story/{story.pk}/change/"
    data = page_form(editor, url, "story_form")
    i = next(k for k in range(6) if data[f"cells-{k}-id"] == str(cell.pk))
    data[f"cells-{i}-quality"] = "2"
    uphold_flag(cell, moderator)
    response = editor.post(url, data)
    assert response.status_code == 200
    assert "was changed by someone else since you opened it" in response.content.decode()
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 8)


@pytest.mark.django_db
def test_two_editors_change_the_same_story_field(editor, seeded_arena):
    story = Story.objects.get(text__startswith=APPROVAL)
    url = f"/admin/stories/story/{story.pk}/change/"
    first = page_form(editor, url, "story_form", weight="1")
    second = page_form(editor, url, "story_form", weight="2", text=story.text + " now")
    assert editor.post(url, first).status_code == 302
    response = editor.post(url, second)
    assert response.status_code == 200
    assert "weight is now 1" in response.content.decode()
    story.refresh_from_db()
    assert story.weight == 1 and not story.text.endswith(" now")


@pytest.mark.django_db
def test_two_editors_change_different_product_fields(editor, seeded_arena):
    product = Product.objects.get(slug="hatchet")
    url = f"/admin/products/product/{product.pk}/change/"
    first = page_form(editor, url, "product_form", tier="enterprise")
    second = page_form(editor, url, "product_form", stars="999")
    assert editor.post(url, first).status_code == 302
    assert editor.post(url, second).status_code == 302
    product.refresh_from_db()
    assert (product.tier, product.stars) == ("enterprise", 999)
    stale = page_form(editor, url, "product_form", tier="free")
    page_form(editor, url, "product_form")  # nothing saved between: still fresh
    assert editor.post(url, stale).status_code == 302
    third = page_form(editor, url, "product_form", tier="paid")
    assert editor.post(url, page_form(editor, url, "product_form", tier="oss")).status_code == 302
    refused = editor.post(url, third)
    assert refused.status_code == 200 and "tier is now oss" in refused.content.decode()


@pytest.mark.django_db
def test_a_non_numeric_admin_id_is_not_a_server_error(editor, seeded_arena):
    for url in (
        "/admin/flags/reviewitem/abc/change/",
        "/admin/stories/cell/abc/change/",
        "/admin/stories/story/1%20or%201/change/",
    ):
        assert editor.get(url).status_code in (302, 404), url


@pytest.mark.django_db
def test_a_story_cannot_take_a_category_of_another_arena(editor, seeded_arena):
    from arena.generate import arena_generate

    other = arena_generate(slug="other", products=2, stories=3)
    foreign = other.categories.first()
    story = Story.objects.get(text__startswith=APPROVAL)
    url = f"/admin/stories/story/{story.pk}/change/"
    response = editor.post(url, page_form(editor, url, "story_form", category=foreign.pk))
    assert response.status_code == 200
    assert "Choose a category of this story" in response.content.decode()
    story.refresh_from_db()
    assert story.category.arena_id == seeded_arena.pk
    add = page_form(
        editor, "/admin/stories/story/add/", "story_form",
        arena=seeded_arena.pk, category=foreign.pk, persona=story.persona_id,
        text="A new story in the wrong category", weight=1, position=99,
    )  # fmt: skip
    response = editor.post("/admin/stories/story/add/", add)
    assert (
        response.status_code == 200
        and "Choose a category of this story" in response.content.decode()
    )
    assert not Story.all_objects.filter(text="A new story in the wrong category").exists()


@pytest.mark.django_db
def test_admin_added_rows_are_clean_and_positions_bounded(editor, seeded_arena):
    story = Story.objects.get(text__startswith=APPROVAL)
    add = page_form(
        editor, "/admin/stories/story/add/", "story_form",
        arena=seeded_arena.pk, category=story.category_id, persona=story.persona_id,
        text="ctrl\x1b\x07 text of a new story", weight=1, position=99,
    )  # fmt: skip
    assert editor.post("/admin/stories/story/add/", add).status_code == 302
    assert Story.objects.filter(text="ctrl text of a new story").exists()
    url = f"/admin/products/product/{Product.objects.get(slug='dbos').pk}/change/"
    response = editor.post(url, page_form(editor, url, "product_form", position=2147483000))
    assert (
        response.status_code == 200 and "less than or equal to 1000000" in response.content.decode()
    )
