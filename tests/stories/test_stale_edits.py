"""No lost update: an admin form opened before someone else's change never silently puts old values
back. It writes only what its editor changed, or it is refused with what changed meanwhile."""

import pytest
from django.test import Client

from flags.forms import DecisionForm, FlagForm
from flags.models import Flag, Reason
from flags.services import flag_submit, review_item_uphold
from products.models import Product
from stories.models import Cell, CellChange, Story
from stories.values import Verdict
from tests.factories import CategoryFactory
from tests.forms import form_data, page_form
from web.http.clients import client_hash

pytestmark = pytest.mark.django_db

APPROVAL = "A workflow pauses for human approval"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
ADD_STORY = "/admin/stories/story/add/"


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.com", "pw")
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(story__text__startswith=APPROVAL, product__slug="hatchet")


@pytest.fixture
def story(seeded_arena):
    return Story.objects.get(text__startswith=APPROVAL)


def cell_url(cell) -> str:
    return f"/admin/stories/cell/{cell.pk}/change/"


def story_url(story) -> str:
    return f"/admin/stories/story/{story.pk}/change/"


def product_url(slug: str) -> str:
    return f"/admin/products/product/{Product.objects.get(slug=slug).pk}/change/"


def uphold_flag(cell, moderator) -> Flag:
    """A visitor flags the cell as full 8/10 and a moderator upholds it."""
    flag = flag_submit(
        cell=cell,
        form=FlagForm(
            {
                "reason": Reason.WRONG_VERDICT,
                "explanation": EXPLANATION,
                "proposed_verdict": Verdict.FULL,
                "proposed_quality": 8,
            }
        ),
        client=client_hash("10.9.9.9"),
    )
    review_item_uphold(
        item=flag.item, moderator=moderator, form=DecisionForm({"note": "Confirmed in the docs."})
    )
    return flag


def test_stale_cell_page_fixing_a_typo_keeps_the_upheld_verdict(editor, moderator, cell):
    url = cell_url(cell)
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


@pytest.fixture
def stale_verdict_post(editor, moderator, cell):
    """The editor changes the verdict on a page opened before a moderator upheld a flag."""
    url = cell_url(cell)
    data = page_form(editor, url, "cell_form", verdict="partial", proof="claimed", quality="3")
    uphold_flag(cell, moderator)
    return editor.post(url, data)


def test_stale_cell_page_changing_the_verdict_is_refused(stale_verdict_post, cell):
    assert stale_verdict_post.status_code == 200
    assert "was changed by someone else since you opened it" in stale_verdict_post.content.decode()
    cell.refresh_from_db()
    assert cell.verdict == "full"


def test_the_refusal_says_what_changed_and_who_changed_it(stale_verdict_post):
    html = stale_verdict_post.content.decode()
    assert "verdict is now full (you read" in html
    assert "upheld flag by mod" in html


def test_the_refusal_shows_the_current_values(stale_verdict_post):
    shown = form_data(stale_verdict_post.content.decode(), "cell_form")
    assert (shown["verdict"], shown["proof"], shown["quality"]) == ("full", "claimed", "8")


def test_saving_the_redisplayed_form_goes_through(editor, stale_verdict_post, cell):
    # the editor has now seen the current values
    shown = form_data(stale_verdict_post.content.decode(), "cell_form")
    shown.update(verdict="partial", proof="claimed", quality="3")
    assert editor.post(cell_url(cell), shown).status_code == 302
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("partial", 3)


def test_stale_story_page_keeps_upheld_cells_and_saves_the_weight(
    editor, moderator, cell, story, django_capture_on_commit_callbacks
):
    data = page_form(editor, story_url(story), "story_form", weight="1")
    uphold_flag(cell, moderator)
    with django_capture_on_commit_callbacks(execute=True):
        response = editor.post(story_url(story), data)
    assert response.status_code == 302, response.content.decode()[:800]
    cell.refresh_from_db()
    story.refresh_from_db()
    assert (cell.verdict, cell.quality, story.weight) == ("full", 8, 1)


def test_stale_story_inline_cell_edit_of_the_same_cell_is_refused(editor, moderator, cell, story):
    data = page_form(editor, story_url(story), "story_form")
    i = next(k for k in range(6) if data[f"cells-{k}-id"] == str(cell.pk))
    data[f"cells-{i}-quality"] = "2"
    uphold_flag(cell, moderator)
    response = editor.post(story_url(story), data)
    assert response.status_code == 200
    assert "was changed by someone else since you opened it" in response.content.decode()
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 8)


