"""Serializers translate selector output to the JSON of docs/contract.md; no rules in here."""

from drf_spectacular.utils import OpenApiResponse, extend_schema_field
from rest_framework import serializers
from rest_framework.fields import SkipField

from arena import scoring


class ProductSlugsField(serializers.ListField):
    """Products as the list of their slugs."""

    child = serializers.CharField()

    def to_representation(self, products):
        return [p.slug for p in products]


class ByProductField(serializers.DictField):
    """A mapping keyed by product, keyed by the product's slug."""

    def to_representation(self, mapping):
        return {p.slug: self.child.to_representation(v) for p, v in mapping.items()}


class WinnerField(serializers.CharField):
    """A winner: its product's slug, or ``"drawn"`` when there is none (a drawn round, a level
    comparison)."""

    def get_attribute(self, instance):
        winner = super().get_attribute(instance)
        return scoring.DRAWN if winner is None else winner.slug


class ProductRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ProductSerializer(ProductRefSerializer):
    tier = serializers.CharField()
    stars = serializers.IntegerField(allow_null=True)
    stars_growth = serializers.IntegerField(allow_null=True)
    npm_weekly = serializers.IntegerField(allow_null=True)
    pypi_weekly = serializers.IntegerField(allow_null=True)
    popularity_as_of = serializers.DateField(allow_null=True)


class ArenaListSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    product_count = serializers.IntegerField()
    story_count = serializers.IntegerField()
    leader = serializers.SerializerMethodField()
    updated = serializers.DateField(allow_null=True)
    scores_computed_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField()

    def get_leader(self, arena) -> dict | None:
        if not arena.leader_slug:
            return None
        return {"slug": arena.leader_slug, "name": arena.leader_name}

    def get_url(self, arena) -> str:
        return arena.get_absolute_url()


class ScoreRangeField(serializers.ListField):
    """A score's range ``[low, high]`` (``scoring.score_range``: every unverified cell one verdict
    step worse / better), null with no score."""

    child = serializers.IntegerField(min_value=0, max_value=100)

    def __init__(self, **kwargs):
        super().__init__(min_length=2, max_length=2, allow_null=True, **kwargs)

    def to_representation(self, data):
        return None if data is None else [int(v) for v in data]


class _WithWeightsOnly:
    """A field that only the answers with ``?weights=`` have: left out when the row has no such
    attribute (a nullable field would otherwise be written as null)."""

    def get_attribute(self, instance):
        if not hasattr(instance, self.source):
            raise SkipField()
        return super().get_attribute(instance)


class WeightedIntegerField(_WithWeightsOnly, serializers.IntegerField):
    pass


class WeightedRangeField(_WithWeightsOnly, ScoreRangeField):
    pass


class PaRangeField(ScoreRangeField):
    """A stored leaderboard row's PA Score range (``pa_low``, ``pa_high``)."""

    def __init__(self, **kwargs):
        super().__init__(source="*", **kwargs)

    def to_representation(self, data):
        return _pa_range(data)


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="The row's place: in the published ranking, or with `?weights=` in yours."
    )
    product = ProductRefSerializer()
    vs = serializers.SerializerMethodField()
    pa_score = serializers.IntegerField(allow_null=True)
    category_scores = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    persona_scores = serializers.DictField(child=serializers.IntegerField(allow_null=True))
    verified = serializers.IntegerField()
    with_evidence = serializers.IntegerField()
    disputed = serializers.IntegerField()
    integrity = serializers.IntegerField(allow_null=True)
    confidence = serializers.CharField()
    pa_range = PaRangeField(help_text="The PA Score's range [low, high]; null with no score.")
    # with ``?weights=`` only
    personal_score = WeightedIntegerField(
        allow_null=True,
        required=False,
        help_text="With `?weights=`: the PA Score's formula with those weights (null: nothing "
        "weighs).",
    )
    personal_range = WeightedRangeField(
        required=False, help_text="With `?weights=`: the range of `personal_score`."
    )
    published_rank = serializers.IntegerField(
        required=False, help_text="With `?weights=`: the row's rank in the published ranking."
    )

    def get_vs(self, row) -> str | None:
        return row.vs.slug if row.vs_id else None


class PersonaScoredSerializer(serializers.Serializer):
    product = serializers.CharField()
    name = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    range = ScoreRangeField(
        help_text="The product's range over this user type's stories (null: none stored)."
    )


