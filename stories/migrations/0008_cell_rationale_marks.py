"""Two marks on a cell's rationale (whether it predates an upheld correction, or was rewritten with
one), and the marks of the cells corrected before they existed."""

from django.db import migrations, models


def mark_rationales_older_than_their_correction(apps, schema_editor):
    """A cell whose verdict or quality an upheld flag changed after its rationale was last written
    (no rewrite is known: never edited, or edited before the correction) keeps a rationale that
    predates the earliest such correction."""
    Cell = apps.get_model("stories", "Cell")
    CellChange = apps.get_model("stories", "CellChange")
    edited = dict(
        Cell.objects.filter(detail_edited_at__isnull=False).values_list("pk", "detail_edited_at")
    )
    earliest = {}
    corrections = (
        CellChange.objects.filter(kind="flag")
        .order_by("changed_at", "pk")
        .values_list("cell_id", "changed_at", "old_verdict", "new_verdict", "old_quality", "new_quality")
    )
    for cell_id, changed_at, old_v, new_v, old_q, new_q in corrections.iterator():
        if (old_v, old_q) == (new_v, new_q):  # upheld, values kept: the text still fits
            continue
        if cell_id in earliest:
            continue
        if cell_id in edited and edited[cell_id] >= changed_at:
            continue  # rewritten after this correction: a later one may still be older
        earliest[cell_id] = changed_at
    for cell_id, changed_at in earliest.items():
        Cell.objects.filter(pk=cell_id).update(rationale_predates=changed_at)


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0007_record_values_valid"),
    ]

    operations = [
        migrations.AddField(
            model_name="cell",
            name="rationale_predates",
            field=models.DateTimeField(
                blank=True,
                help_text="The rationale was written before the upheld correction of this date",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="cell",
            name="rationale_rewritten_at",
            field=models.DateTimeField(
                blank=True, help_text="When an upheld correction rewrote the rationale", null=True
            ),
        ),
        migrations.AddConstraint(
            model_name="cell",
            constraint=models.CheckConstraint(
                condition=models.Q(rationale_predates__isnull=True)
                | models.Q(rationale_rewritten_at__isnull=True)
                | models.Q(rationale_predates__gt=models.F("rationale_rewritten_at")),
                name="cell_rationale_predates_after_rewrite",
            ),
        ),
        migrations.RunPython(mark_rationales_older_than_their_correction, migrations.RunPython.noop),
    ]
