"""Property: `import_arena_pages` never crashes on mutated seed pages.

Hypothesis copies the four seed pages, applies a drawn list of mutations (lines deleted, duplicated,
swapped, text / control characters / huge digit runs inserted, names renamed or lengthened on one page or
on all of them, rows duplicated, the file truncated, bytes that are not UTF-8 …) and runs the command.
Every outcome must be a clean import or a ``CommandError`` that starts with ``FILE:LINE:`` (one of the
files, a line inside it); nothing else may be raised, and a failed import must leave every table of the
arena, products, stories and flags apps as it was. Each example runs in a savepoint that is rolled back,
so every example starts from the same database: empty, or holding the seed arena (the re-import path).

Bounded and deterministic (``derandomize=True``): 2 × 200 examples take about 13 s on one core of a
busy 2-core machine. The figures of a run (examples, clean imports, FILE:LINE errors) are printed
(``pytest -s``) and, with ``--hypothesis-show-statistics``, listed as events.
"""

from __future__ import annotations

import collections
import io
import os
import re
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import TestCase
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.long

SEED_DIR = Path(__file__).resolve().parents[2] / "arena" / "data" / "seeds"
SEEDS = {p.name: p.read_text(encoding="utf-8") for p in sorted(SEED_DIR.glob("*.txt"))}
NAMES = list(SEEDS)  # 000, 001, 002: head-to-head pages; 003: the overview page
OVERVIEW = next(n for n in NAMES if n.startswith("003"))

SNAPSHOT_APPS = ("arena", "products", "stories", "flags")

# Examples per test (two tests: empty database, seeded database). Outside CI, ARENA_FUZZ_EXAMPLES=3000
# explores further, and ARENA_FUZZ_SEED=N elsewhere.
EXAMPLES = int(os.environ.get("ARENA_FUZZ_EXAMPLES", "200"))


# ---------------------------------------------------------------- mutations

# Lines worth aiming at: (file, text the line contains). None = any line of any file.
TARGETS = [
    (OVERVIEW, " arena"),  # the title and the adjacent arenas
    (OVERVIEW, "user stories ·"),
    (OVERVIEW, "| 1 |"),
    (OVERVIEW, "| 3 |"),
    (OVERVIEW, "★"),
    (OVERVIEW, "| Story | Persona |"),
    (OVERVIEW, "| fullX"),
    (OVERVIEW, "/10 |"),
    (OVERVIEW, " — "),  # category headings
    (OVERVIEW, "Best for"),
    (OVERVIEW, "/100"),
    (OVERVIEW, "products · leader"),
    (OVERVIEW, "shares:"),
    (NAMES[0], " vs "),
    (NAMES[1], "weight "),
    (NAMES[2], "   • ["),
    (NAMES[0], "/10"),
    (NAMES[1], ". "),
    (NAMES[2], "proof ↗⚑ flag"),
    None,
]

# Names the pages repeat (products, arena, categories, sub-groups, personas, adjacent arenas, …).
RENAMEABLE = [
    "Temporal",
    "Inngest",
    "Trigger.dev",
    "Restate",
    "Hatchet",
    "DBOS",
    "Durable Execution Engines",
    "Agent workloads",
    "Human in the loop",
    "Agent loops",
    "Approvals",
    "agent-builder",
    "agent builder",
    "ai-native",
    "Workflow Automation",
    "Agent Sandboxes & Code Execution",
    "Windmill",
    "Performance scale",
    "free-tier",
    "claimed-docs",
    "I run LLM agent loops as durable workflows",
]

CONTROL = [chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, 0x0D, 0x1B, 0x1F, 0x7F, 0x85, 0x9F)]
SPECIALS = [
    " | ",
    "|",
    " · ",
    " — ",
    "★ ",
    "★ 1.2.3k",
    "k",
    "M",
    "/10",
    "/100",
    " arena",
    "\n",
    "\t",
    "\u2028",
    "\ufeff",
    "\udcff",  # written as the byte 0xff: not UTF-8
    *CONTROL,
]
DIGIT_RUNS = [
    "0",
    "00",
    "4",
    "11",
    "101",
    "2147483648",
    "9223372036854775808",
    "9" * 40,
    "9" * 5000,
]

junk = st.lists(
    st.one_of(st.characters(codec="utf-8"), st.sampled_from(SPECIALS)), min_size=1, max_size=8
).map("".join)


@dataclass(frozen=True)
class Pick:
    """A line: the n-th (modulo) of those matching the target."""

    target: int
    n: int


picks = st.builds(Pick, st.integers(0, len(TARGETS) - 1), st.integers(0, 10**6))


