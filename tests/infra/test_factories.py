"""The factories make valid rows: what a single-object test builds on must pass every rule."""

import pytest

from core.moderators import user_can_moderate
from stories.values import CellValue, CellValueError, Verdict
from tests.factories import (
    CellChangeFactory,
    CellFactory,
    EvidenceFactory,
    FlagFactory,
    ModeratorFactory,
    SubGroupFactory,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("trait", [None, "partial", "disputed", "none", "na"])
def test_cells_are_valid_cells(trait):
    cell = CellFactory(**({trait: True} if trait else {}))
    assert CellValue.of(cell).errors() == {}
    assert cell.product.arena_id == cell.story.arena_id == cell.story.category.arena_id


def test_an_invalid_cell_is_refused_before_the_database():
    with pytest.raises(CellValueError):
        CellFactory(verdict=Verdict.NONE, quality=4)


@pytest.mark.parametrize(
    "factory", [CellChangeFactory, EvidenceFactory, FlagFactory, SubGroupFactory]
)
def test_rows_pass_their_model_validation(factory):
    factory().full_clean()


def test_a_flag_is_on_its_review_items_cell():
    flag = FlagFactory()
    assert flag.cell_id == flag.item.cell_id and flag.item.status == "pending"


def test_a_moderator_is_staff_in_the_moderators_group():
    user = ModeratorFactory()
    assert user.is_staff and user.check_password("pw")
    assert user_can_moderate(user)
