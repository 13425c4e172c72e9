"""ProductScore keeps the two sums of the PA Score (the review queue previews an uphold from them).
Arenas scored before have none: their stored scores are marked out of date (``change_seq`` moves
past ``computed_seq``), so the periodic sweep recomputes them and fills the sums in; until then the
queue computes their preview from the arena's cells."""

from django.db import migrations, models
from django.db.models import F


def mark_scored_arenas_stale(apps, schema_editor):
    Arena = apps.get_model("arena", "Arena")
    ProductScore = apps.get_model("arena", "ProductScore")
    scored = ProductScore.objects.values("arena_id")
    Arena.objects.filter(pk__in=scored).update(change_seq=F("change_seq") + 1)


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0004_content_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="productscore",
            name="weighted_max",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.AddField(
            model_name="productscore",
            name="weighted_quality",
            field=models.PositiveIntegerField(null=True),
        ),
        migrations.RunPython(mark_scored_arenas_stale, migrations.RunPython.noop),
    ]
