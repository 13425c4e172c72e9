"""The API reference as the site's own HTML, from the OpenAPI schema drf-spectacular builds: each
endpoint's method, path, description, parameters and answers. It reads without JavaScript and
meets the site's accessibility bar; the interactive Swagger UI is offered beside it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_METHODS = ("get", "post", "put", "patch", "delete")


@dataclass(frozen=True)
class Parameter:
    name: str
    where: str  # "path", "query" or "header"
    required: bool
    description: str


@dataclass(frozen=True)
class Answer:
    status: str
    description: str
    body: str  # the schema's name (``ArenaDetail``), "" when none is named


@dataclass(frozen=True)
class Endpoint:
    method: str  # upper case
    path: str
    anchor: str  # the id of its heading
    description: str
    parameters: list[Parameter]
    answers: list[Answer]
    body: str  # the request body's schema name, "" for none


def _schema_name(content: Mapping[str, Any] | None) -> str:
    """``ArenaDetail`` of ``{"application/json": {"schema": {"$ref": ".../ArenaDetail"}}}``."""
    for media in (content or {}).values():
        schema = media.get("schema") or {}
        ref = schema.get("$ref") or (schema.get("items") or {}).get("$ref") or ""
        if ref:
            name = ref.rsplit("/", 1)[-1]
            return f"list of {name}" if schema.get("type") == "array" else name
        if schema.get("type"):
            return str(schema["type"])
    return ""


def _endpoint(path: str, method: str, op: Mapping[str, Any]) -> Endpoint:
    parameters = [
        Parameter(
            name=p.get("name", ""),
            where=p.get("in", ""),
            required=bool(p.get("required")),
            description=p.get("description", ""),
        )
        for p in op.get("parameters", [])
    ]
    answers = [
        Answer(
            status=str(code),
            description=r.get("description", ""),
            body=_schema_name(r.get("content")),
        )
        for code, r in sorted(op.get("responses", {}).items())
    ]
    body = _schema_name((op.get("requestBody") or {}).get("content"))
    anchor = op.get("operationId") or f"{method}-{path}"
    description = op.get("summary") or op.get("description") or ""
    return Endpoint(method.upper(), path, anchor, description, parameters, answers, body)


def api_endpoints(schema: Mapping[str, Any]) -> list[Endpoint]:
    """Every operation of an OpenAPI document, in the document's order of paths."""
    return [
        _endpoint(path, method, ops[method])
        for path, ops in schema.get("paths", {}).items()
        for method in _METHODS
        if method in ops
    ]
