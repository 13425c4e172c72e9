"""The page parser reads the seeds and refuses malformed pages with FILE:LINE: reason."""

from pathlib import Path

import pytest

from arena.importer.parser import PageError, read_arena


def test_seed_overview_counts(seed_record):
    ov = seed_record.overview
    assert ov.name == "Durable Execution Engines"
    assert (ov.story_count, ov.cell_count) == (53, 318)
    assert ov.products == ("Temporal", "Inngest", "Trigger.dev", "Restate", "Hatchet", "DBOS")
    assert len(ov.stories) == 53
    assert [c.name for c in ov.categories][:3] == [
        "Agent workloads",
        "Agenticness",
        "Automation depth",
    ]
    assert ov.categories[0].blurb == "Agent workloads — stories about agent workloads in this arena"
    assert [a.name for a in ov.adjacent] == [
        "Workflow Automation",
        "Serverless & Developer Databases",
        "Agent Frameworks & SDKs",
        "Agent Sandboxes & Code Execution",
    ]
    assert ov.adjacent[3].shares == "Performance scale"


def test_seed_head_to_heads(seed_record):
    pages = {(c.a, c.b): c for c in seed_record.compares}
    assert {k: len(v.stories) for k, v in pages.items()} == {
        ("Inngest", "Hatchet"): 50,
        ("Trigger.dev", "Hatchet"): 50,
        ("Inngest", "Restate"): 51,
    }
    first = pages[("Inngest", "Hatchet")].stories[0]
    assert first.persona_label == "agent builder"
    assert first.weight == 3 and first.round == "Inngest"
    assert first.cells[0].evidence[0].source == "claimed-docs"
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
