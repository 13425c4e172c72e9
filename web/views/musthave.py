"""The must-have check's page (``?must=<story ids>&need=<facts>``): who meets it, who fails."""

from __future__ import annotations

from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from arena.scoring.musthave import NEED_LABELS, NEEDS, MustHaves
from arena.selectors.matrix import MatrixFilters
from arena.selectors.musthave import must_check_get
from web import params
from web.pages import links
from web.params import HtmxHttpRequest
from web.views.common import arena_or_404


def must_asked(query: QueryDict) -> tuple[MustHaves, list[str]]:
    """``?must=<story id>,…`` and ``?need=<fact>,…``, and what of them cannot be read (a 400)."""
    problems: list[str] = []
    ids: list[int] = []
    for item in params.items(query, params.MUST):
        if (story := params.record_id(item)) is None:
            problems.append(f"A must-have story is given by its number, not {item[:40]!r}.")
        elif story not in ids:
            ids.append(story)
    if len(ids) > params.MUST_MAX:
        problems.append(f"At most {params.MUST_MAX} must-have stories; {len(ids)} were given.")
        ids = ids[: params.MUST_MAX]
    needs = params.items(query, params.NEED)
    if unknown := [n for n in needs if n not in NEEDS]:
        problems.append(f"No fact {unknown[0][:40]!r} to require: one of {', '.join(NEEDS)}.")
    return MustHaves(tuple(sorted(ids)), tuple(n for n in NEEDS if n in needs)), problems


@require_safe
def arena_must_have(request: HtmxHttpRequest, arena: str) -> HttpResponse:
    """The check's form and answers; other spellings redirect, unreadable input is a 400."""
    found = arena_or_404(arena)
    asked, problems = must_asked(request.GET)
    text = params.text(request.GET, params.WEIGHTS, params.WEIGHTS_MAX_LENGTH)
    check = must_check_get(arena=found, must=asked, weights=params.weights_parse(text))
    known = {s.pk for s in check.stories}
    problems += [f"No story {s} in this arena." for s in asked.stories if s not in known]
    page_url = reverse("arena-must-have", args=[found.slug])
    weights = check.board.weights_query
    # another spelling of the same choice is sent to its one address
    sent = [(name, v) for name in ("must", "need") for v in request.GET.getlist(name)]
    written = links.must_have_query(stories=asked.stories, needs=asked.needs)
    if not problems and params.query_string(sent) != written:
        query = links.must_have_query(stories=asked.stories, needs=asked.needs, weights=weights)
        return redirect(f"{page_url}{query}")
    must = MustHaves(tuple(s.pk for s in check.chosen), asked.needs)
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
