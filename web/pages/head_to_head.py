"""A head-to-head's tables: a section per category, a row per round (the story, both sides'
badges and the winner between them), each round's two cards folded under its story."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.utils.safestring import SafeString, mark_safe

from arena import scoring
from arena.models import Source
from arena.selectors.head_to_head import CompareRow, Comparison
from arena.selectors.matrix import CategoryBlock
from web.pages import links
from web.pages.badges import round_badge
from web.pages.cards import card_html
from web.pages.markup import category_tally, esc
from web.pages.shapes import name_of

# Each side's product name, escaped, by side ("a", "b") and by product pk.
Names = dict[str | int, str]


def _names(cmp: Comparison) -> Names:
    a, b = esc(cmp.a.name), esc(cmp.b.name)
    return {"a": a, "b": b, cmp.a.pk: a, cmp.b.pk: b}


@dataclass(frozen=True)
class _Folding:
    """How the rounds' rationale and evidence are folded: ``open_all``: unfolded; ``lazy``: the
    head-to-head's address when the rounds' cards are not in the page but load as a round is
    opened (``?open=<story>``: with htmx, the two cards; without, the page with that round open),
    except the round ``opened``."""

    open_all: bool = False
    lazy: str | None = None
    opened: int | None = None
    # the source list entries the cards' cited ids link to (``Comparison.sources``)
    sources: Mapping[str, Source] = field(default_factory=dict)


def _round_cards(row: CompareRow, names: Names, sources: Mapping[str, Source]) -> str:
    """Both sides' cards of one round: what its ``<details>`` unfolds."""
    cells = links.cells_prefix()
    story = row.story.text
    a = card_html(row.cell_a, names["a"], cells, sources, story)
    return f"{a}{card_html(row.cell_b, names['b'], cells, sources, story)}"


def head_to_head_cards(row: CompareRow, cmp: Comparison) -> SafeString:
    """One round's two cards (what a lazy round's ``<details>`` loads when it is opened)."""
    return mark_safe(_round_cards(row, _names(cmp), getattr(cmp, "sources", {})))


def _winner(row: CompareRow, names: Names) -> tuple[str, str]:
    """The round's class and its mark between the badges: ``◀ A``, ``= draw``, ``B ▶``."""
    if row.winner is None:
        return "draw", '<span aria-hidden="true">=</span> draw'
    if row.winner.pk == row.cell_a.product.pk:
        return "win-a", (
            f'<span aria-hidden="true">◀</span> <span class="wname">{names["a"]}</span>'
            '<span class="visually-hidden"> wins</span>'
        )
    return "win-b", (
        f'<span class="wname">{names["b"]}</span><span class="visually-hidden"> wins</span>'
        ' <span aria-hidden="true">▶</span>'
    )


def _round(row: CompareRow, names: Names, arena: str, folding: _Folding) -> str:
    """One round as a row of its category's table: the story (``arena``: the slug, for its link)
    with its persona, the rationale and evidence of both sides folded under it, its weight, each
    side's badge and the winner between them."""
    story = row.story
    pk = int(story.pk)
    a, b = row.cell_a, row.cell_b
    side, mark = _winner(row, names)
    # every interpolated value is escaped or an int
    return (
        f'<tr id="story-{pk}" class="round {side}">'
        f'<td class="h-story"><div class="story-cell"><span class="story-text">'
        f'<span class="persona">{esc(story.persona.label)}</span> '
        f'<a href="{links.url_prefix("story-detail", arena)}{pk}/">{esc(story.text)}</a></span> '
        f"{_why(row, names, folding)}</div></td>"
        f'<td class="h-w num"><span class="visually-hidden">weight </span>{int(story.weight)}</td>'
        f'<td class="h-a">{round_badge(a.verdict, a.proof, a.quality)}</td>'
        f'<td class="h-win"><span class="win">{mark}</span></td>'
        f'<td class="h-b">{round_badge(b.verdict, b.proof, b.quality)}</td></tr>'
    )


def _why(row: CompareRow, names: Names, folding: _Folding) -> str:
    """A round's folded rationale and evidence: its cards, or (``lazy``) a link to them that htmx
    follows when the round is opened."""
    pk = int(row.story.pk)
    published = row.cell_a.detail_published or row.cell_b.detail_published
    why = (
        '<span class="visually-hidden">rationale and </span>evidence'
        if published
        else '<span class="visually-hidden">rationale </span>not published'
    )
    quiet = "" if published else " quiet"
    opened = folding.open_all or pk == folding.opened
    if folding.lazy is None or opened:
        state = " open" if opened else ""
        return (
            f'<details class="why{quiet}"{state}><summary>{why}</summary>'
            f'<div class="why-body">{_round_cards(row, names, folding.sources)}</div></details>'
        )
    url = esc(links.round_open_url(folding.lazy, pk))
    return (
        f'<details class="why{quiet}" hx-get="{url}" hx-trigger="toggle once"'
        f' hx-target="#why-{pk}" hx-swap="innerHTML"><summary>{why}</summary>'
        f'<div class="why-body" id="why-{pk}"><a href="{url}#story-{pk}">Show both verdicts’'
        f" rationale and evidence</a></div></details>"
    )


