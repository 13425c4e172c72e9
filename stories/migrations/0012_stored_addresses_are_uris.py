"""Every stored web address becomes a URI (core.uris): an evidence quote's, an arena source's, a
flag's and a product's. An address that is otherwise a valid http(s) address keeps its meaning with
its unsafe characters (quotes, spaces, control characters, non-ASCII) percent-encoded and its host in
IDNA form; one that is not (another scheme, no valid host) is emptied, which every one of these
fields allows (blank: no link). Addresses already valid are left as they are; reversing does nothing."""

from django.db import migrations

from core.uris import uri_fixed

FIELDS = [
    ("stories", "Evidence", "url"),
    ("arena", "Source", "url"),
    ("flags", "Flag", "source_url"),
    ("products", "Product", "website"),
    ("products", "Product", "repository"),
    ("products", "Product", "documentation"),
]


def fix_addresses(apps, schema_editor):
    for app, model_name, field in FIELDS:
        model = apps.get_model(app, model_name)
        # (the default manager of a historical model is a plain one: retired rows too)
        manager = model._meta.default_manager
        rows = manager.exclude(**{field: ""}).values_list("pk", field)
        for pk, url in rows.iterator():
            fixed = uri_fixed(url)
            if fixed != url:
                manager.filter(pk=pk).update(**{field: fixed})


class Migration(migrations.Migration):
    dependencies = [
        ("stories", "0011_edits_since_import"),
        ("arena", "0014_stored_matrix"),
        ("flags", "0009_notice"),
        ("products", "0007_evidence_and_ranking"),
    ]

    operations = [migrations.RunPython(fix_addresses, migrations.RunPython.noop)]
