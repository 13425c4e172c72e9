"""The page parser reads the seeds and refuses malformed pages with FILE:LINE: reason."""

from pathlib import Path

import pytest
from django.apps import apps

from arena.imports.pages import read_arena
from arena.imports.reading import PageError
from stories.values import CellValue, CellValueError, Proof, Verdict, parse_quality


def test_seed_overview_counts(seed_record):
    ov = seed_record.overview
    assert ov.name == "Durable Execution Engines"
    assert (len(ov.stories), len(ov.stories) * len(ov.products)) == (53, 318)


def test_seed_overview_products_in_matrix_order(seed_record):
    assert seed_record.overview.products == (
        "Temporal",
        "Inngest",
        "Trigger.dev",
        "Restate",
        "Hatchet",
        "DBOS",
    )


def test_seed_overview_categories_with_their_blurbs(seed_record):
    categories = seed_record.overview.categories
    assert [c.name for c in categories][:3] == [
        "Agent workloads",
        "Agenticness",
        "Automation depth",
    ]
    assert categories[0].blurb == "Agent workloads — stories about agent workloads in this arena"


def test_seed_overview_matrix_cells_are_cell_values(seed_record):
    story = seed_record.overview.stories[1]
    assert dict(story.cells)["DBOS"] == CellValue(Verdict.PARTIAL, Proof.PROBED, 7)


def test_seed_overview_adjacent_arenas(seed_record):
    adjacent = seed_record.overview.adjacent
    assert [a["name"] for a in adjacent] == [
        "Workflow Automation",
        "Serverless & Developer Databases",
        "Agent Frameworks & SDKs",
        "Agent Sandboxes & Code Execution",
    ]
    assert adjacent[3]["shares"] == "Performance scale"


def test_seed_head_to_heads_list_their_stories(seed_record):
    pages = {(c.a, c.b): c for c in seed_record.compares}
    assert {k: len(v.stories) for k, v in pages.items()} == {
        ("Inngest", "Hatchet"): 50,
        ("Trigger.dev", "Hatchet"): 50,
        ("Inngest", "Restate"): 51,
    }


def test_seed_head_to_head_story_in_detail(seed_record):
    pages = {(c.a, c.b): c for c in seed_record.compares}
    first = pages[("Inngest", "Hatchet")].stories[0]
    assert first.persona_label == "agent builder"
    assert first.weight == 3 and first.round == "Inngest"
    assert first.cells[0].value == CellValue(Verdict.FULL, Proof.COMMUNITY, 9)
    assert first.cells[0].evidence[0].source == "claimed-docs"


def test_seed_persona_label_may_add_a_word(seed_record):
    assert seed_record.persona_labels["ai-native"] == "ai-native user"


def _write(tmp_path: Path, seed_files, name: str, edit) -> list[str]:
    """Copy the seeds to tmp_path, applying edit(text) -> text to the file whose name starts with name."""
    out = []
    for src in seed_files:
        text = Path(src).read_text(encoding="utf-8")
        if Path(src).name.startswith(name):
            text = edit(text)
        dst = tmp_path / Path(src).name
        dst.write_text(text, encoding="utf-8")
        out.append(str(dst))
    return out


def _line_of(path: str, needle: str) -> int:
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), start=1):
        if needle in line:
            return i
    raise AssertionError(needle)


