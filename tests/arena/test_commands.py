"""The management commands an operator runs, and the Celery tasks run in-process: what they print
and what they leave in the database."""

import io

import pytest
from django.core.management import CommandError, call_command

from arena.models import Arena, ProductScore
from arena.tasks import arena_refresh_scores, arena_refresh_stale


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_load_bundled_arena_loads_once(django_capture_on_commit_callbacks):
    # the import's recompute is sent once its transaction commits; the test's rollback isolates it
    with django_capture_on_commit_callbacks(execute=True):
        first = run("load_bundled_arena")
    assert first.startswith("Loaded Durable Execution Engines: 53 stories, ")
    assert ProductScore.objects.filter(arena__slug="durable-execution-engines").exists()
    assert run("load_bundled_arena").strip() == "Arenas already loaded; nothing to do."
    assert Arena.objects.count() == 1


@pytest.mark.django_db
def test_recompute_scores_recomputes_the_named_arenas_and_refuses_unknown_ones():
    run("generate_arena", "--slug", "gen", "--products", "2", "--stories", "3")
    ProductScore.objects.all().delete()
    assert run("recompute_scores", "gen").strip() == "Recomputed gen"
    assert ProductScore.objects.filter(arena__slug="gen").count() == 2
    with pytest.raises(CommandError, match="no arena with slug nowhere"):
        run("recompute_scores", "nowhere")


@pytest.mark.django_db
def test_the_refresh_task_recomputes_only_what_is_stale():
    run("generate_arena", "--slug", "gen", "--products", "2", "--stories", "3")
    arena = Arena.objects.get(slug="gen")
    assert arena_refresh_scores.apply(args=[arena.pk]).get() == "fresh"
    Arena.objects.filter(pk=arena.pk).update(change_seq=arena.change_seq + 1)
    assert arena_refresh_stale.apply().get() == [arena.pk]
    assert arena_refresh_scores.apply(args=[arena.pk]).get() == "fresh"
    Arena.objects.filter(pk=arena.pk).update(change_seq=arena.change_seq + 2)
    assert arena_refresh_scores.apply(args=[arena.pk]).get() == "recomputed"
    assert arena_refresh_scores.apply(args=[arena.pk + 1000]).get() == "gone"
