"""An arena file (docs/arena-format.md) read into an ``ArenaRecord``: the document checked
(``json_doc``), then what a schema cannot say. Every problem is ``FILE: /json/pointer (line N): …``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.imports.json_doc import (
    FileErrors,
    date_at,
    load_document,
    schema_check,
    texts_check,
    unique,
)
from arena.imports.records import (
    AdjacentRecord,
    ArenaRecord,
    CategoryRecord,
    CellDetail,
    MatrixStory,
    OverviewPage,
)
from core.text import arena_slugify, slug_problem
from core.uris import uri_encode, uri_problem
from products.facts import licence_problem
from stories.values import CellValue, Quote


def read_arena_json(path: str | Path) -> ArenaRecord:
    """The arena an arena file states, every rule checked; else a ``PageError``."""
    path = str(path)
    document, text = load_document(path)
    errors = FileErrors(path, text)
    schema_check(document, errors)
    texts_check(document, [], errors)
    return _record(document, path, errors)


def _record(doc: dict[str, Any], path: str, errors: FileErrors) -> ArenaRecord:
    arena = doc["arena"]
    slug = _slug(arena, errors)
    categories = doc["categories"]
    groups = _groups(categories, errors)
    personas = doc["personas"]
    unique(personas, "slug", "personas", errors)
    labels = {p["slug"]: p["label"] for p in personas}
    products = doc["products"]
    by_slug = _product_names(products, errors)
    stories = doc["stories"]
    story_by_key = _stories(stories, groups, labels, errors)
    cells = _cells(doc["cells"], story_by_key, by_slug, errors)
    for s in stories:
        for p in products:
            if (s["key"], p["slug"]) not in cells:
                raise errors.at(
                    ["cells"],
                    f"no cell for the story {s['key']} and the product {p['slug']!r}: every "
                    "product is judged on every story",
                )
    overview = _overview(doc, path, cells, errors)
    unique(doc.get("adjacent", []), "name", "adjacent", errors)
    return ArenaRecord(
        overview=overview,
        compares=(),
        # a story without a weight gets the default one, reported as the page import does
        weights={s["text"]: s["weight"] for s in stories if "weight" in s},
        persona_labels=labels,
        details={
            (story_by_key[key]["text"], by_slug[product]): detail
            for (key, product), detail in cells.items()
        },
        slug=slug,
        products={p["name"]: _product(p, ["products", i], errors) for i, p in enumerate(products)},
        exact=True,
        sources=_sources(doc.get("sources", []), errors),
    )


def _slug(arena: dict[str, Any], errors: FileErrors) -> str:
    """The arena's slug: the one given, else made of its name."""
    slug: str = arena.get("slug") or arena_slugify(arena["name"])
    if not slug:
        raise errors.at(["arena", "name"], "has no letters or digits to make a URL slug of")
    # (the schema's patterns say the same: a guard for a slug made of the name)
    if problem := slug_problem(slug):
        raise errors.at(["arena", "slug" if "slug" in arena else "name"], problem)
    return slug


def _groups(categories: list[dict[str, Any]], errors: FileErrors) -> dict[str, set[str]]:
    """Each category's sub-group names, by the category's name."""
    unique(categories, "name", "categories", errors, made=arena_slugify)
    groups: dict[str, set[str]] = {}
    for i, c in enumerate(categories):
        names = c.get("groups", [])
        if len(set(names)) != len(names):
            raise errors.at(["categories", i, "groups"], "names a group twice")
        groups[c["name"]] = set(names)
    return groups


def _product_names(products: list[dict[str, Any]], errors: FileErrors) -> dict[str, str]:
    """The products' names by their slugs (a product without one gets its name's)."""
    for p in products:
        p.setdefault("slug", arena_slugify(p["name"]))
    for i, p in enumerate(products):
        if not p["slug"]:
            raise errors.at(["products", i, "name"], "has no letters or digits to make a slug of")
        if problem := slug_problem(p["slug"], product=True):
            raise errors.at(["products", i, "slug"], problem)
    unique(products, "name", "products", errors)
    unique(products, "slug", "products", errors)
    return {p["slug"]: p["name"] for p in products}


def _stories(
    stories: list[dict[str, Any]],
    groups: dict[str, set[str]],
    labels: dict[str, str],
    errors: FileErrors,
) -> dict[int, dict[str, Any]]:
    """The stories by their keys, each in a known category, sub-group and persona."""
    unique(stories, "key", "stories", errors)
    unique(stories, "text", "stories", errors)
    story_by_key: dict[int, dict[str, Any]] = {}
    for i, s in enumerate(stories):
        if s["category"] not in groups:
            raise errors.at(["stories", i, "category"], f"{s['category']!r} is not a category")
        group = s.get("group")
        if group is not None and group not in groups[s["category"]]:
            raise errors.at(
                ["stories", i, "group"], f"{group!r} is not a group of {s['category']!r}"
            )
        if s["persona"] not in labels:
            raise errors.at(["stories", i, "persona"], f"{s['persona']!r} is not a persona")
        story_by_key[s["key"]] = s
    return story_by_key


