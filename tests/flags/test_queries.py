"""Flag pages, the record and the moderators' API run a constant number of queries."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.clients import client_hash
from flags.models import Flag
from flags.services import flag_submit, flag_uphold
from stories.models import Cell

EXPLANATION = "A long enough explanation of what is wrong with this verdict."


def count(client, url) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_record_and_queue_queries_do_not_grow(seeded_arena, django_user_model):
    mod = django_user_model.objects.create_user("mod", password="pw", is_staff=True)
    mod.groups.add(Group.objects.get(name="Moderators"))
    c = Client()
    c.force_login(mod)
    cells = list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk"))

    def flag_and_uphold(cell, i):
        flag_submit(
            cell=cell, reason="other", explanation=EXPLANATION, client=client_hash(f"ip{i}")
        )
        flag_submit(
            cell=cell, reason="other", explanation=EXPLANATION, client=client_hash(f"ip{i}b")
        )
        flag_uphold(item=Flag.objects.filter(cell=cell).first().item, moderator=mod, note="ok")

    flag_and_uphold(cells[0], 0)
    flag_submit(cell=cells[1], reason="other", explanation=EXPLANATION, client=client_hash("p1"))
    urls = [
        "/changes/",
        "/changes/feed/",
        "/api/flags/?status=pending",
        "/api/flags/",
        "/admin/flags/reviewitem/",
    ]
    small = {u: count(c, u) for u in urls}
    small_status = count(Client(), Flag.objects.first().get_absolute_url())
    for i, cell in enumerate(cells[2:22], start=2):
        flag_and_uphold(cell, i)
        flag_submit(
            cell=cells[i + 40],
            reason="wrong_quality",
            explanation=EXPLANATION,
            client=client_hash(f"q{i}"),
        )
    large = {u: count(c, u) for u in urls}
    assert large == small, (small, large)
    assert count(Client(), Flag.objects.last().get_absolute_url()) == small_status
