"""An import does what ``--check`` said: the check runs every rule the import runs (it is the
import, rolled back), so a file either passes both and imports, or both refuse it with the same
message naming the file and the value; a file's limits (size, text lengths, dates, one-line names)
hold for both; a new slug never updates the arena that holds the name."""

import copy
import io
import json
from datetime import date
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from arena import dataformat
from arena.imports.reading import TEXT_LIMITS
from arena.models import Arena
from products.models import Product
from products.services import product_update
from stories.models import Cell, Story
from tests.arena.test_arena_file import rolled_back
from tests.arena.test_import_clashes import state
from tests.arena.test_import_moderation import reworded

EXAMPLE = Path(settings.BASE_DIR) / "docs" / "example-arena.json"

pytestmark = pytest.mark.django_db


def example() -> dict:
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def write(path: Path, doc: dict) -> Path:
    # escaped (ensure_ascii): a lone surrogate is written as JSON allows it, "\ud800"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def run(path: Path, *options: str) -> tuple[str, str | None]:
    """What ``import_arena_json`` prints, and its error (None when it succeeded)."""
    out = io.StringIO()
    try:
        call_command("import_arena_json", str(path), *options, stdout=out)
    except CommandError as exc:
        return out.getvalue(), str(exc)
    return out.getvalue(), None


def both_refuse(path: Path) -> str:
    """``--check`` and the import refuse the file with the same message, and nothing changes."""
    before = state()
    _, checked = run(path, "--check")
    assert checked is not None, "--check passed a file"
    assert state() == before
    _, imported = run(path)
    assert imported == checked
    assert state() == before, "a refused import changed the database"
    return checked


@pytest.fixture
def wikis(tmp_path) -> Arena:
    assert run(write(tmp_path / "first.json", example()))[1] is None
    return Arena.objects.get(slug="team-wikis")


# ---------------------------------------------------------------- refused at parse time


def test_a_lone_surrogate_in_a_rationale_is_refused_by_check_and_import(tmp_path):
    doc = example()
    doc["cells"][0]["rationale"] = "half a pair: \ud800 here"
    path = write(tmp_path / "surrogate.json", doc)
    assert "\\ud800" in path.read_text(encoding="utf-8")
    message = both_refuse(path)
    assert message.startswith(f"{path}: /cells/0/rationale (line ")
    assert message.endswith("holds a lone surrogate U+D800 at position 13")
    assert not Arena.objects.exists()


@pytest.mark.parametrize("name", ["Quill\r\nbase", "Quill\nbase", "Quill\x00base", "Quill\tbase"])
def test_a_line_break_or_control_in_a_product_name_is_refused(tmp_path, name):
    doc = example()
    doc["products"][0]["name"] = name
    message = both_refuse(write(tmp_path / "crlf.json", doc))
    assert ": /products/0/name (line " in message
    assert f"holds the control character U+{ord(name[5]):04X} at position 5" in message
    assert not Product.all_objects.exists()


@pytest.mark.parametrize(
    ("where", "key"),
    [(("arena",), "name"), (("stories", 0), "text"), (("sources", 0), "title")],
)
def test_every_name_and_title_is_one_line(tmp_path, where, key):
    doc = example()
    holder = doc
    for step in where:
        holder = holder[step]
    holder[key] = "two\nlines"
    message = both_refuse(write(tmp_path / "line.json", doc))
    pointer = "/" + "/".join(str(s) for s in (*where, key))
    assert f"{pointer} (line " in message
    assert message.endswith("U+000A at position 3 (names and titles are one line)")


def test_long_texts_keep_their_tabs_and_line_breaks_but_no_other_control(wikis, tmp_path):
    doc = example()
    doc["cells"][0]["rationale"] = "First paragraph.\n\n\tIndented second."
    doc["cells"][0]["evidence"][0]["quote"] = "a quote\nover two lines"
    assert run(write(tmp_path / "ok.json", doc))[1] is None
    cell = Cell.objects.get(story__text=doc["stories"][0]["text"], product__slug="quillbase")
    assert cell.rationale == "First paragraph.\n\n\tIndented second."
    doc["cells"][0]["rationale"] = "a carriage\rreturn"
    message = both_refuse(write(tmp_path / "cr.json", doc))
    assert "/cells/0/rationale (line " in message
    assert message.endswith("): holds the control character U+000D at position 10")


