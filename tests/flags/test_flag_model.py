"""The Flag row: the database refuses a proposal no cell could hold, and a flag names what it
proposes the way the record names a judgement."""

import pytest
from django.db import IntegrityError, transaction

from flags.models import Flag
from stories.values import QUALITY_MAX, Verdict
from tests.factories import FlagFactory


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fields",
    [{"proposed_verdict": "bogus"}, {"proposed_quality": QUALITY_MAX + 1}],
)
def test_the_database_refuses_a_proposal_no_cell_could_hold(fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        FlagFactory(**fields)


@pytest.mark.django_db
def test_the_database_accepts_a_flag_proposing_nothing():
    FlagFactory(proposed_verdict="", proposed_quality=None)
    assert Flag.objects.count() == 1


@pytest.mark.parametrize(
    "verdict, quality, label",
    [
        (Verdict.PARTIAL, 5, "partial 5/10"),
        (Verdict.FULL, None, "full"),
        ("", 5, "verdict unchanged, 5/10"),
        ("", None, ""),
    ],
)
def test_a_flag_names_its_proposal_as_sent(verdict, quality, label):
    assert Flag(proposed_verdict=verdict, proposed_quality=quality).proposal_label == label
