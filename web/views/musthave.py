"""The must-have check: which products meet every story and fact a visitor cannot do without
(``?must=<story ids>&need=<facts>``), which fail and on what (``arena.scoring.musthave``)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from arena.scoring.musthave import NEED_LABELS, NEEDS, MustHaves
from arena.selectors.matrix import MatrixFilters
from arena.selectors.musthave import must_check_get
from web.pages import links
from web.params import HtmxHttpRequest
from web.params.musthave import MustHaveAsked
from web.views.disputes import arena_or_404


@require_safe
def arena_must_have(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """The check's form and every product's answer. Another spelling of a choice is redirected
    to the canonical address; what cannot be read is a 400 with the form and what is wrong."""
    found = arena_or_404(arena)
    asked = MustHaveAsked.of(request.GET)
    check = must_check_get(arena=found, must=asked.must, weights=asked.weights)
    problems = list(asked.problems)
    known = {s.pk for s in check.stories}
    problems += [f"No story {s} in this arena." for s in asked.must.stories if s not in known]
    page_url = reverse("arena-must-have", args=[found.slug])
    weights = check.board.weights_query
    if not problems and not asked.canonical:
        query = links.must_have_query(
            stories=asked.must.stories, needs=asked.must.needs, weights=weights
        )
        return redirect(f"{page_url}{query}")
    must = MustHaves(tuple(s.pk for s in check.chosen), asked.must.needs)
    ctx = {
        "arena": found,
        "check": check,
        "must": must,
        "asked": bool(must),
        "problems": problems,
        "page_url": page_url,
        "weights_query": weights,
        "arena_link": f"{found.get_absolute_url()}{links.arena_query(MatrixFilters(), weights=weights)}",
        "clear_url": page_url + links.must_have_query(weights=weights),
        "published_url": page_url + links.must_have_query(stories=must.stories, needs=must.needs),
        "needs": [(n, NEED_LABELS[n], n in must.needs) for n in NEEDS],
        # what was chosen, in words: each story quoted, then the facts
        "chosen_words": [f"“{s.text}”" for s in check.chosen]
        + [NEED_LABELS[n] for n in must.needs],
        "chosen_ids": set(must.stories),
    }
    return render(request, "arena/must_have.html", ctx, status=400 if problems else 200)