class PersonaResultSerializer(serializers.Serializer):
    persona = serializers.CharField(source="persona.slug")
    label = serializers.CharField(source="persona.label")
    story_count = serializers.IntegerField()
    winner = serializers.SerializerMethodField()
    runner_up = serializers.SerializerMethodField()

    def _scored(self, obj, product, score):
        # the products' persona ranges, from the leaderboard rows (``ArenaDetailSerializer``)
        ranges = self.context.get("persona_ranges", {})
        return _persona_scored(product, score, ranges, obj.persona.slug)

    @extend_schema_field(PersonaScoredSerializer(allow_null=True))
    def get_winner(self, obj) -> dict | None:
        return self._scored(obj, obj.winner, obj.winner_score)

    @extend_schema_field(PersonaScoredSerializer(allow_null=True))
    def get_runner_up(self, obj) -> dict | None:
        return self._scored(obj, obj.runner_up, obj.runner_up_score)


class ArenaDetailSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    story_count = serializers.IntegerField()
    cell_count = serializers.IntegerField()
    updated = serializers.DateField(allow_null=True)
    evidence_as_of = serializers.DateField(allow_null=True)
    scores_computed_at = serializers.DateTimeField(allow_null=True)
    scores_pending = serializers.BooleanField()
    products = ProductSerializer(many=True)
    leaderboard = LeaderboardRowSerializer(many=True)
    personas = PersonaResultSerializer(many=True)
    # with ``?weights=`` only
    weights = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        required=False,
        help_text="With `?weights=`: the level (0-3) in effect for every category, by its slug.",
    )
    persona_weights = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        required=False,
        help_text="With `?weights=`: the level (0-3) in effect for every user type.",
    )

    def to_representation(self, instance):
        self._context = {
            **self._context,
            "persona_ranges": _persona_ranges(instance["leaderboard"]),
        }
        return super().to_representation(instance)


class MatrixCellSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    verdict = serializers.CharField()
    proof = serializers.CharField(allow_null=True)
    quality = serializers.IntegerField(allow_null=True)
    evidence_as_of = serializers.DateField(
        allow_null=True,
        help_text="When the cell's evidence was last checked: the newest of its evidence's "
        "`checked_on` and of the dates its verdict was judged (null: no date).",
    )


class EvidenceSerializer(serializers.Serializer):
    source = serializers.CharField()
    quote = serializers.CharField()
    url = serializers.URLField(
        required=False, help_text="Where the quote can be checked (left out: no link)"
    )
    checked_on = serializers.DateField(
        required=False, help_text="When the quote was last checked (left out: no date)"
    )

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {k: v for k, v in data.items() if v not in (None, "")}


class CompareCellSerializer(MatrixCellSerializer):
    rationale = serializers.CharField()
    detail_published = serializers.BooleanField()
    evidence = EvidenceSerializer(many=True, source="evidence.all")


# A matrix row or a head-to-head round: its story's fields, flat (no docstring: it would become
# the schema's description of every story).
class StoryBaseSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="story.pk")
    text = serializers.CharField(source="story.text")
    persona = serializers.CharField(source="story.persona.slug")
    category = serializers.CharField(source="story.category.name")
    group = serializers.CharField(source="story.subgroup.name", allow_null=True)
    weight = serializers.IntegerField(source="story.weight")


class MatrixStorySerializer(StoryBaseSerializer):
    cells = ByProductField(child=MatrixCellSerializer(), source="by_product")


class MatrixSerializer(serializers.Serializer):
    products = ProductSlugsField()
    stories = MatrixStorySerializer(many=True, source="rows")


class CompareStorySerializer(StoryBaseSerializer):
    number = serializers.IntegerField()
    round = WinnerField(source="winner")
    cells = ByProductField(child=CompareCellSerializer())


class CompareSummarySerializer(serializers.Serializer):
    rounds = serializers.IntegerField(source="round_count")
    won = ByProductField(child=serializers.IntegerField())
    drawn = serializers.IntegerField(source="summary.drawn")
    weighted = ByProductField(child=serializers.IntegerField())
    leader = WinnerField()


class CompareSerializer(serializers.Serializer):
    products = ProductSlugsField()
    summary = CompareSummarySerializer(source="*")
    stories = CompareStorySerializer(many=True, source="rows")


# ---------------------------------------------------------------- the read endpoints' JSON, fast
#
# The serializers above describe the read endpoints for the schema and are the reference for their
# JSON. The endpoints build the same dicts (keys in the same order, values of the same types)
# directly from the selectors' output: DRF's field-by-field ``to_representation`` costs about
# 15 µs a value, which is most of the time of the 30 × 300 matrix (9,000 cells).
# tests/arena/test_api_fast.py checks each against its serializer, byte for byte.

