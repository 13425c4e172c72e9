"""Names and titles are one line (core.text.validate_one_line)."""

from django.db import migrations, models

import core.text


class Migration(migrations.Migration):
    dependencies = [
        ("products", "0007_evidence_and_ranking"),
    ]

    operations = [
        migrations.AlterField(
            model_name="product",
            name="name",
            field=models.CharField(max_length=120, validators=[core.text.validate_one_line]),
        ),
    ]
