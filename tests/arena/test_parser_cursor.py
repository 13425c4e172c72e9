"""The line cursor the page parser reads with: errors name the file and the line being read."""

import pytest

from arena.imports.reading import Cursor, PageError
from stories.values import CellValue

LINES = ["title", "", "", "body", "last"]


def test_take_reads_the_next_line_and_numbers_it():
    cur = Cursor("page.txt", LINES)
    assert (cur.take(), cur.lineno, cur.line) == ("title", 1, "title")


def test_peek_does_not_move():
    cur = Cursor("page.txt", LINES)
    assert (cur.peek(), cur.lineno) == ("title", 0)
    assert Cursor("page.txt", LINES, lineno=5).peek() is None


def test_skip_blank_stops_before_the_next_text():
    cur = Cursor("page.txt", LINES, lineno=1)
    cur.skip_blank()
    assert (cur.take(), cur.lineno) == ("body", 4)


def test_skip_until_reports_the_end_of_the_page():
    cur = Cursor("page.txt", LINES)
    assert cur.skip_until(lambda line: line == "body") and cur.peek() == "body"
    assert not cur.skip_until(lambda line: line == "missing") and cur.done


def test_an_error_names_file_and_line_being_read():
    cur = Cursor("page.txt", LINES, lineno=3)
    error = cur.error("bad line")
    assert (error.path, error.line, str(error)) == ("page.txt", 3, "page.txt:3: bad line")
    assert str(cur.error("too far", 99)) == "page.txt:5: too far"


def test_taking_past_the_end_is_an_error_on_the_last_line():
    cur = Cursor("page.txt", LINES, lineno=5)
    with pytest.raises(PageError, match=r"^page\.txt:5: story 3 is truncated$"):
        cur.take("story 3 is truncated")


def test_a_cell_value_refusal_becomes_a_page_error():
    cur = Cursor("page.txt", LINES, lineno=4)
    with pytest.raises(PageError, match=r"^page\.txt:4: unknown verdict 'great'"):
        with cur.checks():
            CellValue.parse_mark("greatX 9/10")


def test_a_field_limit_is_a_page_error_naming_the_field():
    cur = Cursor("page.txt", LINES, lineno=2)
    with pytest.raises(PageError, match=r"^page\.txt:2: tier 'x{40}…' is 41 characters long"):
        cur.fit("Product.tier", "tier", "x" * 41)


def test_other_errors_pass_through():
    cur = Cursor("page.txt", LINES, lineno=2)
    with pytest.raises(KeyError):
        with cur.checks():
            raise KeyError("a bug, not a page problem")
