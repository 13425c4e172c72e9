"""``/llms.txt`` as llmstxt.org's reference parser (``llms_txt.parse_llms_file``) reads it: the
title, the summary, and every section a list of ``- [title](url): notes`` links that all answer."""

from __future__ import annotations

import pytest
from llms_txt import parse_llms_file

pytestmark = [pytest.mark.django_db, pytest.mark.long]


@pytest.mark.parametrize("size", ["seeded_arena", "big_arena"])
def test_llms_txt_parses_with_the_reference_parser(client, request, size):
    arena = request.getfixturevalue(size)
    text = client.get("/llms.txt").content.decode()
    parsed = parse_llms_file(text)
    assert parsed.title == "Arena"
    assert parsed.summary.startswith("Evidence-backed comparisons")
    assert "PA Score" in parsed.info
    assert list(parsed.sections) == ["Arenas", "API", "Optional"]
    # every line of every section is a link the parser read whole: its title, address and notes
    for name, items in parsed.sections.items():
        body = text.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert len(items) == body.count("\n- "), name
        for item in items:
            assert item["title"] and item["url"].startswith("http://testserver/"), item
            assert item["desc"], item
            response = client.get(item["url"].removeprefix("http://testserver"))
            assert response.status_code == 200, item
    titles = [item["title"] for item in parsed.sections["Arenas"]]
    assert titles == [arena.name]


def test_llms_txt_parses_with_no_arena(client, db):
    parsed = parse_llms_file(client.get("/llms.txt").content.decode())
    assert parsed.sections["Arenas"] == []
    assert [item["title"] for item in parsed.sections["API"]] == ["API summary"]
