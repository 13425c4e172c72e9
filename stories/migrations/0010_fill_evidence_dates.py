"""Existing evidence is dated by its arena's "Evidence as of" (the pages it was imported from),
and each cell's evidence_as_of is the newest of that date and of its upheld flags and admin
edits (stories/freshness.py has the rule)."""

from django.db import migrations
from django.utils import timezone


def fill_evidence_dates(apps, schema_editor):
    Arena = apps.get_model("arena", "Arena")
    Cell = apps.get_model("stories", "Cell")
    CellChange = apps.get_model("stories", "CellChange")
    Evidence = apps.get_model("stories", "Evidence")
    for arena_id, as_of in Arena.objects.values_list("id", "evidence_as_of"):
        if as_of is None:
            continue
        Evidence.objects.filter(cell__story__arena_id=arena_id, checked_on__isnull=True).update(
            checked_on=as_of
        )
        Cell.objects.filter(story__arena_id=arena_id, evidence_as_of__isnull=True).update(
            evidence_as_of=as_of
        )
    # a decision on the cell since (an upheld flag, an admin edit) is a newer check
    judged = {}
    for cell_id, at in CellChange.objects.filter(kind__in=("flag", "admin")).values_list(
        "cell_id", "changed_at"
    ):
        day = timezone.localtime(at).date() if timezone.is_aware(at) else at.date()
        judged[cell_id] = max(judged.get(cell_id, day), day)
    for cell_id, day in judged.items():
        cell = Cell.objects.filter(pk=cell_id).values_list("evidence_as_of", flat=True).first()
        if cell is None or cell < day:
            Cell.objects.filter(pk=cell_id).update(evidence_as_of=day)


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0005_product_score_sums"),
        ("stories", "0009_evidence_freshness"),
    ]

    operations = [migrations.RunPython(fill_evidence_dates, migrations.RunPython.noop)]
