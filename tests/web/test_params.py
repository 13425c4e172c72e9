from django.http import QueryDict

from arena.selectors.matrix import MatrixFilters
from stories.values import Verdict
from web.params import matrix_filters


def test_filters_keep_a_known_verdict_and_drop_surrounding_spaces():
    filters = matrix_filters(QueryDict("verdict=+n/a+&q=++retries+"))
    assert (filters.verdict, filters.q, filters.active) == (Verdict.NA, "retries", True)


def test_filters_ignore_an_unknown_verdict():
    filters = matrix_filters(QueryDict("verdict=maybe"))
    assert (filters.verdict, filters.active) == ("", False)


def test_every_spelling_of_on_asks_for_stale_stories_and_reads_as_one():
    for value in ("1", "on", "TRUE", " yes "):
        assert matrix_filters(QueryDict(f"stale={value}")) == MatrixFilters(stale="1")
    assert matrix_filters(QueryDict("stale=no")) == MatrixFilters()
