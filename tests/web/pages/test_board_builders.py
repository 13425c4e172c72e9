"""The "Best by user type" section's list of user types, as the arena page's template writes
it: the same words, each name escaped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.template.loader import render_to_string


def persona_names(persona_results: list[Any]) -> str:
    context = {"persona_results": persona_results}
    return " ".join(render_to_string("arena/detail.html#persona_names", context).split())


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