@pytest.mark.parametrize(
    ("name", "old", "new", "reason"),
    [
        (
            "003",
            "| fullX 9/10 | fullX 9/10 | fullX 8/10",
            "| greatX 9/10 | fullX 9/10 | fullX 8/10",
            "unknown verdict 'great'",
        ),
        (
            "003",
            "| fullX 9/10 | fullX 9/10 | fullX 8/10",
            "| fullX 90/10 | fullX 9/10 | fullX 8/10",
            "outside 0–10",
        ),
        ("000", "   Inngest✓fullcommunity9/10", "   Inngest✓fullcommunity90/10", "outside 0–10"),
        (
            "000",
            "Inngest vs Hatchet",
            "Inngest vs Windmill",
            "'Windmill' is not a product of the arena",
        ),
        (
            "003",
            "| agent-builder | fullX 9/10 | fullX 9/10 | fullX 8/10 | fullX 9/10 | fullC 7/10 | fullX 9/10 |",
            "| agent-builder | fullX 9/10 | fullX 9/10 | fullX 8/10 | fullX 9/10 | fullC 7/10 | fullX 9/10 | fullX 9/10 |",
            "a cell for a product the arena lacks",
        ),
        (
            "000",
            "   Inngest✓fullcommunity9/10",
            "   Inngest✓fullcommunity8/10",
            "disagrees with the matrix",
        ),
    ],
)
def test_malformed_pages_name_file_and_line(tmp_path, seed_files, name, old, new, reason):
    files = _write(tmp_path, seed_files, name, lambda t: t.replace(old, new, 1))
    target = next(f for f in files if Path(f).name.startswith(name))
    with pytest.raises(PageError) as exc:
        read_arena(files)
    assert exc.value.path == target
    assert exc.value.line == _line_of(
        target, new.strip().split(" | ")[0] if name == "003" else new.strip()
    )
    assert reason in str(exc.value)
    assert str(exc.value).startswith(f"{target}:{exc.value.line}: ")


def test_truncated_story_is_refused(tmp_path, seed_files):
    def cut(text: str) -> str:
        head, _, _ = text.partition("   weight 2 · round drawn")  # cut inside the second story
        return head.rstrip("\n")

    files = _write(tmp_path, seed_files, "000", cut)
    with pytest.raises(PageError) as exc:
        read_arena(files)
    assert "truncated" in exc.value.reason
    assert exc.value.path.endswith("000_dc2ceb96b23fbc0c.txt")


def test_round_that_breaks_the_rules_is_refused(tmp_path, seed_files):
    files = _write(
        tmp_path,
        seed_files,
        "000",
        lambda t: t.replace("weight 3 · round to Inngest", "weight 3 · round drawn", 1),
    )
    with pytest.raises(PageError, match="the rules give round to Inngest"):
        read_arena(files)


def test_no_overview_page(tmp_path, seed_files):
    with pytest.raises(PageError, match="no arena overview page"):
        read_arena([f for f in seed_files if not Path(f).name.startswith("003")])


# ---------------------------------------------------------------- input that used to crash the import
# Each case was a traceback (ValueError, OverflowError, IntegrityError) or a row the site cannot show;
# the parser now names the file and line. The line is that of the n-th line containing `needle` in the
# edited file; `{first}` in the reason is the line of the first such line.

LEADER_DBOS = (
    "| 2 | DBOS free-tier vs Temporal ↗ | 50/100 | 35/100 | 9/100 | 58/100 | 47/100 | "
    "★ 1.6k▲ 730/yrnpm 143.4k/wkpypi 529k/wk | 27/41 verified | 67/100 integrity | ||"
)
ADJACENT = "Workflow Automation arenaWorkflow Automation\n6 products · leader: Windmill"
ROW = "| Agent workloads — stories about agent workloads in this arenaI run LLM agent loops"
HEADER = "| Story | Persona |"


def _replace(old: str, new: str, count: int = 1):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, count)

    return edit


def _duplicate_row(text: str) -> str:
    """The first matrix row twice, with the story and cell counts raised to match."""
    row = next(line for line in text.split("\n") if line.startswith(ROW))
    text = text.replace(row, f"{row}\n{row}", 1)
    return text.replace("53 user stories · 318 judged cells", "54 user stories · 324 judged cells")


def _nth_line(path: str, needle: str, n: int = 1) -> int:
    hits = [
        i
        for i, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), start=1)
        if needle in line
    ]
    return hits[n - 1]


def _refusal(parse, text: str) -> str:
    """What a rule of ``stories.values`` says of ``text``."""
    with pytest.raises(CellValueError) as exc:
        parse(text)
    return str(exc.value)


D40, A40 = "D" * 40 + "…", "a" * 40 + "…"
STORY = "I run LLM agent loops as durable workflows — model and tool "  # the first 60 characters

