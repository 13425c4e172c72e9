"""The legend of verdicts, proof letters and numbers (arena page and methodology), and the key of
proof letters above the matrix: the same for every page."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from django.urls import get_script_prefix, reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from stories.values import Proof
from web.pages.badges import legend_proofs, legend_verdicts
from web.pages.markup import esc


def _items(rows: Iterable[tuple[str, str]]) -> str:
    return "\n".join(
        f"<div><dt>{conditional_escape(mark)}</dt><dd>{conditional_escape(meaning)}</dd></div>"
        for mark, meaning in rows
    )


@functools.lru_cache(maxsize=16)
def _legend(script_prefix: str) -> str:
    guide = reverse("methodology")
    return f"""<section id="legend" class="legend" aria-labelledby="legend-h">
  <h2 id="legend-h">Legend</h2>
  <div class="legend-grid">
    <div>
      <h3>Verdict</h3>
      <dl class="legend-list">
{_items(legend_verdicts())}
      </dl>
    </div>
    <div>
      <h3>Proof</h3>
      <dl class="legend-list">
{_items(legend_proofs())}
      </dl>
    </div>
    <div>
      <h3>Numbers</h3>
      <dl class="legend-list">
        <div><dt>8/10</dt><dd>quality of the cell, 0–10</dd></div>
        <div><dt>PA Score /100</dt><dd>weighted coverage over every story of the arena</dd></div>
        <div><dt>15/41 verified</dt><dd>verified cells out of cells with evidence</dd></div>
        <div><dt>integrity /100</dt><dd>falls when verdicts do not hold up</dd></div>
        <div><dt><span class="grade">A</span>–<span class="grade">D</span></dt><dd>evidence confidence</dd></div>
      </dl>
    </div>
  </div>
  <p class="legend-foot">quality 0–10 · PA Score /100 · A–D = evidence confidence · <a href="{esc(guide)}">full guide</a></p>
</section>"""


def legend() -> SafeString:
    """The legend, written once per process (and script prefix)."""
    return mark_safe(_legend(get_script_prefix()))


def proof_key() -> SafeString:
    """The proof letters the matrix uses, each with its name: the key above the matrix."""
    return mark_safe(
        " · ".join(f'<span class="nw"><b>{esc(p.letter)}</b> {esc(p.value)}</span>' for p in Proof)
    )
