"""``/llms.txt`` (llmstxt.org): the site in a paragraph, each arena's markdown view with its size and
leader, the documented head-to-heads, the API's summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.selectors.calls import first_leads
from web.formats.markdown.links import Licence, Links
from web.formats.markdown.text import document, inline, link

if TYPE_CHECKING:
    from products.models import Product

SUMMARY = (
    "> Evidence-backed comparisons of software products: each arena judges every product on every "
    "user story, and every verdict links to its proof."
)
HOW_IT_WORKS = (
    "An arena lists products and user stories (each written for a user type, or persona, with a "
    "weight). Every product gets a verdict on every story: full, partial, disputed, none or n/a, "
    "with a proof level (probed: tested by us; community: users back it; claimed: vendor claim "
    "only; contradicted: evidence disagrees; auth-gated: a sign-in wall) and a quality out of 10, "
    "backed by a rationale and quoted evidence with sources. From the verdicts each product gets a "
    "PA Score (0–100, how much of what the stories ask it does, weighted), with a range saying how "
    "sure it is, a score per user type, a verified share and an integrity score; the leaderboard "
    "ranks by them, and a head-to-head compares two products story by story."
)
FLAGGING = (
    "Anyone can flag a verdict they think is wrong, with a source, from the verdict's proof page "
    "(an HTML form; each cell's markdown view gives its address). Moderators review every flag; "
    "upheld corrections appear in the verdict's public history. "
)


Resource = tuple[str, str, str]  # a link's title, its absolute address, its notes


def llms_txt(
    *,
    site: str,
    arenas: Sequence[Any],
    pairs: Mapping[int, Sequence[tuple[Product, Product]]],
    links: Links,
    licence: Licence,
    optional: Sequence[Resource],
) -> str:
    """``/llms.txt``: ``arenas`` as ``arena_list`` reads them (with their counts and leader),
    ``pairs`` each arena's documented head-to-heads by its pk. Every section is a list of
    ``- [title](url): notes`` links and nothing else (what llmstxt.org's parser reads): the
    sections before ``## Optional`` link markdown pages of this site; ``## Optional`` (which the
    format lets an agent skip) links the resources that are not markdown (``optional``)."""
    return document(
        [
            f"# {inline(site)}",
            "",
            SUMMARY,
            "",
            HOW_IT_WORKS,
            "",
            FLAGGING + licence.line(linked=False),
            "",
            *_arenas(arenas, links),
            *_head_to_heads(arenas, pairs, links),
            "## API",
            "",
            f"- {link('API summary', links.path('api-markdown'))}: every endpoint of the read-only "
            "JSON API (and the moderators' flag endpoints), its parameters and response fields",
            "",
            "## Optional",
            "",
            *(f"- {link(title, href)}: {inline(notes)}" for title, href, notes in optional),
        ]
    )


def _arenas(arenas: Sequence[Any], links: Links) -> list[str]:
    out = ["## Arenas", ""]
    for a in arenas:
        line = (
            f"- {link(a.name, links.arena_md(a.slug))}: {int(a.product_count)} products × "
            f"{int(a.story_count)} stories"
        )
        if a.leader_name and first_leads(a):
            line += f", first {inline(a.leader_name)} (leads)"
        elif a.leader_name:
            line += (
                f", first {inline(a.leader_name)} (too close to call with "
                f"{inline(a.second_name or '')})"
            )
        out.append(line)
    return out + [""]


def _head_to_heads(
    arenas: Sequence[Any], pairs: Mapping[int, Sequence[tuple[Product, Product]]], links: Links
) -> list[str]:
    items = [
        f"- {link(f'{x.name} vs {y.name}', links.head_to_head_md(a.slug, x.slug, y.slug))}"
        f": in {inline(a.name)}"
        for a in arenas
        for x, y in pairs.get(a.pk, ())
    ]
    return ["## Head-to-heads", "", *items, ""]
