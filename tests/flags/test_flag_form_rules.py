"""The HTML flag form reports the rules of ``flags.forms`` that the service checks, per field."""

import pytest
from django.test import Client
from django.urls import reverse

from flags.forms import CONTROL_MESSAGE
from flags.models import Flag
from stories.models import Cell

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


@pytest.mark.django_db
def test_a_control_character_in_the_source_url_is_named_on_the_form(cell):
    response = Client().post(
        reverse("flag-create", args=[cell.pk]),
        {
            "reason": "wrong_verdict",
            "explanation": EXPLANATION,
            "source_url": "https://e.com/\x1b[31m",
        },
    )
    assert response.status_code == 400
    assert response.context["form"].errors == {"source_url": [CONTROL_MESSAGE]}
    assert CONTROL_MESSAGE in response.content.decode() and not Flag.objects.exists()


@pytest.mark.django_db
def test_a_short_explanation_is_named_beside_a_missing_reason(cell):
    response = Client().post(reverse("flag-create", args=[cell.pk]), {"explanation": "short"})
    assert response.status_code == 400
    assert {"reason", "explanation"} <= set(response.context["form"].errors)
