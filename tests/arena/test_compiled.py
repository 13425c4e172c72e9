"""Reads compiled once (``arena.selectors.compiled``): the same rows and model instances as the
ORM's own query, whatever the values of each call, and a read that cannot be compiled safely
refused."""

from __future__ import annotations

import pytest
from django.db.models import Count, Value
from django.db.models.signals import post_init

from arena.models import Arena, PersonaResult, ProductScore
from arena.selectors import (
    arena_get,
    arena_list,
    arena_persona_result_list,
    arena_product_list,
    arena_score_list,
)
from arena.selectors.compiled import CompiledRead, InstanceRead, model_fields, model_of
from products.models import Product
from stories.models import Story
from tests.factories import ArenaFactory, ProductFactory

pytestmark = pytest.mark.django_db

_BY_SLUGS = CompiledRead(
    Product,
    lambda arena, slugs: (
        Product.objects.filter(arena=arena, slug__in=slugs)
        .order_by("slug")
        .values_list("slug", "name")
    ),
)


def test_each_call_runs_with_its_own_values_and_list_lengths():
    one, two = ArenaFactory(), ArenaFactory()
    for arena, slugs in ((one, ["a", "b", "c"]), (two, ["a", "d"])):
        for slug in slugs:
            ProductFactory(arena=arena, slug=slug, name=f"{arena.slug} {slug}")
    assert _BY_SLUGS.rows(arena=one.pk, slugs=["a", "c"]) == [
        ("a", f"{one.slug} a"),
        ("c", f"{one.slug} c"),
    ]
    assert _BY_SLUGS.rows(arena=two.pk, slugs=["d", "a"]) == [
        ("a", f"{two.slug} a"),
        ("d", f"{two.slug} d"),
    ]
    assert [tuple(r) for r in _BY_SLUGS.rows(arena=one.pk, slugs=["b"])] == [("b", f"{one.slug} b")]
    # a hostile value is a parameter, never SQL
    assert _BY_SLUGS.rows(arena=one.pk, slugs=["a' OR '1'='1"]) == []


def test_a_value_the_sql_does_not_carry_as_itself_is_refused():
    rewritten = CompiledRead(
        Story, lambda q: Story.objects.filter(text__icontains=q).values_list("pk")
    )
    with pytest.raises(ValueError):
        rewritten.rows(q="retry")
    with pytest.raises(ValueError):
        _BY_SLUGS.rows(arena=1, slugs=[])


def test_page_reads_give_what_the_orm_gives(seeded_arena):
    arena = seeded_arena
    products = arena_product_list(arena=arena)
    orm = list(Product.objects.filter(arena=arena).order_by("position"))
    assert [(p.pk, p.slug, p.name, p.stars) for p in products] == [
        (p.pk, p.slug, p.name, p.stars) for p in orm
    ]
    scores = arena_score_list(arena=arena)
    orm_scores = list(
        ProductScore.objects.filter(arena=arena).select_related("product", "vs").order_by("rank")
    )
    fields = model_fields(ProductScore)
    assert [
        [getattr(s, f.attname) for f in ProductScore._meta.concrete_fields] for s in scores
    ] == [[getattr(s, f.attname) for f in ProductScore._meta.concrete_fields] for s in orm_scores]
    assert isinstance(scores[0].category_scores, dict) and len(fields) > 5
    assert [(s.product.slug, s.vs and s.vs.slug) for s in scores] == [
        (s.product.slug, s.vs and s.vs.slug) for s in orm_scores
    ]
    results = arena_persona_result_list(arena=arena)
    orm_results = list(
        PersonaResult.objects.filter(arena=arena)
        .select_related("persona", "winner", "runner_up")
        .order_by("position")
    )
    assert results and [
        (r.persona.slug, r.winner and r.winner.name, r.runner_up and r.runner_up.name)
        for r in results
    ] == [
        (r.persona.slug, r.winner and r.winner.name, r.runner_up and r.runner_up.name)
        for r in orm_results
    ]


def test_model_of_builds_a_saved_instance():
    product = ProductFactory()
    row = Product.objects.filter(pk=product.pk).values_list(*model_fields(Product)).get()
    built = model_of(Product, row)
    assert built == product and built.name == product.name and not built._state.adding
    assert built._state.db == "default"
    # every field as the ORM reads it, the foreign key's id and its related object included
    assert {f.attname: getattr(built, f.attname) for f in Product._meta.concrete_fields} == {
        f.attname: getattr(product, f.attname) for f in Product._meta.concrete_fields
    }
    assert built.arena == product.arena


def test_model_of_goes_through_the_orm_when_something_listens_to_instances_being_built():
    product = ProductFactory()
    row = Product.objects.filter(pk=product.pk).values_list(*model_fields(Product)).get()
    seen = []

    def listener(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(listener, sender=Product)
    try:
        built = model_of(Product, row)
    finally:
        post_init.disconnect(listener, sender=Product)
    assert seen == [built] and built == product and not built._state.adding


def _fields(instance, model):
    return {
        f.attname: instance.__dict__.get(f.attname, "deferred") for f in model._meta.concrete_fields
    }


def test_an_instance_read_gives_the_instance_and_annotations_the_orm_gives(seeded_arena):
    ArenaFactory(slug="other")
    orm = (
        Arena.objects.defer("close_calls")
        .annotate(n_products=Count("products"), tag=Value("x"))
        .filter(slug="\x00mark")
    )
    read = InstanceRead.of(orm, "default")
    at = read.params.index("\x00mark")
    for slug in (seeded_arena.slug, "other"):
        built = read.one((*read.params[:at], slug, *read.params[at + 1 :]))
        expected = (
            Arena.objects.defer("close_calls").annotate(n_products=Count("products")).get(slug=slug)
        )
        assert _fields(built, Arena) == _fields(expected, Arena)
        assert "close_calls" in built.get_deferred_fields() and not built._state.adding
        assert (built.n_products, built.tag) == (expected.n_products, "x")
        assert built.close_calls == Arena.objects.get(slug=slug).close_calls  # (read on demand)
    assert read.one((*read.params[:at], "nowhere", *read.params[at + 1 :])) is None


@pytest.mark.parametrize("close_calls", [False, True])
def test_one_arena_is_read_as_the_arena_list_reads_it(seeded_arena, close_calls):
    found = arena_get(slug=seeded_arena.slug, close_calls=close_calls)
    listed = next(a for a in arena_list() if a.slug == seeded_arena.slug)
    counts = ("product_count", "story_count", "cell_count", "na_count", "evidence_oldest")
    counts += ("evidence_newest", "leader_name", "leader_slug", "leader_low", "second_high")
    assert found is not None and {c: getattr(found, c) for c in counts} == {
        c: getattr(listed, c) for c in counts
    }
    assert found.story_count > 0 and found.leader_name
    assert ("close_calls" in found.get_deferred_fields()) is not close_calls
    assert _fields(found, Arena) | {"close_calls": 0} == _fields(listed, Arena) | {"close_calls": 0}
    assert arena_get(slug="no-such-arena", close_calls=close_calls) is None