type _Pair = tuple[int, str]  # a cell's story key and product slug


def _cells(
    cells: list[dict[str, Any]],
    story_by_key: dict[int, dict[str, Any]],
    by_slug: dict[str, str],
    errors: FileErrors,
) -> dict[_Pair, CellDetail]:
    """Each cell, by its story key and product slug."""
    details: dict[_Pair, CellDetail] = {}
    for i, c in enumerate(cells):
        where: list[str | int] = ["cells", i]
        if c["story"] not in story_by_key:
            raise errors.at([*where, "story"], f"no story has the key {c['story']}")
        if c["product"] not in by_slug:
            raise errors.at([*where, "product"], f"{c['product']!r} is not a product's slug")
        pair = (c["story"], c["product"])
        if pair in details:
            raise errors.at(where, "a second cell for the same story and product")
        value = CellValue(c["verdict"], c.get("proof"), c.get("quality"))
        for field, message in value.errors().items():
            raise errors.at([*where, field], message)
        details[pair] = _detail(c, value, by_slug[c["product"]], where, errors)
    return details


def _detail(
    c: dict[str, Any], value: CellValue, product: str, where: list[str | int], errors: FileErrors
) -> CellDetail:
    evidence = tuple(
        Quote(
            e["source"],
            e["quote"],
            _uri(e.get("url"), [*where, "evidence", j, "url"], errors),
            date_at(e.get("checked_on"), [*where, "evidence", j, "checked_on"], errors),
        )
        for j, e in enumerate(c.get("evidence", []))
    )
    rationale = c.get("rationale")
    return CellDetail(
        product=product,
        value=value,
        rationale=rationale or "",
        evidence=evidence,
        line=0,
        published=rationale is not None,
        evidence_as_of=date_at(c.get("evidence_as_of"), [*where, "evidence_as_of"], errors),
    )


def _overview(
    doc: dict[str, Any], path: str, cells: dict[_Pair, CellDetail], errors: FileErrors
) -> OverviewPage:
    """The overview page the file stands for."""
    arena, products, stories = doc["arena"], doc["products"], doc["stories"]
    return OverviewPage(
        path=path,
        name=arena["name"],
        description=arena.get("description", ""),
        story_count=len(stories),
        cell_count=len(cells),
        updated=date_at(arena["updated"], ["arena", "updated"], errors),  # type: ignore[arg-type]
        evidence_as_of=date_at(arena.get("evidence_as_of"), ["arena", "evidence_as_of"], errors),  # type: ignore[arg-type]
        products=tuple(p["name"] for p in products),
        leaderboard=(),
        personas=(),
        categories=tuple(
            CategoryRecord(
                name=c["name"], blurb=c.get("blurb", ""), groups=tuple(c.get("groups", []))
            )
            for c in doc["categories"]
        ),
        stories=tuple(
            MatrixStory(
                text=s["text"],
                persona=s["persona"],
                category=s["category"],
                group=s.get("group"),
                cells=tuple((p["name"], cells[(s["key"], p["slug"])].value) for p in products),
                line=0,
            )
            for s in stories
        ),
        adjacent=tuple(
            AdjacentRecord(
                name=a["name"],
                product_count=a["product_count"],
                leader=a["leader"],
                shares=a.get("shares") or None,
            )
            for a in doc.get("adjacent", [])
        ),
    )


def _product(p: dict[str, Any], where: list[str | int], errors: FileErrors) -> dict[str, Any]:
    """A product's values as the file states them (a fact left out or null: stored blank)."""
    if problem := licence_problem(p.get("licence") or ""):
        raise errors.at([*where, "licence"], problem)
    values = {k: p.get(k) for k in ("slug", "stars", "stars_growth", "npm_weekly", "pypi_weekly")}
    for key in ("tier", "licence", "hosting", "pricing", "latest_version"):
        values[key] = p.get(key) or ""
    for key in _PRODUCT_CHECKED:
        check = date_at if key.endswith(("_of", "_release")) else _uri
        values[key] = check(p.get(key), [*where, key], errors)
    return values | {"languages": list(p.get("languages", []))}


# in the order they are checked
_PRODUCT_CHECKED = (
    "popularity_as_of",
    "website",
    "repository",
    "documentation",
    "first_release",
    "latest_release",
)


def _sources(sources: list[dict[str, Any]], errors: FileErrors) -> tuple[dict[str, Any], ...]:
    unique(sources, "key", "sources", errors)
    return tuple(
        {
            "key": s["key"],
            "title": s.get("title") or "",
            "url": _uri(s.get("url"), ["sources", i, "url"], errors),
            "accessed": date_at(s.get("accessed"), ["sources", i, "accessed"], errors),
        }
        for i, s in enumerate(sources)
    )


def _uri(value: str | None, where: list[str | int], errors: FileErrors) -> str:
    """An address as the site stores it (``core.uris``), or why it is no http(s) address."""
    encoded = uri_encode(value or "")
    if problem := uri_problem(encoded):
        raise errors.at(where, f"{value!r}: {problem}")
    return encoded
