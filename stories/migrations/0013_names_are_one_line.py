"""Names and titles are one line (core.text.validate_one_line)."""

from django.db import migrations, models

import core.text


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0012_stored_addresses_are_uris"),
    ]

    operations = [
        migrations.AlterField(
            model_name="story",
            name="text",
            field=models.CharField(max_length=500, validators=[core.text.validate_one_line]),
        ),
    ]
