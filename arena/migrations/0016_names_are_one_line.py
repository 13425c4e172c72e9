"""Names and titles are one line (core.text.validate_one_line)."""

from django.db import migrations, models

import core.text


class Migration(migrations.Migration):
    dependencies = [
        ("arena", "0015_cache_epoch"),
    ]

    operations = [
        migrations.AlterField(
            model_name="adjacentarena",
            name="leader",
            field=models.CharField(max_length=120, validators=[core.text.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="adjacentarena",
            name="name",
            field=models.CharField(max_length=200, validators=[core.text.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="arena",
            name="name",
            field=models.CharField(
                max_length=200, unique=True, validators=[core.text.validate_one_line]
            ),
        ),
        migrations.AlterField(
            model_name="category",
            name="name",
            field=models.CharField(max_length=120, validators=[core.text.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="persona",
            name="label",
            field=models.CharField(max_length=120, validators=[core.text.validate_one_line]),
        ),
        migrations.AlterField(
            model_name="source",
            name="title",
            field=models.CharField(
                blank=True, max_length=300, validators=[core.text.validate_one_line]
            ),
        ),
        migrations.AlterField(
            model_name="subgroup",
            name="name",
            field=models.CharField(max_length=120, validators=[core.text.validate_one_line]),
        ),
    ]
