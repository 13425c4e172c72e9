"""The leaderboard's and the "Best by user type" section's small lists, written by builders
rather than template loops: the same words, each name escaped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from web.pages.arena_cards import persona_names
from web.pages.leaderboard import persona_heads, tie_notes


def _result(slug: str, label: str) -> Any:
    return SimpleNamespace(persona=SimpleNamespace(slug=slug, label=label))


def test_persona_names_read_as_a_sentence():
    assert persona_names([]) == ""
    assert persona_names([_result("dev", "Developer")]) == (
        '<span class="nw">dev</span> (Developer)'
    )
    two = persona_names([_result("dev", "Developer"), _result("ops", "Ops & SRE")])
    assert two == (
        '<span class="nw">dev</span> (Developer) and <span class="nw">ops</span> (Ops &amp; SRE)'
    )
    three = persona_names([_result("a", "A"), _result("b", "B"), _result("c", "C")])
    assert three == (
        '<span class="nw">a</span> (A), <span class="nw">b</span> (B) and '
        '<span class="nw">c</span> (C)'
    )


def test_persona_heads_mark_the_ranked_persona_only():
    board = cast(Any, SimpleNamespace(persona="ops", personas=["dev", "ops"]))
    html = persona_heads(board)
    assert html.count("<th ") == 2
    assert '<span class="col-kind">persona</span> dev</th>' in html
    assert (
        'aria-describedby="term-persona" aria-sort="descending"><span class="col-kind">'
        "persona</span> ops</th>" in html
    )
    assert html.count("aria-sort") == 1


def test_tie_notes_name_each_group_of_tied_rows():
    def row(name: str) -> Any:
        return SimpleNamespace(product=SimpleNamespace(name=name))

    board = cast(
        Any,
        SimpleNamespace(
            label="PA <Score>",
            ties=[(2, [row("A"), row("B & co")], "verified share"), (5, [row("C")] * 3, "name")],
        ),
    )
    assert tie_notes(board) == (
        "<li>=2: A and B &amp; co tie on PA &lt;Score&gt;; listed by verified share.</li>"
        "<li>=5: C, C and C tie on PA &lt;Score&gt;; listed by name.</li>"
    )