# DRF's own formatting of dates and times (ISO 8601, UTC as ``Z``), for the few there are.
_DATE = serializers.DateField()
_DATETIME = serializers.DateTimeField()


def _date(value):
    return None if value is None else _DATE.to_representation(value)


def _datetime(value):
    return None if value is None else _DATETIME.to_representation(value)


def _scores(mapping: dict) -> dict:
    """A stored ``{name: score or null}`` as ``DictField(child=IntegerField(allow_null=True))``."""
    return {str(k): None if v is None else int(v) for k, v in mapping.items()}


def arena_list_data(arenas) -> list[dict]:
    """``ArenaListSerializer(arenas, many=True).data``."""
    return [
        {
            "slug": a.slug,
            "name": a.name,
            "description": a.description,
            "product_count": a.product_count,
            "story_count": a.story_count,
            "leader": {"slug": a.leader_slug, "name": a.leader_name} if a.leader_slug else None,
            "updated": _date(a.updated),
            "scores_computed_at": _datetime(a.scores_computed_at),
            "url": a.get_absolute_url(),
        }
        for a in arenas
    ]


def _product_ref(product) -> dict | None:
    return None if product is None else {"slug": product.slug, "name": product.name}


def _pa_range(row) -> list[int] | None:
    """A stored row's PA Score range, ``[low, high]``, or None."""
    if row.pa_low is None or row.pa_high is None:
        return None
    return [int(row.pa_low), int(row.pa_high)]


def _persona_ranges(rows) -> dict:
    """Each product's ranges per persona (``ProductScore.persona_ranges``), by product id."""
    return {row.product_id: row.persona_ranges or {} for row in rows}


def _persona_scored(product, score, ranges: dict, persona: str) -> dict | None:
    if product is None:
        return None
    rng = ranges.get(product.pk, {}).get(persona)
    return {
        "product": product.slug,
        "name": product.name,
        "score": score,
        "range": None if rng is None else [int(rng[0]), int(rng[1])],
    }


def _range(rng) -> list[int] | None:
    return None if rng is None else [int(rng[0]), int(rng[1])]


def _leaderboard_row(row) -> dict:
    vs = getattr(row, "published_vs", row.vs)  # the stored partner, whatever the order shown
    return {
        "rank": row.rank,
        "product": _product_ref(row.product),
        "vs": vs.slug if vs is not None else None,
        "pa_score": row.pa_score,
        "category_scores": _scores(row.category_scores),
        "persona_scores": _scores(row.persona_scores),
        "verified": row.verified,
        "with_evidence": row.with_evidence,
        "disputed": row.disputed,
        "integrity": row.integrity,
        "confidence": str(row.confidence),
        "pa_range": _pa_range(row),
    }


def arena_detail_data(*, arena, products, leaderboard, personas, board=None) -> dict:
    """``ArenaDetailSerializer`` of an arena (``arena_get``) with its products, stored
    leaderboard rows and persona results; with ``board`` (``arena_leaderboard`` with the caller's
    weights) the leaderboard in its order, each row with its personal score, and the weights."""
    ranges = _persona_ranges(leaderboard)
    if board is None:
        rows = [_leaderboard_row(row) for row in leaderboard]
    else:
        rows = []
        for i, row in enumerate(board.rows):
            data = _leaderboard_row(row)
            data["rank"] = i + 1
            data["personal_score"] = row.personal_score
            data["personal_range"] = _range(row.personal_range)
            data["published_rank"] = row.rank
            rows.append(data)
    out = {
        "slug": arena.slug,
        "name": arena.name,
        "description": arena.description,
        "story_count": arena.story_count,
        "cell_count": arena.cell_count,
        "updated": _date(arena.updated),
        "evidence_as_of": _date(arena.evidence_as_of),
        "scores_computed_at": _datetime(arena.scores_computed_at),
        "scores_pending": bool(arena.scores_pending),
        "products": [
            {
                "slug": p.slug,
                "name": p.name,
                "tier": str(p.tier),
                "stars": p.stars,
                "stars_growth": p.stars_growth,
                "npm_weekly": p.npm_weekly,
                "pypi_weekly": p.pypi_weekly,
                "popularity_as_of": _date(p.popularity_as_of),
            }
            for p in products
        ],
        "leaderboard": rows,
        "personas": [
            {
                "persona": r.persona.slug,
                "label": r.persona.label,
                "story_count": r.story_count,
                "winner": _persona_scored(r.winner, r.winner_score, ranges, r.persona.slug),
                "runner_up": _persona_scored(
                    r.runner_up, r.runner_up_score, ranges, r.persona.slug
                ),
            }
            for r in personas
        ],
    }
    if board is not None and board.reading is not None:
        out["weights"] = board.reading.by_kind("category")
        out["persona_weights"] = board.reading.by_kind("persona")
    return out


