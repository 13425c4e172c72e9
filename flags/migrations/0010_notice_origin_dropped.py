"""A notice no longer keeps the filing request's origin: mails name SITE_URL or the first of
ALLOWED_HOSTS (flags.origin), never a request's Host."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('flags', '0009_notice'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='notice',
            name='origin',
        ),
    ]
