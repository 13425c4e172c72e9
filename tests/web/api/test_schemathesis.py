"""Schemathesis over the whole OpenAPI schema (/api/schema/), against the seeded arena.

Every operation is called with generated requests, valid and invalid (bounded, deterministic), as an
anonymous caller and as a logged-in moderator, and every response goes through every one of
schemathesis's checks: no server error, a documented status code, content type, headers and body
(formats included: ``format: uri`` holds), invalid data refused, valid data accepted, an unsupported
method refused with its Allow header, authentication not ignored.
"""

from __future__ import annotations

import re
from collections import Counter
from types import SimpleNamespace

import pytest
import schemathesis
from django.contrib.auth.models import Group
from django.core import signals
from django.core.cache import cache
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import Client, override_settings
from hypothesis import HealthCheck, settings

from flags.forms import FlagForm
from flags.models import Reason
from flags.services import flag_submit
from stories.models import Cell
from stories.values import Verdict

EXAMPLES = 40  # per operation and generation mode; the module runs in well under a minute
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
CSRF = "k" * 32  # a CSRF secret of our own, sent as cookie and header (Django accepts it unmasked)
EXPLANATION = "The documentation now describes this feature in detail, with examples."


def config(*, moderator: bool) -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            "seed": 8,
            # the WSGI transport hands back the body as sent: ask for it uncompressed (GZipMiddleware)
            "headers": {"Accept-Encoding": "identity"},
            "generation": {
                "mode": "all",
                "max-examples": EXAMPLES,
                "deterministic": True,
                # the moderator run logs in by itself; it does not fuzz the session cookie
                "with-security-parameters": not moderator,
            },
            "phases": {"stateful": {"enabled": False}},
            # every check schemathesis has (`--checks all`), stated rather than left to the default
            "checks": {"enabled": True},
            "operations": [
                {
                    # A schema-valid `weights` can name no category or user type of the arena (the
                    # schema cannot list an arena's categories): refused (400) with a message.
                    "include-path-regex": "^/api/arenas/[^/]+/$",
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": ["2xx", "400", "404", "429"]
                        }
                    },
                },
                {
                    # Two to six slugs are schema-valid but may name no product of the arena: a 400
                    # that says so.
                    "include-path-regex": "^/api/arenas/[^/]+/compare/$",
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": ["2xx", "400", "404", "429"]
                        }
                    },
                },
                {
                    # A schema-valid flag or decision can still be refused (400) for what the schema
                    # cannot say: an unknown or retired cell, a second flag of one client on one
                    # cell, a proposal that is no valid cell (`none` with a quality above 0).
                    "include-method": "POST",
                    "include-path-regex": "^/api/flags/",
                    "checks": {
                        "positive_data_acceptance": {
                            "expected-statuses": ["2xx", "400", "403", "404", "409", "429"]
                        }
                    },
                },
            ],
        }
    )


# examples run per operation label, and the statuses answered, per caller: the module's figures
RUN: dict[str, Counter] = {"anonymous": Counter(), "moderator": Counter()}
STATUSES: dict[str, Counter] = {"anonymous": Counter(), "moderator": Counter()}


@pytest.fixture
def wsgi_in_test_transaction():
    """Let the WSGI application run inside the test's transaction, as Django's test client does:
    at the end of a request Django closes a connection that is in a transaction."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def site(seeded_arena, settings, wsgi_in_test_transaction):
    """The seeded arena with a few pending flags, served as the test client's host sees it."""
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    settings.SECURE_SSL_REDIRECT = False
    settings.FLAG_RATE = "100000/hour"
    cells = list(Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:6])
    flags = [
        flag_submit(
            cell=cell,
            form=FlagForm(
                {
                    "reason": Reason.WRONG_VERDICT,
                    "explanation": EXPLANATION,
                    "proposed_verdict": Verdict.PARTIAL,
                    "proposed_quality": 5,
                }
            ),
            client=f"schemathesis-{i}",
        )
        for i, cell in enumerate(cells)
    ]
    products = list(seeded_arena.products.order_by("position").values_list("slug", flat=True))
    cells = list(
        Cell.objects.filter(story__arena=seeded_arena).order_by("pk").values_list("pk", flat=True)
    )
    return SimpleNamespace(
        arena=seeded_arena.slug, products=products, cells=cells, flags=[f.pk for f in flags]
    )


