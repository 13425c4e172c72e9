"""Names and titles are one line (arena.text.validate_one_line)."""


import arena.text
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('products', '0007_evidence_and_ranking'),
    ]

    operations = [
        migrations.AlterField(
            model_name='product',
            name='name',
            field=models.CharField(max_length=120, validators=[arena.text.validate_one_line]),
        ),
    ]