def _resolve(files: dict[str, list[str]], pick: Pick) -> tuple[str, int]:
    target = TARGETS[pick.target]
    if target is not None:
        name, needle = target
        hits = [i for i, line in enumerate(files[name]) if needle in line]
        if hits:
            return name, hits[pick.n % len(hits)]
    name = NAMES[pick.n % len(NAMES)]
    return name, (pick.n // len(NAMES)) % len(files[name])


mutations = st.one_of(
    st.tuples(st.just("delete"), picks),
    st.tuples(st.just("duplicate"), picks),
    st.tuples(st.just("duplicate2"), picks),  # the line and the next (an adjacent arena's rows)
    st.tuples(st.just("swap"), picks, st.integers(-3, 3)),
    st.tuples(st.just("insert"), picks, st.integers(0, 10**4), junk),
    st.tuples(st.just("digits"), picks, st.integers(0, 20), st.sampled_from(DIGIT_RUNS)),
    st.tuples(st.just("lengthen"), picks, st.sampled_from([1, 41, 121, 201, 301, 501])),
    st.tuples(st.just("truncate"), st.sampled_from(NAMES), st.floats(0, 1)),
    st.tuples(
        st.just("rename"),
        st.sampled_from(RENAMEABLE),
        st.one_of(
            st.sampled_from(RENAMEABLE),  # a duplicate
            st.sampled_from(["upper", "lower", "hyphens", "dots", "dot"]),  # the same slug
            st.sampled_from(["!!!", "—", "日本語", "", " "]),  # no slug
            st.integers(1, 600),  # lengthened by this many characters
            junk,
        ),
        st.booleans(),  # on every page, or on one
        st.integers(0, 3),
    ),
)


def _mutate(files: dict[str, list[str]], mutation: tuple) -> None:
    kind = mutation[0]
    if kind == "rename":
        _, old, new, everywhere, which = mutation
        if isinstance(new, int):
            new = old + "x" * new
        else:
            new = {
                "upper": old.upper(),
                "lower": old.lower(),
                "hyphens": old.replace(" ", "-"),
                "dots": old.replace(" ", "."),
                "dot": old + ".",
            }.get(new, new)
        names = NAMES if everywhere else [NAMES[which]]
        for name in names:
            files[name] = "\n".join(files[name]).replace(old, new).split("\n")
        return
    if kind == "truncate":
        _, name, fraction = mutation
        text = "\n".join(files[name])
        files[name] = text[: int(len(text) * fraction)].split("\n")
        return
    name, i = _resolve(files, mutation[1])
    lines = files[name]
    line = lines[i]
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, line)
    elif kind == "duplicate2":
        lines[i:i] = lines[i : i + 2]
    elif kind == "swap":
        j = max(0, min(len(lines) - 1, i + mutation[2]))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == "insert":
        pos = mutation[2] % (len(line) + 1)
        lines[i : i + 1] = (line[:pos] + mutation[3] + line[pos:]).split("\n")
    elif kind == "digits":
        runs = list(re.finditer(r"[0-9]+", line))
        if runs:
            run = runs[mutation[2] % len(runs)]
            lines[i] = line[: run.start()] + mutation[3] + line[run.end() :]
    elif kind == "lengthen":
        # the first name-like run of letters in the line grows
        m = re.search(r"[A-Za-z][A-Za-z .&-]*", line)
        if m:
            lines[i] = line[: m.end()] + "y" * mutation[2] + line[m.end() :]


# ---------------------------------------------------------------- the property


def snapshot() -> dict[str, list[dict]]:
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for label in SNAPSHOT_APPS
        for model in apps.get_app_config(label).get_models()
    }


class _Rollback(Exception):
    pass


def _check_one(muts: list[tuple], tally: collections.Counter) -> None:
    files = {name: text.split("\n") for name, text in SEEDS.items()}
    for mutation in muts:
        _mutate(files, mutation)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, lines in files.items():
            path = Path(tmp) / name
            path.write_bytes("\n".join(lines).encode("utf-8", "surrogateescape"))
            paths.append(str(path))
        before = snapshot()
        try:
            with transaction.atomic():
                try:
                    # the recomputation the import schedules runs too, as it does in-process when no
                    # broker is configured
                    with TestCase.captureOnCommitCallbacks(execute=True):
                        call_command("import_arena_pages", *paths, stdout=io.StringIO())
                except CommandError as exc:
                    message = str(exc)
                    m = re.match(r"(.+?):([0-9]+): \S", message)
                    assert m and m.group(1) in paths, f"not FILE:LINE: reason: {message!r}"
                    count = Path(m.group(1)).read_bytes().count(b"\n") + 1
                    assert 1 <= int(m.group(2)) <= count, f"line outside the file: {message!r}"
                    assert snapshot() == before, f"a failed import changed the database: {message}"
                    tally["FILE:LINE error"] += 1
                    event("FILE:LINE error")
                else:
                    tally["clean import"] += 1
                    event("clean import")
                raise _Rollback  # every example starts from the same database
        except _Rollback:
            pass
        tally["examples"] += 1


FUZZ_SEED = os.environ.get("ARENA_FUZZ_SEED")


def fuzz(prop):
    """The property over drawn lists of mutations, bounded and deterministic."""
    prop = given(muts=st.lists(mutations, min_size=1, max_size=4))(prop)
    prop = settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=FUZZ_SEED is None,
        database=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )(prop)
    if FUZZ_SEED is None:
        return prop
    return seed(int(FUZZ_SEED) + zlib.crc32(prop.__name__.encode()))(prop)


def _report(where: str, tally: collections.Counter) -> None:
    print(
        f"\n{where}: {tally['examples']} examples: {tally['clean import']} clean imports, "
        f"{tally['FILE:LINE error']} FILE:LINE errors"
    )
    assert tally["examples"] == tally["clean import"] + tally["FILE:LINE error"]
    assert tally["clean import"] and tally["FILE:LINE error"]  # both outcomes are exercised


# Each property is defined inside its test so that it can count outcomes; the two differ in name, so
# that derandomize gives each its own examples.


@pytest.mark.django_db
def test_mutated_pages_into_an_empty_database():
    tally: collections.Counter = collections.Counter()

    @fuzz
    def import_into_an_empty_database(muts):
        _check_one(muts, tally)

    import_into_an_empty_database()
    _report("empty database", tally)


def test_mutated_pages_over_the_seed_arena(seeded_arena):
    tally: collections.Counter = collections.Counter()

    @fuzz
    def import_over_the_seed_arena(muts):
        _check_one(muts, tally)

    import_over_the_seed_arena()
    _report("seeded database", tally)
