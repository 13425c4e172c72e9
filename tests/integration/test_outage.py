"""A Redis outage degrades the site, never breaks it: end to end, with a real redis-server, the site in
a gunicorn subprocess and a real Celery worker.

The web process has REDIS_URL (cache: DRF throttles) and CELERY_BROKER_URL on one redis-server, which
the test stops. Every public page and API GET must answer 200, a flag must go through the HTML form
and through the JSON API, a moderator must log in and uphold it in the admin; then Redis comes back
with a worker and the stored scores converge. Runs on SQLite and PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from http.cookiejar import CookieJar

import pytest
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from arena.models import Arena, ProductScore
from flags.models import Flag, ReviewItem
from stories.models import Cell
from tests.factories import totp_code
from tests.infra.services import LiveServer, celery_worker, database_url, redis_server

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ARENA = "durable-execution-engines"
EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."
PASSWORD = "a-moderator-password-for-the-outage-test"


# --------------------------------------------------------------------------- a tiny HTTP client


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """Cookies kept, redirects not followed (the test looks at each 302)."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.cookies = CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect()
        )

    def request(self, method: str, path: str, data: bytes | None = None, headers=None) -> Answer:
        req = urllib.request.Request(
            self.base_url + path, data=data, method=method, headers=headers or {}
        )
        try:  # (a request that hung on the dead Redis fails here, loudly)
            with self.opener.open(req, timeout=30) as resp:
                status, hdrs, body = resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as exc:
            status, hdrs, body = exc.code, dict(exc.headers), exc.read()
        return Answer(status, {k.lower(): v for k, v in hdrs.items()}, body)

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post_form(self, path: str, fields: dict) -> Answer:
        return self.request(
            "POST",
            path,
            urllib.parse.urlencode(fields).encode(),
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Origin": self.base_url,  # as a browser sends it, same origin
                "Referer": self.base_url + path,
            },
        )

    def post_json(self, path: str, payload: dict) -> Answer:
        return self.request(
            "POST",
            path,
            json.dumps(payload).encode(),
            {"Content-Type": "application/json", "Accept": "application/json"},
        )


class _FormFields(HTMLParser):
    """The hidden inputs (CSRF token included) of the form whose action ends with ``action``."""

    def __init__(self, action: str | None):
        super().__init__()
        self.action = action
        self.inside = action is None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.action is not None:
            self.inside = (a.get("action") or "").split("?")[0].endswith(self.action)
        elif tag == "input" and self.inside and a.get("type") == "hidden" and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""

    def handle_endtag(self, tag):
        if tag == "form" and self.action is not None:
            self.inside = False


def hidden_fields(html: str, action: str | None = None) -> dict[str, str]:
    parser = _FormFields(action)
    parser.feed(html)
    assert "csrfmiddlewaretoken" in parser.fields, html[:2000]
    return parser.fields


# --------------------------------------------------------------------------- database helpers


def hatchet_score() -> tuple:
    s = ProductScore.objects.get(product__slug="hatchet")
    return (s.pa_score, s.verified, s.with_evidence, s.integrity, s.upheld, s.upheld_in_favour)


def converged(arena_id: int) -> bool:
    a = Arena.objects.get(pk=arena_id)
    return a.scores_stale_since is None and a.computed_seq == a.change_seq


def wait_until(predicate, timeout: float, what: str) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def seeded(transactional_db, seeded_arena, django_user_model):
    """The seed arena, scored in-process and committed, and a moderator whose password the server
    process can check (this process hashes with MD5, which the server does not accept)."""
    assert seeded_arena.scores_computed_at and not seeded_arena.scores_pending
    moderator = django_user_model.objects.create_superuser("mod", "m@example.com", None)
    hasher = PBKDF2PasswordHasher()
    moderator.password = hasher.encode(PASSWORD, hasher.salt(), iterations=1000)
    moderator.save(update_fields=["password"])
    return seeded_arena


def public_paths(arena: Arena) -> list[str]:
    approval = Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )
    a, b = sorted(arena.products.values_list("slug", flat=True))[:2]
    return [
        "/",
        "/methodology/",
        f"/arenas/{ARENA}/",
        f"/arenas/{ARENA}/vs/{a}-vs-{b}/",
        f"/arenas/{ARENA}/products/hatchet/",
        f"/arenas/{ARENA}/stories/{approval.story_id}/",
        f"/cells/{approval.pk}/",
        f"/cells/{approval.pk}/flag/",
        "/changes/",
        "/changes/feed/",
        "/api/",
        "/api/arenas/",
        f"/api/arenas/{ARENA}/",
        f"/api/arenas/{ARENA}/matrix/",
        f"/api/arenas/{ARENA}/compare/{a}/{b}/",
        "/api/schema/",
        "/api/docs/",
        "/healthz",
    ]


def assert_all_answer(browser: Browser, paths: list[str], server: LiveServer) -> None:
    failures = []
    for path in paths:
        answer = browser.get(path)
        if answer.status != 200:
            failures.append(f"{path}: {answer.status}")
    assert not failures, "\n".join([*failures, "--- server log ---", server.log[-4000:]])


# --------------------------------------------------------------------------- the test