# case: (file, edit, (needle, n), reason)
CRASHES = {
    "two products, one slug": (
        "003",
        _replace("Hatchet", "Trigger dev", -1),
        (HEADER, 1),
        "products 'Trigger.dev' and 'Trigger dev' have the same slug 'trigger-dev'",
    ),
    "a product without a slug": (
        "003",
        _replace("DBOS", "---", -1),
        (HEADER, 1),
        "product name '---' has no letters or digits to make a URL slug of",
    ),
    "an arena without a slug": (
        "003",
        _replace("Durable Execution Engines arenaDurable Execution Engines", "日本 arena日本"),
        ("日本 arena日本", 1),
        "arena name '日本' has no letters or digits to make a URL slug of",
    ),
    "an arena slug too long": (
        "003",
        _replace("Durable Execution Engines", "D" * 150, 2),
        ("D" * 150, 1),
        f"arena name '{D40}' gives a slug of 150 characters; at most 120 fit (Arena.slug)",
    ),
    "a persona slug too long": (
        "003",
        _replace("| agent-builder |", f"| {'a' * 81} |"),
        ("a" * 81, 1),
        f"persona '{A40}' is 81 characters long; at most 80 fit (Persona.slug)",
    ),
    "a figure with two dots": (
        "003",
        _replace("★ 23k", "★ 1.2.3k"),
        ("★ 1.2.3k", 1),
        "popularity figure '★ 1.2.3k': '1.2.3k' is not a figure like 730, 23k or 8.8M",
    ),
    "a figure past the column": (
        "003",
        _replace("npm 2M/wk", "npm 9223372036854.775808M/wk"),
        ("npm 9223372036854", 1),
        "popularity figure 'npm 9223372036854.775808M' is larger than 9223372036854775807 "
        "(Product.npm_weekly)",
    ),
    "a figure of 5000 digits": (
        "003",
        _replace("★ 23k", "★ " + "9" * 5000),
        ("★ 999", 1),
        f"popularity figure '★ {'9' * 38}…': a figure of 5000 characters is too long",
    ),
    "an adjacent product count past the column": (
        "003",
        _replace("6 products · leader: Windmill", "2147483648 products · leader: Windmill"),
        ("2147483648 products", 1),
        "adjacent arena product count '2147483648' is larger than 2147483647",
    ),
    "a story count of 5000 digits": (
        "003",
        _replace("53 user stories", "9" * 5000 + " user stories"),
        ("99999 user stories", 1),
        f"story count '{'9' * 20}…' is larger than 2147483647",
    ),
    "a quality of 5000 digits": (
        "000",
        _replace("   Inngest✓fullcommunity9/10", "   Inngest✓fullcommunity" + "9" * 5000 + "/10"),
        ("Inngest✓fullcommunity999", 1),
        _refusal(parse_quality, "9" * 5000 + "/10"),  # the cell rule's own words
    ),
    "a weight of 5000 digits": (
        "000",
        _replace("weight 3 · round to Inngest", "weight " + "3" * 5000 + " · round to Inngest"),
        ("weight 333", 1),
        f"story 1: weight {'3' * 20}… is outside 1–3",
    ),
    "an adjacent arena twice": (
        "003",
        _replace(ADJACENT, f"{ADJACENT}\n{ADJACENT}"),
        ("Workflow Automation arena", 2),
        "adjacent arena 'Workflow Automation' appears twice (first on line {first})",
    ),
    "a story twice": (
        "003",
        _duplicate_row,
        (ROW, 2),
        f"story '{STORY}' already appears on line {{first}}",
    ),
    "a category twice": (
        "003",
        _replace(
            "Human in the loop — stories about human in the loop in this arenaHuman in the loop",
            "Agent workloads — stories about human in the loop in this arenaAgent workloads",
        ),
        ("arenaAgent workloads", 2),
        "category 'Agent workloads' appears twice (first on line {first})",
    ),
    "a sub-group twice in one category": (
        "003",
        _replace("\nApi quality\n", "\nAgent access\n"),
        ("Agent access", 2),
        "sub-group 'Agent access' appears twice in category 'Agenticness' (first on line {first})",
    ),
    "a product twice in the matrix": (
        "003",
        _replace("| Temporal | Inngest |", "| Inngest | Inngest |", -1),
        (HEADER, 1),
        "product 'Inngest' appears twice in the matrix columns",
    ),
    "a product twice in the leaderboard": (
        "003",
        _replace(LEADER_DBOS, f"{LEADER_DBOS}\n{LEADER_DBOS}"),
        ("| 2 | DBOS", 2),
        "product 'DBOS' appears twice in the leaderboard (first on line {first})",
    ),
}


