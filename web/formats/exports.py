"""Open data: ``/arenas/<arena>/export.json`` (the whole arena in the arena file format, what
``export_arena`` writes) and ``/arenas/<arena>/export.csv`` (one row per cell), both streamed as
they are written and cached like the pages, by the arena's content version
(``web.http.pagecache``); the arena file format's JSON Schema, and those of the disputes and
verification queue JSON."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date
from pathlib import Path

from django.conf import settings
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    StreamingHttpResponse,
)
from django.views.decorators.http import require_safe

from arena import dataformat
from arena.models import Arena
from arena.selectors.arenas import arena_get
from arena.selectors.export import CSV_COLUMNS, arena_csv_rows, arena_export_document

# A spreadsheet runs a cell that starts with one of these as a formula: such a text is written
# with a leading apostrophe (OWASP's advice for CSV files), which spreadsheets hide.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _export(
    request: HttpRequest,
    slug: str,
    body: Callable[[Arena], Iterator[bytes]],
    *,
    content_type: str,
    extension: str,
    disposition: str,
) -> StreamingHttpResponse | HttpResponsePermanentRedirect:
    """``body(arena)`` streamed, named ``<arena>.<extension>``, with the licence the data is offered
    under (RFC 8288 link). 404 for no such arena. An export takes no parameters: an address with a
    query string is sent to the one without, so made-up parameters cannot make the page cache keep
    many megabyte-sized copies."""
    arena = arena_get(slug=slug)
    if arena is None:
        raise Http404("No such arena")
    if request.META.get("QUERY_STRING"):
        return HttpResponsePermanentRedirect(request.path)
    response = StreamingHttpResponse(body(arena), content_type=content_type)
    response["Content-Disposition"] = f'{disposition}; filename="{arena.slug}.{extension}"'
    response["Link"] = f'<{settings.DATA_LICENSE_URL}>; rel="license"'
    return response


def _json_body(arena: Arena) -> Iterator[bytes]:
    return dataformat.document_chunks(arena_export_document(arena=arena))


@require_safe
def arena_export_json(
    request: HttpRequest, arena: str
) -> StreamingHttpResponse | HttpResponsePermanentRedirect:
    """The arena file of the arena: the same bytes as ``manage.py export_arena <slug>``."""
    return _export(
        request,
        arena,
        _json_body,
        content_type="application/json",
        extension="json",
        disposition="inline",
    )


class _Line:
    """A file-like object whose ``write`` returns what it was given (csv writes one row)."""

    def write(self, value: str) -> str:
        return value


def _field(value: object) -> object:
    """A value as the CSV writes it: nothing for None, a date as YYYY-MM-DD, a text that a
    spreadsheet would run as a formula with a leading apostrophe."""
    if value is None:
        return ""
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_lines(rows: Iterable[Sequence[object]]) -> Iterator[str]:
    """The CSV file's lines: the header (``CSV_COLUMNS``), then one line per row."""
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield writer.writerow(CSV_COLUMNS)
    for row in rows:
        yield writer.writerow([_field(value) for value in row])


def _csv_body(arena: Arena) -> Iterator[bytes]:
    return dataformat.chunked(csv_lines(arena_csv_rows(arena=arena)))


@require_safe
def arena_export_csv(
    request: HttpRequest, arena: str
) -> StreamingHttpResponse | HttpResponsePermanentRedirect:
    """One row per cell of the arena's matrix (``arena.selectors.export.CSV_COLUMNS``)."""
    return _export(
        request,
        arena,
        _csv_body,
        content_type="text/csv; charset=utf-8; header=present",
        extension="csv",
        disposition="attachment",
    )


@require_safe
def arena_file_schema(request: HttpRequest) -> HttpResponse:
    """The arena file format's JSON Schema, as shipped (``arena/schemas/``), for editors and
    validators to point at."""
    return HttpResponse(dataformat.SCHEMA_PATH.read_bytes(), content_type="application/schema+json")


# The JSON Schemas of the site's other JSON documents (``/schemas/<name>.schema.json``), shipped
# beside this module: a client validates what it reads against them.
SCHEMAS = Path(__file__).resolve().parent / "schemas"
PUBLISHED = ("disputes-v1", "verify-v1")


@require_safe
def published_schema(request: HttpRequest, name: str) -> HttpResponse:
    """One of ``PUBLISHED``'s JSON Schemas, as shipped."""
    if name not in PUBLISHED:
        raise Http404("No such schema")
    return HttpResponse(
        (SCHEMAS / f"{name}.schema.json").read_bytes(), content_type="application/schema+json"
    )
