"""``/api.md``: the OpenAPI schema in short: each path and method with its summary, parameters
and responses, then each schema's fields."""

import re
from typing import Any

from web.formats.markdown.text import document, inline, table, trusted

Schema = dict[str, Any]

METHODS = ("get", "post", "put", "patch", "delete", "head")


def api_markdown(*, schema: Schema, raw: dict[str, str]) -> str:
    """``raw``: the full document's addresses, by name."""
    info = schema.get("info", {})
    out = [
        f"# {trusted(info.get('title', 'API'))} {trusted(info.get('version', ''))}".rstrip(),
        "",
        trusted(info.get("description", "")),
        "",
        "Reads are anonymous and cached (ETag, 304 on If-None-Match); the flag endpoints are for "
        "moderators. The full OpenAPI document: "
        + ", ".join(f"`{address}` ({inline(name)})" for name, address in raw.items())
        + ".",
        "",
        "## Endpoints",
        "",
    ]
    for path, methods in schema.get("paths", {}).items():
        for method, op in methods.items():
            if method in METHODS:
                out += _operation(path, method, op)
    out += ["## Schemas", ""]
    for name, component in schema.get("components", {}).get("schemas", {}).items():
        out += _component(name, component)
    return document(out)


def _operation(path: str, method: str, op: Schema) -> list[str]:
    out = [f"### {method.upper()} `{path}`", ""]
    summary = op.get("summary") or op.get("description") or ""
    if summary:
        out += [trusted(summary), ""]
    params = op.get("parameters", [])
    if params:
        rows = [
            [
                f"`{p.get('name', '')}`",
                inline(p.get("in", "")),
                "yes" if p.get("required") else "no",
                trusted(_type(p.get("schema", {}))),
                trusted(p.get("description", "")),
            ]
            for p in params
        ]
        out += [table(["Parameter", "In", "Required", "Type", "What"], rows), ""]
    body = op.get("requestBody", {}).get("content", {})
    if body:
        out += [f"Request body: {trusted(', '.join(_content_types(body)))}", ""]
    responses = []
    for status, answer in op.get("responses", {}).items():
        kinds = _content_types(answer.get("content", {}))
        what = _first_sentence(answer.get("description", ""))
        text = f"- {status}: {trusted(', '.join(kinds)) or 'no body'}"
        responses.append(text + (f" — {trusted(what)}" if what else ""))
    return out + ["Responses:", "", *responses, ""]


def _content_types(content: Schema) -> list[str]:
    return sorted({_type(c.get("schema", {})) for c in content.values()})


def _component(name: str, component: Schema) -> list[str]:
    out = [f"### {inline(name)}", ""]
    props = component.get("properties")
    if not props:
        return out + [trusted(_type(component)), ""]
    required = set(component.get("required", []))
    rows = [
        [
            f"`{field}`",
            trusted(_type(spec))
            + (" or null" if isinstance(spec, dict) and spec.get("nullable") else ""),
            "yes" if field in required else "no",
            trusted(_first_sentence(spec.get("description", "")) if isinstance(spec, dict) else ""),
        ]
        for field, spec in props.items()
    ]
    return out + [table(["Field", "Type", "Always", "What"], rows), ""]


def _type(schema: object) -> str:
    """A schema's type in a few characters: ``string (date)``, ``[LeaderboardRow]``, ``a or b``."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    for many in ("oneOf", "anyOf", "allOf"):
        if many in schema:
            return " or ".join(_type(s) for s in schema[many])
    if "enum" in schema:
        return "one of " + ", ".join(repr(v) for v in schema["enum"])
    kind = schema.get("type", "object")
    if kind == "array":
        return f"[{_type(schema.get('items', {}))}]"
    if kind == "object" and "additionalProperties" in schema:
        return f"{{name: {_type(schema['additionalProperties'])}}}"
    fmt = schema.get("format")
    return f"{kind} ({fmt})" if fmt else str(kind)


def _first_sentence(text: str) -> str:
    text = " ".join((text or "").split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return m.group(1) if m else text