@pytest.mark.parametrize("case", list(CRASHES))
def test_input_that_crashed_the_import_names_file_and_line(tmp_path, seed_files, case):
    name, edit, (needle, n), reason = CRASHES[case]
    files = _write(tmp_path, seed_files, name, edit)
    target = next(f for f in files if Path(f).name.startswith(name))
    line, first = _nth_line(target, needle, n), _nth_line(target, needle)
    with pytest.raises(PageError) as exc:
        read_arena(files)
    assert str(exc.value) == f"{target}:{line}: {reason.format(first=first)}"


def _field_max(label: str) -> int:

    model, field = label.split(".")
    app = {"Product": "products", "Story": "stories", "Evidence": "stories"}.get(model, "arena")
    return apps.get_model(app, model)._meta.get_field(field).max_length


def _too_long(what: str, value: str, label: str) -> str:
    shown = value if len(value) <= 40 else value[:40] + "…"
    return f"{what} {shown!r} is {len(value)} characters long; at most {_field_max(label)} fit ({label})"


def _over(label: str, extra: int = 1) -> int:
    return _field_max(label) + extra


FIRST_STORY = (
    "I run LLM agent loops as durable workflows — model and tool calls as checkpointed, retried "
    "steps that survive crashes mid-run"
)

# case: (file, edit, line needle, reason); every text the import stores must fit its column
TOO_LONG = {
    "Arena.name": lambda: (
        "003",
        _replace("Durable Execution Engines", "D" * _over("Arena.name"), 2),
        "D" * 50,
        _too_long("arena name", "D" * _over("Arena.name"), "Arena.name"),
    ),
    "Category.name": lambda: (
        "003",
        _replace("Human in the loop", "H" * _over("Category.name"), -1),
        " — stories about human",
        _too_long("category name", "H" * _over("Category.name"), "Category.name"),
    ),
    "Category.blurb": lambda: (
        "003",
        _replace(
            "stories about human in the loop in this arena", "b" * _over("Category.blurb"), -1
        ),
        "bbbbbHuman in the loop",
        _too_long(
            "category blurb",
            "Human in the loop — " + "b" * _over("Category.blurb"),
            "Category.blurb",
        ),
    ),
    "SubGroup.name": lambda: (
        "003",
        _replace("\nApi quality\n", "\n" + "g" * _over("SubGroup.name") + "\n"),
        "g" * 50,
        _too_long("sub-group name", "g" * _over("SubGroup.name"), "SubGroup.name"),
    ),
    "Persona.label": lambda: (
        "000",
        _replace(
            "1. agent builderI run", "1. agent builder " + "x" * _over("Persona.label") + "I run"
        ),
        "x" * 50,
        _too_long(
            "persona label", "agent builder " + "x" * _over("Persona.label"), "Persona.label"
        ),
    ),
    "AdjacentArena.name": lambda: (
        "003",
        _replace(
            "Workflow Automation arenaWorkflow Automation",
            "W" * _over("AdjacentArena.name") + " arena" + "W" * _over("AdjacentArena.name"),
        ),
        "W" * 50,
        _too_long("adjacent arena name", "W" * _over("AdjacentArena.name"), "AdjacentArena.name"),
    ),
    "AdjacentArena.leader": lambda: (
        "003",
        _replace("leader: Windmill", "leader: " + "L" * _over("AdjacentArena.leader")),
        "L" * 50,
        _too_long(
            "adjacent arena leader", "L" * _over("AdjacentArena.leader"), "AdjacentArena.leader"
        ),
    ),
    "AdjacentArena.shares": lambda: (
        "003",
        _replace("shares: Performance scale", "shares: " + "s" * _over("AdjacentArena.shares")),
        "s" * 50,
        _too_long("shared category", "s" * _over("AdjacentArena.shares"), "AdjacentArena.shares"),
    ),
    "Product.name": lambda: (
        "003",
        _replace("DBOS", "P" * _over("Product.name"), -1),
        HEADER,
        _too_long("product name", "P" * _over("Product.name"), "Product.name"),
    ),
    "Product.tier": lambda: (
        "003",
        _replace("Temporalfree-tier", "Temporal" + "t" * _over("Product.tier")),
        "t" * 30,
        _too_long("tier", "t" * _over("Product.tier"), "Product.tier"),
    ),
    "Story.text": lambda: (
        "003",
        _replace("arenaI run LLM agent loops", "arena" + "s" * 500 + "I run LLM agent loops"),
        "s" * 50,
        _too_long(
            "story text",
            "s" * 500 + FIRST_STORY,
            "Story.text",
        ),
    ),
    "Evidence.source": lambda: (
        "002",
        _replace("[claimed-docs]", "[" + "c" * _over("Evidence.source") + "]"),
        "c" * 30,
        _too_long("evidence source", "c" * _over("Evidence.source"), "Evidence.source"),
    ),
}