def _rounds(rows: Iterable[CompareRow], names: Names, arena: str, folding: _Folding) -> str:
    return "".join(_round(row, names, arena, folding) for row in rows)


def head_to_head_rounds(
    rows: Iterable[CompareRow], cmp: Comparison, arena: str, open_all: bool = False
) -> SafeString:
    """The rounds of one sub-group (see ``_round``), the products' names escaped once."""
    return mark_safe(
        _rounds(rows, _names(cmp), arena, _Folding(open_all, sources=getattr(cmp, "sources", {})))
    )


def _tally_line(t: scoring.CompareSummary, names: Names) -> str:
    """``Inngest 5 won · 2 drawn · Hatchet 3 won · weighted 12–7``."""
    return (
        f'<span class="t-a">{names["a"]} {int(t.won_a)} won</span> · {int(t.drawn)} drawn · '
        f'<span class="t-b">{names["b"]} {int(t.won_b)} won</span>'
        f" · weighted {int(t.weighted_a)}–{int(t.weighted_b)}"
    )


def _category_id(block: CategoryBlock) -> str:
    return f"cat-{esc(block.slug)}"


def _section_head(block: CategoryBlock, cmp: Comparison, names: Names, fold: str | None) -> str:
    """A category's section up to its table: its heading, its tally over all its rounds (and the
    rounds shown, when only the differences are). ``fold`` (``""``: folded, ``" open"``: open):
    the heading and tally are the ``<summary>`` of a ``<details>`` that holds the table."""
    cat = block.category
    hid = f"h2h-cat-{int(cat.pk)}"
    tally = category_tally(
        cmp.tallies, cat.pk, block.count, cmp.differences_only, lambda t: _tally_line(t, names)
    )
    section = f'<section class="h2h-category" id="{_category_id(block)}" aria-labelledby="{hid}">'
    table = f'<table class="h2h-table" aria-labelledby="{hid}">'
    if fold is None:
        return (
            f'{section}<div class="cat-head"><h2 id="{hid}">{esc(cat.name)}</h2>'
            f'<p class="cat-tally">{tally}</p></div>{table}'
        )
    return (
        f'{section}<details class="cat-fold"{fold}><summary class="cat-head">'
        f'<h2 id="{hid}">{esc(cat.name)}</h2><span class="cat-tally">{tally}</span></summary>{table}'
    )


def _fold(index: int, block: CategoryBlock, folding: _Folding) -> str | None:
    """Whether a category's rounds fold (None: they do not, the cards are in the page): a long
    head-to-head (``lazy``) shows its first category's rounds and the one holding the round
    ``opened``; the others fold under their heading and tally (in the page, but neither styled
    nor laid out until opened, which keeps a phone's main thread free)."""
    if folding.lazy is None:
        return None
    rows = (row for group in block.groups for row in group.rows)
    opened = index == 0 or any(int(row.story.pk) == folding.opened for row in rows)
    return " open" if opened else ""


def head_to_head_tables(
    cmp: Comparison,
    arena: str,
    open_all: bool = False,
    lazy: str | None = None,
    opened: int | None = None,
) -> SafeString:
    """Every category of a head-to-head (``cmp.blocks``, the rounds shown) as a section: its
    heading, its tally over all its rounds, and a table of its rounds, a sub-group's rounds under
    the sub-group's name; the header row names both sides. ``lazy`` and ``opened``: see
    ``_Folding``."""
    names = _names(cmp)
    folding = _Folding(open_all, lazy, opened, getattr(cmp, "sources", {}))
    head = (
        '<thead><tr><th scope="col" class="h-story">Story</th>'
        '<th scope="col" class="h-w num"><abbr title="Weight">Wt</abbr></th>'
        f'<th scope="col" class="h-a">{names["a"]}</th>'
        '<th scope="col" class="h-win">Round</th>'
        f'<th scope="col" class="h-b">{names["b"]}</th></tr></thead>'
    )
    out = []
    for index, block in enumerate(cmp.blocks):
        fold = _fold(index, block, folding)
        out.append(f"{_section_head(block, cmp, names, fold)}{head}")
        for group in block.groups:
            out.append("<tbody>")
            if group.subgroup:
                out.append(
                    '<tr class="sub"><th scope="rowgroup" colspan="5">'
                    f"{esc(name_of(group.subgroup))}</th></tr>"
                )
            out.append(_rounds(group.rows, names, arena, folding))
            out.append("</tbody>")
        out.append("</table></section>" if fold is None else "</table></details></section>")
    # every interpolated value is escaped or an int
    return mark_safe("".join(out))