def _story(story) -> dict:
    """``StoryBaseSerializer``'s fields of a story (a ``StoryLine``)."""
    return {
        "id": story.pk,
        "text": story.text,
        "persona": story.persona.slug,
        "category": story.category.name,
        "group": story.subgroup.name if story.subgroup is not None else None,
        "weight": story.weight,
    }


def matrix_cell_data(c) -> dict:
    """``MatrixCellSerializer`` of a ``MatrixCell``."""
    return {
        "id": c.pk,
        "verdict": c.verdict,
        "proof": c.proof,
        "quality": c.quality,
        "evidence_as_of": _date(c.evidence_as_of),
    }


def matrix_data(matrix) -> dict:
    """``MatrixSerializer`` of an ``arena_matrix``."""
    stories = []
    for row in matrix.rows:
        story = _story(row.story)
        story["cells"] = {c.product.slug: matrix_cell_data(c) for c in row.cells}
        stories.append(story)
    return {"products": [p.slug for p in matrix.products], "stories": stories}


def _winner(product) -> str:
    return scoring.DRAWN if product is None else product.slug


def _compare_cell(c) -> dict:
    return {
        "id": c.pk,
        "verdict": c.verdict,
        "proof": c.proof,
        "quality": c.quality,
        "evidence_as_of": _date(getattr(c, "evidence_as_of", None)),
        "rationale": c.rationale,
        "detail_published": bool(c.detail_published),
        "evidence": [_evidence(e) for e in c.evidence.all()],
    }


def _evidence(e) -> dict:
    """``EvidenceSerializer`` of a quote: ``url`` and ``checked_on`` only when it has them."""
    data = {"source": e.source, "quote": e.quote}
    url, checked_on = getattr(e, "url", ""), getattr(e, "checked_on", None)
    if url:
        data["url"] = url
    if checked_on is not None:
        data["checked_on"] = _date(checked_on)
    return data


def compare_data(cmp) -> dict:
    """``CompareSerializer`` of a ``head_to_head_get``."""
    stories = []
    for row in cmp.rows:
        story = _story(row.story)
        story["number"] = row.number
        story["round"] = _winner(row.winner)
        story["cells"] = {
            row.cell_a.product.slug: _compare_cell(row.cell_a),
            row.cell_b.product.slug: _compare_cell(row.cell_b),
        }
        stories.append(story)
    return {
        "products": [p.slug for p in cmp.products],
        "summary": {
            "rounds": cmp.round_count,
            "won": {p.slug: n for p, n in cmp.won.items()},
            "drawn": cmp.summary.drawn,
            "weighted": {p.slug: n for p, n in cmp.weighted.items()},
            "leader": _winner(cmp.leader),
        },
        "stories": stories,
    }


# ---------------------------------------------------------------- error bodies (for the schema)


class ErrorSerializer(serializers.Serializer):
    """What every refusal but a validation error carries (DRF's own shape)."""

    detail = serializers.CharField()


# A validation error: a message list per field (``non_field_errors`` for the body as a whole), or a
# ``detail`` message when the body could not be read at all (malformed JSON).
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": "A message (list) per field; `detail` when the body could not be read.",
    "additionalProperties": {
        "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]
    },
    "example": {"note": ["Write the public note: why the verdict changes or stays."]},
}

ERROR_DESCRIPTIONS = {
    400: "Bad input: a message per field.",
    401: "Not logged in.",
    403: "Not allowed: not a moderator, or a cross-site request.",
    404: "No such object.",
    409: "The item changed or was resolved since it was read; nothing was changed.",
    415: "The body is not JSON (Content-Type: application/json).",
    429: "Too many requests; the Retry-After header says when to try again.",
}


def error_responses(*codes: int) -> dict:
    """The documented error responses of an operation, for ``extend_schema(responses=…)``."""
    return {
        code: OpenApiResponse(
            response=VALIDATION_ERROR_SCHEMA if code == 400 else ErrorSerializer,
            description=ERROR_DESCRIPTIONS[code],
        )
        for code in codes
    }