def test_redis_outage_degrades_then_scores_converge(seeded, django_user_model):
    arena = seeded
    approval = Cell.objects.get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )
    other = Cell.objects.filter(story__arena=arena).exclude(pk=approval.pk).order_by("pk").first()
    paths = public_paths(arena)
    before = hatchet_score()

    with redis_server() as redis:
        env = {
            "DATABASE_URL": database_url(),
            "CONN_MAX_AGE": "0",
            "REDIS_URL": redis.url.replace("/0", "/1"),
            "CELERY_BROKER_URL": redis.url,
            "RECOMPUTE_DEBOUNCE_SECONDS": "0.5",
            "STALE_SWEEP_SECONDS": "2",
            "TRUSTED_PROXIES": "0",
            "DEBUG": "1",
            "LOG_LEVEL": "WARNING",
        }
        web = LiveServer(env, server="gunicorn", ready_path="/healthz")
        try:
            web.start(timeout=60)
            browser = Browser(web.url)
            assert browser.get("/readyz").status == 200
            assert_all_answer(browser, paths, web)  # warm: Redis up

            # ---------------------------------------------------------- Redis goes away
            redis.stop()
            assert not redis.ping()
            assert_all_answer(browser, paths, web)
            ready = browser.get("/readyz")
            assert ready.status == 503, ready.text
            assert ready.json()["failing"] == ["broker", "redis"]
            assert ready.headers["cache-control"] == "no-store"

            # a visitor flags the cell through the HTML form
            visitor = Browser(web.url)
            form_path = f"/cells/{approval.pk}/flag/"
            form = visitor.get(form_path)
            assert form.status == 200
            fields = hidden_fields(form.text, action=form_path)
            fields.update(
                reason="wrong_verdict",
                explanation=EXPLANATION,
                proposed_verdict="full",
                proposed_quality="8",
                source_url="",
                email="",
            )
            filed = visitor.post_form(form_path, fields)
            assert filed.status == 302, filed.text[:3000]
            status_page = visitor.get(filed.headers["location"].replace(web.url, ""))
            assert status_page.status == 200

            # a script flags another cell through the JSON API
            api_flag = Browser(web.url).post_json(
                "/api/flags/",
                {"cell": other.pk, "reason": "other", "explanation": EXPLANATION},
            )
            assert api_flag.status == 201, api_flag.text[:3000]
            assert Flag.objects.filter(pk=api_flag.json()["id"], cell=other).exists()

            # the moderator logs in and upholds the form's flag in the admin
            item = ReviewItem.objects.get(cell=approval, status="pending")
            mod = Browser(web.url)
            login_page = mod.get("/admin/login/?next=/admin/")
            assert login_page.status == 200
            login = mod.post_form(
                "/admin/login/?next=/admin/",
                {
                    **hidden_fields(login_page.text),
                    "username": "mod",
                    "password": PASSWORD,
                    "next": "/admin/",
                },
            )
            assert login.status == 302 and login.headers["location"].endswith("/admin/"), (
                login.status,
                login.text[:2000],
            )
            # the second step: the code of the moderator's authenticator
            code = totp_code(django_user_model.objects.get(username="mod"))
            step = mod.get("/admin/second-factor/?next=/admin/")
            assert step.status == 200, step.text[:2000]
            verified = mod.post_form(
                "/admin/second-factor/",
                {**hidden_fields(step.text), "token": code, "next": "/admin/"},
            )
            assert verified.status == 302, verified.text[:2000]
            assert mod.get("/api/flags/?status=pending").status == 200  # a moderator's API GET
            change_path = f"/admin/flags/reviewitem/{item.pk}/change/"
            review = mod.get(change_path)
            assert review.status == 200, review.text[:2000]
            decided = mod.post_form(
                change_path,
                {
                    **hidden_fields(review.text),
                    "decision": "uphold",
                    "verdict": "full",
                    "proof": "claimed",
                    "quality": "8",
                    "note": "Confirmed while Redis was down.",
                },
            )
            assert decided.status == 302, decided.text[:3000]
            item.refresh_from_db()
            assert item.status == "upheld"
            assert hatchet_score() == before  # nothing recomputed: the broker is down
            assert Arena.objects.get(pk=arena.pk).scores_pending
            assert_all_answer(browser, paths, web)  # pages still answer, and say "pending"

            # ---------------------------------------------------------- Redis comes back
            redis.start()
            worker_env = {
                "CELERY_BROKER_URL": redis.url,
                "DATABASE_URL": database_url(),
                "STALE_SWEEP_SECONDS": "2",
                "RECOMPUTE_DEBOUNCE_SECONDS": "0.5",
            }
            with celery_worker(worker_env) as worker:
                took = wait_until(lambda: converged(arena.pk), 45, "scores to converge")
                print(f"converged {took:.2f}s after Redis and the worker came back")
                assert "Unrecoverable error" not in worker.log
            after = hatchet_score()
            # the correction raised the verdict: in Hatchet's favour, never against its integrity
            assert after[0] > before[0] and after[4] == before[4] and after[5] == before[5] + 1
            assert browser.get("/readyz").status == 200
            assert_all_answer(browser, paths, web)
            assert "Internal Server Error" not in web.log, web.log[-4000:]
        finally:
            web.close()