def test_two_editors_change_the_same_story_field(editor, story):
    first = page_form(editor, story_url(story), "story_form", weight="1")
    second = page_form(editor, story_url(story), "story_form", weight="2", text=story.text + " now")
    assert editor.post(story_url(story), first).status_code == 302
    response = editor.post(story_url(story), second)
    assert response.status_code == 200
    assert "weight is now 1" in response.content.decode()
    story.refresh_from_db()
    assert story.weight == 1 and not story.text.endswith(" now")


def test_two_editors_change_different_product_fields(editor, seeded_arena):
    url = product_url("hatchet")
    first = page_form(editor, url, "product_form", tier="enterprise")
    second = page_form(editor, url, "product_form", stars="999")
    assert editor.post(url, first).status_code == 302
    assert editor.post(url, second).status_code == 302
    product = Product.objects.get(slug="hatchet")
    assert (product.tier, product.stars) == ("enterprise", 999)


def test_a_form_is_fresh_while_nothing_was_saved_since(editor, seeded_arena):
    url = product_url("hatchet")
    form = page_form(editor, url, "product_form", tier="free")
    page_form(editor, url, "product_form")  # opened again, not saved
    assert editor.post(url, form).status_code == 302
    assert Product.objects.get(slug="hatchet").tier == "free"


def test_two_editors_change_the_same_product_field(editor, seeded_arena):
    url = product_url("hatchet")
    stale = page_form(editor, url, "product_form", tier="paid")
    assert editor.post(url, page_form(editor, url, "product_form", tier="oss")).status_code == 302
    refused = editor.post(url, stale)
    assert refused.status_code == 200 and "tier is now oss" in refused.content.decode()
    assert Product.objects.get(slug="hatchet").tier == "oss"


@pytest.mark.parametrize(
    "url",
    [
        "/admin/flags/reviewitem/abc/change/",
        "/admin/stories/cell/abc/change/",
        "/admin/stories/story/1%20or%201/change/",
    ],
)
def test_a_non_numeric_admin_id_is_not_a_server_error(editor, url):
    assert editor.get(url).status_code in (302, 404)


@pytest.fixture
def foreign_category(seeded_arena):
    return CategoryFactory()  # of another arena


def test_a_story_cannot_move_to_a_category_of_another_arena(editor, story, foreign_category):
    response = editor.post(
        story_url(story),
        page_form(editor, story_url(story), "story_form", category=foreign_category.pk),
    )
    assert response.status_code == 200
    assert "Choose a category of this story" in response.content.decode()
    story.refresh_from_db()
    assert story.category.arena_id == story.arena_id


def test_a_new_story_cannot_take_a_category_of_another_arena(editor, story, foreign_category):
    add = page_form(
        editor, ADD_STORY, "story_form",
        arena=story.arena_id, category=foreign_category.pk, persona=story.persona_id,
        text="A new story in the wrong category", weight=1, position=99,
    )  # fmt: skip
    response = editor.post(ADD_STORY, add)
    assert response.status_code == 200
    assert "Choose a category of this story" in response.content.decode()
    assert not Story.all_objects.filter(text="A new story in the wrong category").exists()


def test_an_admin_added_story_with_control_characters_is_refused_with_the_reason(editor, story):
    # a story's text is one line (it reaches mail subjects and logs): refused, as an arena file is
    add = page_form(
        editor, ADD_STORY, "story_form",
        arena=story.arena_id, category=story.category_id, persona=story.persona_id,
        text="ctrl\x1b\x07 text of a new story", weight=1, position=99,
    )  # fmt: skip
    response = editor.post(ADD_STORY, add)
    assert response.status_code == 200
    assert "A name is one line: remove the line break or control character U+001B." in (
        response.content.decode()
    )
    assert not Story.all_objects.filter(text__contains="text of a new story").exists()


def test_a_product_position_is_bounded(editor, seeded_arena):
    url = product_url("dbos")
    response = editor.post(url, page_form(editor, url, "product_form", position=2147483000))
    assert response.status_code == 200
    assert "less than or equal to 1000000" in response.content.decode()
