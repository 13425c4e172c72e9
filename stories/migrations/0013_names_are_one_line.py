"""Names and titles are one line (arena.text.validate_one_line)."""


import arena.text
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('stories', '0012_stored_addresses_are_uris'),
    ]

    operations = [
        migrations.AlterField(
            model_name='story',
            name='text',
            field=models.CharField(max_length=500, validators=[arena.text.validate_one_line]),
        ),
    ]