@pytest.mark.parametrize(
    ("where", "pointer"),
    [
        (
            lambda d: d["products"][1].update(latest_release="2099-01-01"),
            "/products/1/latest_release",
        ),
        (
            lambda d: d["products"][0].update(first_release="2099-01-01"),
            "/products/0/first_release",
        ),
        (lambda d: d["sources"][1].update(accessed="2099-01-01"), "/sources/1/accessed"),
        (lambda d: d["cells"][3].update(evidence_as_of="2099-01-01"), "/cells/3/evidence_as_of"),
        (lambda d: d["arena"].update(updated="2099-01-01"), "/arena/updated"),
    ],
)
def test_a_date_after_today_is_refused_naming_the_value(tmp_path, where, pointer):
    doc = example()
    where(doc)
    message = both_refuse(write(tmp_path / "future.json", doc))
    today = date.today()
    assert f"{pointer} (line " in message
    assert "): 2099-01-01 is after today (" in message
    assert message.endswith("; a file cannot be dated in the future")
    assert str(today.year) in message
    assert not Arena.objects.exists()


@pytest.mark.parametrize("field", ["rationale", "quote", "description"])
def test_a_text_longer_than_its_limit_is_refused(tmp_path, field):
    doc = example()
    label = {"rationale": "Cell.rationale", "quote": "Evidence.quote"}.get(
        field, "Arena.description"
    )
    limit = TEXT_LIMITS[label]
    target = {
        "rationale": doc["cells"][0],
        "quote": doc["cells"][0]["evidence"][0],
        "description": doc["arena"],
    }[field]
    target[field] = "x" * limit
    path = write(tmp_path / "long.json", doc)
    assert run(path, "--check")[1] is None  # the limit itself is fine
    target[field] = "x" * (limit + 1)
    message = both_refuse(write(path, doc))
    assert message.endswith(f"is {limit + 1} characters long; at most {limit} are allowed")


def test_the_schema_states_the_text_limits():
    schema = dataformat.schema()["properties"]
    cell = schema["cells"]["items"]["properties"]
    assert (
        schema["arena"]["properties"]["description"]["maxLength"]
        == TEXT_LIMITS["Arena.description"]
    )
    assert cell["rationale"]["maxLength"] == TEXT_LIMITS["Cell.rationale"]
    quote = cell["evidence"]["items"]["properties"]["quote"]
    assert quote["maxLength"] == TEXT_LIMITS["Evidence.quote"]


# ---------------------------------------------------------------- the file's size


def test_a_60_mb_file_is_refused_before_it_is_read_whole(tmp_path):
    path = tmp_path / "huge.json"
    text = json.dumps(example())
    with path.open("w", encoding="utf-8") as f:
        # a rationale of 60 MB: the file is sparse, so the test writes almost nothing
        f.write(text[: text.index('"rationale": "') + len('"rationale": "')])
        f.truncate(60 * 1024 * 1024)
    assert path.stat().st_size == 60 * 1024 * 1024 > settings.ARENA_IMPORT_MAX_BYTES
    message = both_refuse(path)
    assert message == (
        f"{path}: file is larger than {settings.ARENA_IMPORT_MAX_BYTES} bytes "
        "(ARENA_IMPORT_MAX_BYTES); nothing of it is read"
    )


def test_the_size_limit_is_a_setting_for_both_importers(tmp_path, seed_files):
    path = write(tmp_path / "ok.json", example())
    size = path.stat().st_size
    with override_settings(ARENA_IMPORT_MAX_BYTES=size - 1):
        assert both_refuse(path).endswith(
            f"file is larger than {size - 1} bytes (ARENA_IMPORT_MAX_BYTES); nothing of it is read"
        )
        with pytest.raises(CommandError, match="file is larger than .* nothing of it is read"):
            call_command("import_arena_pages", *seed_files, stdout=io.StringIO())
    with override_settings(ARENA_IMPORT_MAX_BYTES=size):
        assert run(path)[1] is None


# ---------------------------------------------------------------- clashes with the rows


def test_a_new_slug_with_the_name_of_another_arena_is_refused_naming_both(wikis, tmp_path):
    doc = example()
    doc["arena"]["slug"] = "wikis-two"
    # what the file would have done to the arena holding the name: retire a story
    doc["stories"].pop()
    doc["cells"] = [c for c in doc["cells"] if c["story"] != 4]
    message = both_refuse(write(tmp_path / "new-slug.json", doc))
    assert message.endswith(
        ": the arena name 'Team Wikis' already belongs to the arena 'team-wikis', and this "
        "file's slug is 'wikis-two'; give the arena its own slug and name (nothing was imported)"
    )
    assert not Story.all_objects.filter(retired_at__isnull=False).exists()
    assert not Arena.objects.filter(slug="wikis-two").exists()


