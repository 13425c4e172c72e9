"""The legend of verdicts, proof letters and numbers (arena page and methodology), and the proof
levels the key above the matrix names: the same for every page."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from django.urls import get_script_prefix, reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from stories.values import Proof
from web.pages.badges import (
    PROOF_MARK_WORDS,
    PROOF_MARKS,
    legend_backings,
    legend_proofs,
    legend_verdicts,
)
from web.pages.markup import esc


def _items(rows: Iterable[tuple[str, str]]) -> str:
    return "\n".join(
        f"<div><dt>{conditional_escape(mark)}</dt><dd>{conditional_escape(meaning)}</dd></div>"
        for mark, meaning in rows
    )


_NUMBERS = """        <div><dt>8/10</dt><dd>quality of the cell, 0–10</dd></div>
        <div><dt>PA Score /100</dt><dd>weighted coverage over every story of the arena: each story's quality 0–10, weighted by the story's weight, as a share of full marks</dd></div>
        <div><dt>15/41 verified</dt><dd>verified cells out of cells with evidence</dd></div>
        <div><dt>5/51 with published evidence</dt><dd>judged cells backed by a published quote or rationale</dd></div>
        <div><dt>integrity /100</dt><dd>falls when verdicts do not hold up</dd></div>
        <div><dt><span class="grade">A</span>–<span class="grade">D</span></dt><dd>evidence confidence</dd></div>"""


def _column(title: str, items: str) -> str:
    """One column of the legend: its heading and its list of marks and meanings."""
    return f"""    <div>
      <h3>{title}</h3>
      <dl class="legend-list">
{items}
      </dl>
    </div>"""


@functools.lru_cache(maxsize=16)
def _legend(script_prefix: str) -> str:
    guide = reverse("methodology")
    columns = (
        _column("Verdict", _items(legend_verdicts())),
        _column("Proof", _items(legend_proofs())),
        _column("Backing", _items(legend_backings())),
        _column("Numbers", _NUMBERS),
    )
    return f"""<section id="legend" class="legend" aria-labelledby="legend-h">
  <h2 id="legend-h">Legend</h2>
  <div class="legend-grid">
{chr(10).join(columns)}
  </div>
  <p class="legend-foot">quality 0–10 · PA Score /100 · A–D = evidence confidence · <a href="{esc(guide)}">full guide</a></p>
</section>"""


def legend() -> SafeString:
    """The legend, written once per process (and script prefix)."""
    return mark_safe(_legend(get_script_prefix()))


def proof_levels() -> list[Proof]:
    """The proof levels, in order: the key above the matrix gives each one's letter and name."""
    return list(Proof)


@functools.lru_cache(maxsize=1)
def _proof_key() -> str:
    return " · ".join(
        f'<span class="nw"><b class="proof-mark">{PROOF_MARKS[p]}</b> {esc(p.value)}'
        + (f" ({PROOF_MARK_WORDS[p]})" if PROOF_MARK_WORDS[p] != p.value else "")
        + "</span>"
        for p in Proof
    )


def proof_key() -> SafeString:
    """The key above the matrix: each proof level's mark (as the cells show it), its name and the
    word its letter comes from."""
    return mark_safe(_proof_key())  # our own constant words and letters