@pytest.mark.parametrize("label", list(TOO_LONG))
def test_text_longer_than_its_column_names_file_and_line(tmp_path, seed_files, label):
    name, edit, needle, reason = TOO_LONG[label]()
    files = _write(tmp_path, seed_files, name, edit)
    target = next(f for f in files if Path(f).name.startswith(name))
    with pytest.raises(PageError) as exc:
        read_arena(files)
    assert str(exc.value) == f"{target}:{_nth_line(target, needle)}: {reason}"


def test_control_characters_are_stripped(tmp_path, seed_files, seed_record):
    def overview(text: str) -> str:
        text = text.replace("Agent workloads", "Agent\x07 workloads", 1)  # the first heading
        text = text.replace("arenaI run LLM agent", "arenaI run\x00 LLM\x85 agent\x7f", 1)
        text = text.replace("Durable execution engines —", "Durable\x1b execution\x9f engines —", 1)
        return text.replace("leader: Windmill", "leader: Wind\x0cmill")

    def head_to_head(text: str) -> str:
        text = text.replace("agent builderI run LLM", "agent\x01 builderI run LLM\x02", 1)
        return text.replace("[claimed-docs] “Every step", "[claimed\x08-docs] “Every step", 1)

    _write(tmp_path, seed_files, "003", overview)
    files = _write(tmp_path, seed_files, "000", head_to_head)
    record = read_arena(files)
    assert record.overview.name == seed_record.overview.name
    assert record.overview.description == seed_record.overview.description
    assert record.overview.categories == seed_record.overview.categories
    assert record.overview.stories == seed_record.overview.stories
    assert record.overview.adjacent == seed_record.overview.adjacent
    assert record.persona_labels == seed_record.persona_labels
    assert record.details == seed_record.details


def test_line_ends_do_not_matter(tmp_path, seed_files, seed_record):
    def crlf(text: str) -> str:
        text = text.replace("leader: Windmill", "leader: Windmill\r")  # a lone CR
        text = text.replace("[claimed-docs] “Every step", "[claimed-docs] “Every\r step", 1)
        return text.replace("\n", "\r\n")

    _write(tmp_path, seed_files, "003", crlf)
    files = _write(tmp_path, seed_files, "000", crlf)
    record = read_arena(files)
    assert record.overview.stories == seed_record.overview.stories
    assert record.overview.adjacent == seed_record.overview.adjacent
    assert record.details == seed_record.details


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_bytes_that_are_not_utf8_name_file_and_line(tmp_path, seed_files, bom):
    files = _write(tmp_path, seed_files, "001", lambda t: t)
    target = next(f for f in files if Path(f).name.startswith("001"))
    raw = bom + Path(target).read_bytes()
    at = raw.index(b"\n", raw.index(b"\n") + 1) + 3  # third line, third byte
    Path(target).write_bytes(raw[:at] + b"\xff" + raw[at:])
    with pytest.raises(PageError) as exc:
        read_arena(files)
    assert str(exc.value) == f"{target}:3: not UTF-8 text: invalid start byte (byte {at})"


def test_a_byte_order_mark_is_ignored(tmp_path, seed_files, seed_record):
    files = _write(tmp_path, seed_files, "003", lambda t: "\ufeff" + t)
    read = read_arena(files)
    assert [s.cells for s in read.overview.stories] == [
        s.cells for s in seed_record.overview.stories
    ]


def test_sub_groups_keep_their_initialisms_in_capitals(seeded_arena):
    from arena.models import SubGroup

    names = set(
        SubGroup.objects.filter(category__arena=seeded_arena).values_list("name", flat=True)
    )
    assert {"AI integrations", "API quality"} <= names
    assert not {"Ai integrations", "Api quality"} & names