def aim(case, site) -> None:
    """Point part of the ids and slugs of valid requests at objects that exist, so that the views'
    real work is exercised, not only their 404s (invalid requests are left alone: they must be
    refused)."""
    if case.meta is not None and not case.meta.generation.mode.is_positive:
        return
    params = case.path_parameters or {}
    for name, value in list(params.items()):
        if name == "id" and isinstance(value, int) and not isinstance(value, bool) and value > 0:
            params[name] = site.flags[value % len(site.flags)]
        elif isinstance(value, str) and SLUG.fullmatch(value) and len(value) % 4:
            if name == "slug":
                params[name] = site.arena
            elif name in ("a", "b"):
                params[name] = site.products[len(value) % len(site.products)]
    query = case.query or {}
    products = query.get("products")
    if isinstance(products, str) and len(products) % 4:
        # as many distinct products of the arena as were generated (comma-separated)
        n, start = products.count(",") + 1, len(products)
        query["products"] = ",".join(
            site.products[(start + i) % len(site.products)] for i in range(min(n, 6))
        )
    body = case.body
    if isinstance(body, dict) and type(body.get("cell")) is int and body["cell"] > 0:
        body["cell"] = site.cells[body["cell"] % len(site.cells)]


@pytest.fixture
def moderator_session(site, django_user_model):
    user = django_user_model.objects.create_user("st-mod", password="pw")
    user.groups.add(Group.objects.get_or_create(name="Moderators")[0])  # a flush removes it
    client = Client()
    client.force_login(user)
    SESSION.update(sessionid=client.cookies["sessionid"].value, csrftoken=CSRF)
    yield
    SESSION.clear()


# The application and its schema, loaded once at collection (the schema needs no database), served
# over plain HTTP to "localhost" whatever the environment's DEBUG says: the middleware reads
# SECURE_SSL_REDIRECT when the application is built. (schemathesis.pytest.from_fixture, which would
# load it in a fixture, does not work with pytest 9 yet.)
with override_settings(ALLOWED_HOSTS=["localhost"], SECURE_SSL_REDIRECT=False):
    application = WSGIHandler()
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/", application, config=config(moderator=False)
    )
    moderator_schema = schemathesis.openapi.from_wsgi(
        "/api/schema/", application, config=config(moderator=True)
    )

# the moderator's session, set by the fixture of the test that runs (a new one for each operation)
SESSION: dict[str, str] = {}


@moderator_schema.auth(refresh_interval=None)
class ModeratorSession:
    """Logs the moderator run in: the session cookie, and DRF's CSRF check satisfied."""

    def get(self, case, context):
        return dict(SESSION)

    def set(self, case, data, context):
        if case.cookies is None:
            case.cookies = {}
        case.cookies.update(data)
        if case.headers is None:
            case.headers = {}
        case.headers["X-CSRFToken"] = CSRF


HYPOTHESIS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _call(case, caller: str):
    RUN[caller][case.operation.label] += 1
    cache.clear()  # DRF's request throttle keeps its history in the cache: start each call afresh
    response = case.call()
    STATUSES[caller][(case.operation.label, response.status_code)] += 1
    return response


@schema.parametrize()
@HYPOTHESIS
def test_api_as_anonymous(case, site):
    aim(case, site)
    response = _call(case, "anonymous")
    case.validate_response(response)


@moderator_schema.parametrize()
@HYPOTHESIS
def test_api_as_moderator(case, moderator_session, site):
    aim(case, site)  # valid flag ids become the seeded flags: decisions are really made (then 409)
    if "sessionid" not in (case.cookies or {}):
        # the coverage phase's cases come without the provider's cookies: log them in too
        ModeratorSession().set(case, dict(SESSION), None)
    response = _call(case, "moderator")
    case.validate_response(response)


def test_report_figures():
    """Runs last in this module: every operation was exercised; prints the figures."""
    anonymous, moderator = RUN["anonymous"], RUN["moderator"]
    if not anonymous:
        pytest.skip("the schemathesis tests did not run")
    print(
        f"\nschemathesis: {len(anonymous)} operations as anonymous, "
        f"{sum(anonymous.values())} examples; {len(moderator)} operations as moderator, "
        f"{sum(moderator.values())} examples"
    )
    for caller, counts in RUN.items():
        for label, n in sorted(counts.items()):
            statuses = sorted(
                (code, k) for (op, code), k in STATUSES[caller].items() if op == label
            )
            answered = ", ".join(f"{code}×{k}" for code, k in statuses)
            print(f"  {caller:9} {n:4}  {label:42} {answered}")
    assert len(anonymous) == 10 and len(moderator) == 10
    # the runs reached the views' real work, not only their refusals
    answered = STATUSES["moderator"]
    for label in ("POST /api/flags/{id}/uphold/", "POST /api/flags/{id}/reject/"):
        assert answered[(label, 200)] and answered[(label, 409)], label
    assert STATUSES["anonymous"][("POST /api/flags/", 201)]
