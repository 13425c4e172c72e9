"""Open data: an arena's file and CSV, streamed, and the JSON Schemas of the files served."""

import csv
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
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
from arena.selectors.export import CSV_COLUMNS, arena_csv_rows, arena_export_document
from web.views.common import arena_or_404

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # spreadsheets' formula starts: prefixed with '


class _Line:
    def write(self, value: str) -> str:
        return value


def _field(value: object) -> object:
    # (the csv module writes None as an empty field and a date as its ISO text)
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def csv_lines(rows: Iterable[Sequence[object]]) -> Iterator[str]:
    writer = csv.writer(_Line(), lineterminator="\r\n")
    yield writer.writerow(CSV_COLUMNS)
    for row in rows:
        yield writer.writerow([_field(value) for value in row])


def _export(
    request: HttpRequest, arena: str, *, kind: str
) -> StreamingHttpResponse | HttpResponsePermanentRedirect:
    """The arena file or its CSV; a query string is redirected away (never cached under one)."""
    found = arena_or_404(arena)
    if request.META.get("QUERY_STRING"):
        return HttpResponsePermanentRedirect(request.path)
    if kind == "json":
        body = dataformat.chunked(dataformat.document_lines(arena_export_document(arena=found)))
        content_type, disposition = "application/json", "inline"
    else:
        body = dataformat.chunked(csv_lines(arena_csv_rows(arena=found)))
        content_type, disposition = "text/csv; charset=utf-8; header=present", "attachment"
    response = StreamingHttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'{disposition}; filename="{found.slug}.{kind}"'
    response["Link"] = f'<{settings.DATA_LICENSE_URL}>; rel="license"'
    return response


arena_export_json = require_safe(partial(_export, kind="json"))
arena_export_csv = require_safe(partial(_export, kind="csv"))

SCHEMAS = {  # the JSON Schemas of the arena file and the site's other JSON, for clients
    f"arena-v{dataformat.VERSION}": dataformat.SCHEMA_PATH,
    **{
        name: Path(__file__).resolve().parent / "schemas" / f"{name}.schema.json"
        for name in ("disputes-v1", "verify-v1")
    },
}


@require_safe
def published_schema(request: HttpRequest, name: str) -> HttpResponse:
    if name not in SCHEMAS:
        raise Http404("No such schema")
    return HttpResponse(SCHEMAS[name].read_bytes(), content_type="application/schema+json")
