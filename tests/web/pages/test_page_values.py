"""Values the pages write: dates read back as written, the matrix's category links keeping the
page's query."""

from __future__ import annotations

from datetime import date
from urllib.parse import parse_qsl

import pytest
from django.utils.http import urlencode
from hypothesis import given, settings
from hypothesis import strategies as st

from stories.models import Cell
from tests.factories import CellFactory
from web.pages.links import matrix_category_urls


@pytest.mark.django_db
def test_dates_read_back_are_the_dates_written():
    days = [date(2026, 3, 1), date(2026, 3, 1), date(2025, 12, 31), None]
    pks = [CellFactory(evidence_as_of=day).pk for day in days]
    read = dict(Cell.objects.filter(pk__in=pks).values_list("pk", "evidence_as_of"))
    assert [read[pk] for pk in pks] == days
    assert all(isinstance(read[pk], date) for pk in pks[:3])


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)


@settings(deadline=None)  # (the first example loads the URL patterns)
@given(st.dictionaries(st.text("abcdefghij", min_size=1, max_size=6), _TEXT, max_size=4), _TEXT)
def test_a_category_link_keeps_the_page_s_query_and_adds_its_own(page_query, category):
    url = matrix_category_urls("arena", page_query, category)[0]
    path, _, written = url.partition("?")
    assert path.endswith("/arenas/arena/")
    pairs = parse_qsl(written, keep_blank_values=True)
    assert pairs == [*page_query.items(), ("fold", category)]
    assert (
        written
        == f"{urlencode(page_query)}{'&' if page_query else ''}{urlencode({'fold': category})}"
    )
    rows = matrix_category_urls("arena", page_query, category)[1]
    assert rows.partition("?")[2] == (
        "&".join(p for p in [urlencode(page_query), urlencode({"category": category})] if p)
    )