def test_check_refuses_what_only_the_rows_refuse(wikis, tmp_path):
    product_update(product=Product.objects.get(slug="quillbase"), changes={"name": "Notable"})
    doc = example()
    doc["products"][1]["name"] = "Notable"
    message = both_refuse(write(tmp_path / "clash.json", doc))
    assert "product 'Notable' would take the name 'Notable' of the product 'Notable'" in message


def test_check_writes_nothing_and_schedules_nothing_but_says_what_the_import_would(wikis, tmp_path):
    doc = example()
    doc["cells"][0]["quality"] = 8
    path = write(tmp_path / "change.json", doc)
    version = Arena.objects.get(pk=wikis.pk).content_version
    out, error = run(path, "--check")
    assert error is None
    assert "a valid arena file: 'Team Wikis'" in out
    assert "Nothing was imported; the import would report:\n  cell: 1 changed" in out
    assert Arena.objects.get(pk=wikis.pk).content_version == version
    out, error = run(path)
    assert error is None and "  cell: 1 changed" in out


# ---------------------------------------------------------------- check and import agree

_LEAVES: list[tuple] = []


def _leaves(value, where=()) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, (*where, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _leaves(item, (*where, i))
    else:
        _LEAVES.append(where)


_leaves(example())


def _at(doc, where):
    for step in where:
        doc = doc[step]
    return doc


ODD = st.sampled_from(
    [
        "\ud800",
        "a\r\nb",
        "tab\there",
        "2099-01-01",
        "2026-02-30",
        "x" * 20_001,
        "team-wikis",
        "Team Wikis",
        "Other Wikis",
        "other",
        "quillbase",
        "Kite Notes",
        "Quillbase",
        "",
    ]
)
_TEXTS = [where for where in _LEAVES if isinstance(_at(example(), where), str)]
# mostly odd texts put where texts are (what a schema passes and only a later rule may refuse),
# sometimes any value anywhere
MUTATIONS = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(_TEXTS), ODD),
        st.tuples(
            st.sampled_from(_LEAVES),
            st.one_of(st.none(), st.integers(-3, 10**13), st.text(max_size=12), ODD),
        ),
    ),
    min_size=1,
    max_size=3,
)


@hsettings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(mutations=MUTATIONS)
def test_check_and_import_agree_on_any_mutated_file(wikis, tmp_path, mutations):
    """Over a database holding the example arena and another one: --check passes and the import
    succeeds, or both refuse with the same message and nothing changes."""
    doc = copy.deepcopy(example())
    for where, value in mutations:
        holder = doc
        for step in where[:-1]:
            holder = holder[step]
        holder[where[-1]] = value
    path = write(tmp_path / "mutated.json", doc)
    with rolled_back():
        Arena.objects.get_or_create(slug="other", defaults={"name": "Other Wikis"})
        before = state()
        _, checked = run(path, "--check")
        assert state() == before
        _, imported = run(path)
        assert imported == checked
        if imported is not None:
            assert state() == before


# ---------------------------------------------------------------- page dumps


def test_a_page_rationale_or_quote_over_its_limit_is_refused_at_its_line(
    seeded_arena, seed_files, tmp_path
):
    page = next(p for p in seed_files if Path(p).name.startswith("001_"))
    lines = Path(page).read_text(encoding="utf-8").split("\n")
    rationale, quote = lines[9].strip(), lines[11].strip()
    assert rationale.startswith("Trigger.dev's docs") and quote.startswith("• [claimed-docs] “")
    limit = TEXT_LIMITS["Cell.rationale"]
    paths = reworded(tmp_path, seed_files, rationale, "y" * (limit + 1))
    before = state()
    with pytest.raises(CommandError) as caught:
        call_command("import_arena_pages", *paths, stdout=io.StringIO())
    assert f"001_{Path(page).name[4:]}:10: rationale 'yyy" in str(caught.value)
    assert f"is {limit + 1} characters long; at most {limit} fit (Cell.rationale)" in str(
        caught.value
    )
    paths = reworded(tmp_path, seed_files, quote[18:-1], "z" * 5_001)
    with pytest.raises(CommandError, match=r":12: quote 'zzz.* at most 5000 fit"):
        call_command("import_arena_pages", *paths, stdout=io.StringIO())
    assert state() == before
