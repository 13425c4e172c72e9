"""Best by user type: each persona's winner and runner-up, and what decided a tie between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.scoring.results import ProductResult
from arena.scoring.tally import ProductKey, StoryIn


@dataclass(frozen=True)
class PersonaBest:
    persona: str
    story_count: int
    winner: ProductKey | None
    winner_score: int | None
    runner_up: ProductKey | None
    runner_up_score: int | None


def best_by_persona(
    stories: Sequence[StoryIn], results: Sequence[ProductResult]
) -> list[PersonaBest]:
    """Per persona: highest persona score, then runner-up. Ties: higher PA Score, then name."""
    out = []
    for persona in dict.fromkeys(s.persona for s in stories):
        scored = [r for r in results if r.persona_scores.get(persona) is not None]
        scored.sort(
            key=lambda r: (-(r.persona_scores[persona] or 0), -(r.pa_score or 0), r.name.lower())
        )
        first = scored[0] if scored else None
        second = scored[1] if len(scored) > 1 else None
        out.append(
            PersonaBest(
                persona=persona,
                story_count=sum(1 for s in stories if s.persona == persona),
                winner=first.product if first else None,
                winner_score=first.persona_scores[persona] if first else None,
                runner_up=second.product if second else None,
                runner_up_score=second.persona_scores[persona] if second else None,
            )
        )
    return out


# A persona winner decided by fewer stories than this is flagged as resting on little evidence.
FEW_STORIES = 5


def persona_decided_by(
    winner_score: int | None,
    runner_up_score: int | None,
    winner_pa: int | None,
    runner_up_pa: int | None,
) -> str:
    """What decided a persona's winner over its runner-up when their persona scores are equal
    (the tie-break of ``best_by_persona``): "PA Score" or "name"; "" when they are not tied."""
    if winner_score is None or winner_score != runner_up_score:
        return ""
    return "PA Score" if (winner_pa or 0) != (runner_up_pa or 0) else "name"
