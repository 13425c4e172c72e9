"""The flag API: cross-site safety of the anonymous POST, bounded and clean input, and moderation
by the contract (a note, no contradictions, the version read)."""

import json

import pytest
from django.core.cache import cache
from django.test import Client

from flags.forms import (
    EXPLANATION_MAX,
    EXPLANATION_MIN,
    ID_MAX,
    NOTE_MAX,
    NOTE_MISSING,
    SHORT,
)
from flags.models import Flag, ReviewItem, Status
from stories.models import Cell, CellChange
from stories.values import Proof, Verdict
from web.http.clients import AnonRateThrottle

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.select_related("product").get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def body(cell, **overrides) -> dict:
    data = {"cell": cell.pk, "reason": "wrong_verdict", "explanation": EXPLANATION}
    data.update(overrides)
    return data


def post_json(client, url, data, **headers):
    return client.post(url, json.dumps(data), content_type="application/json", **headers)


@pytest.fixture
def mod(moderator):
    client = Client()
    client.force_login(moderator)
    return client


@pytest.fixture
def flag(cell):
    response = post_json(Client(REMOTE_ADDR="10.1.0.1"), "/api/flags/", body(cell))
    assert response.status_code == 201
    return Flag.objects.get(pk=response.json()["id"])


# ---------------------------------------------------------------- cross-site safety


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_ORIGIN": "http://testserver.evil.example"},
        {"HTTP_ORIGIN": "null"},
        {"HTTP_ORIGIN": "https://testserver"},  # another scheme is another origin
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_ORIGIN": "http://testserver", "HTTP_SEC_FETCH_SITE": "cross-site"},
    ],
)
def test_cross_site_requests_are_refused_with_a_message(cell, headers):
    response = post_json(Client(), "/api/flags/", body(cell), **headers)
    assert response.status_code == 403
    assert "not from another site" in response.json()["detail"]
    assert not Flag.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "headers",
    [
        {},  # a script: no Origin, no Sec-Fetch-Site
        {"HTTP_ORIGIN": "http://testserver"},
        {"HTTP_ORIGIN": "http://testserver", "HTTP_SEC_FETCH_SITE": "same-origin"},
        {"HTTP_SEC_FETCH_SITE": "none"},
    ],
)
def test_same_site_and_scripts_are_accepted(cell, headers):
    response = post_json(Client(), "/api/flags/", body(cell), **headers)
    assert response.status_code == 201, response.content


@pytest.mark.django_db
def test_a_trusted_origin_is_this_site(cell, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://arena.example"]
    response = post_json(Client(), "/api/flags/", body(cell), HTTP_ORIGIN="https://arena.example")
    assert response.status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]
)
def test_only_json_bodies_are_read(cell, content_type):
    client = Client()
    if content_type == "multipart/form-data":
        response = client.post("/api/flags/", body(cell))
    elif content_type == "text/plain":
        response = client.post("/api/flags/", json.dumps(body(cell)), content_type="text/plain")
    else:
        response = client.post(
            "/api/flags/", "cell=1&reason=other&explanation=x", content_type=content_type
        )
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_a_post_without_body_or_type_is_415(cell):
    response = Client().generic("POST", "/api/flags/")
    assert response.status_code == 415 and response.json()["detail"]


@pytest.mark.django_db
def test_json_with_charset_is_json(cell):
    response = Client().post(
        "/api/flags/", json.dumps(body(cell)), content_type="application/json; charset=utf-8"
    )
    assert response.status_code == 201


@pytest.mark.django_db
def test_the_html_form_keeps_djangos_csrf(cell):
    client = Client(enforce_csrf_checks=True)
    data = {"reason": "wrong_verdict", "explanation": EXPLANATION}
    assert client.post(f"/cells/{cell.pk}/flag/", data).status_code == 403
    form = client.get(f"/cells/{cell.pk}/flag/")
    token = form.context["csrf_token"]
    sent = client.post(f"/cells/{cell.pk}/flag/", {**data, "csrfmiddlewaretoken": str(token)})
    assert sent.status_code == 302 and Flag.objects.count() == 1


# ---------------------------------------------------------------- bounded, clean input


@pytest.mark.django_db
@pytest.mark.parametrize("length", [255, 320, 400])
def test_an_email_longer_than_254_characters_is_400(cell, length):
    email = "a" * (length - len("@example.com")) + "@example.com"
    response = post_json(Client(), "/api/flags/", body(cell, email=email))
    assert response.status_code == 400 and "email" in response.json()
    assert not Flag.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "field, value",
    [
        ("email", "a\x1bb@example.com"),
        ("source_url", "https://example.com/\x1b[31m"),
        ("source_url", "https://example.com/\x7f"),
        ("explanation", EXPLANATION + "\x00"),
    ],
)
def test_control_characters_in_a_one_line_field_or_a_nul_are_400(cell, field, value):
    response = post_json(Client(), "/api/flags/", body(cell, **{field: value}))
    assert response.status_code == 400 and field in response.json()
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_control_characters_in_an_explanation_are_dropped(cell):
    ok = post_json(
        Client(), "/api/flags/", body(cell, explanation=f"\x1b[1m{EXPLANATION}\x0b\r\nok")
    )
    assert ok.status_code == 201
    assert Flag.objects.get().explanation == f"[1m{EXPLANATION}\nok"


@pytest.mark.django_db
@pytest.mark.parametrize("raw", ["{", "[]", "null", '"x"', "1", '{"cell": "x"}', '{"cell": 1e400}'])
def test_bad_json_and_wrong_shapes_are_400_with_a_message(cell, raw):
    response = Client().post("/api/flags/", raw, content_type="application/json")
    assert response.status_code == 400 and response.json()


# ---------------------------------------------------------------- moderation


@pytest.mark.django_db
def test_flags_count_against_flag_rate_and_refused_posts_against_the_api_rate(
    seeded_arena, monkeypatch, settings
):
    settings.FLAG_RATE = "10/hour"
    monkeypatch.setattr(AnonRateThrottle, "rate", "2/minute", raising=False)
    cache.clear()
    client = Client(REMOTE_ADDR="10.1.0.9")
    cells = Cell.objects.filter(story__arena=seeded_arena).order_by("pk")[:4]
    filed = [post_json(client, "/api/flags/", body(c)).status_code for c in cells]
    assert filed == [201, 201, 201, 201]  # beyond the API's 2 a minute: flags have their own limit
    junk = [post_json(client, "/api/flags/", body(cells[0], explanation="no")) for _ in range(3)]
    assert [r.status_code for r in junk] == [400, 400, 429]
    assert int(junk[-1]["Retry-After"]) > 0
    assert Flag.objects.count() == 4
    cache.clear()


@pytest.mark.django_db
@pytest.mark.parametrize("action", ["uphold", "reject"])
@pytest.mark.parametrize("note", [None, "", "   ", "\x1b\x0b"])
def test_a_decision_needs_a_note(flag, mod, action, note):
    data = {} if note is None else {"note": note}
    response = post_json(mod, f"/api/flags/{flag.pk}/{action}/", data)
    assert response.status_code == 400
    assert set(response.json()) == {"note"} and response.json()["note"][0]
    flag.item.refresh_from_db()
    assert flag.item.status == "pending"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "values, fields",
    [
        ({"verdict": "none", "quality": 5}, {"quality"}),
        ({"verdict": "n/a", "proof": "probed"}, {"proof"}),
        ({"verdict": "n/a", "quality": 3}, {"quality"}),
        ({"verdict": "none", "proof": "claimed", "quality": 4}, {"proof", "quality"}),
    ],
)
def test_contradictory_values_are_400_per_field_and_change_nothing(flag, mod, cell, values, fields):
    response = post_json(mod, f"/api/flags/{flag.pk}/uphold/", {**values, "note": "Checked."})
    assert response.status_code == 400, response.content
    assert set(response.json()) == fields
    cell.refresh_from_db()
    flag.item.refresh_from_db()
    assert cell.verdict == "none" and flag.item.status == "pending"
    assert not CellChange.objects.exists()


def pending_rows(mod) -> list[dict]:
    listed = mod.get("/api/flags/?status=pending").json()
    return listed["results"] if isinstance(listed, dict) else listed


@pytest.mark.django_db
def test_the_list_shows_the_items_version(flag, mod):
    assert pending_rows(mod)[0]["version"] == flag.item.version


@pytest.mark.django_db
def test_a_flag_shows_its_items_version(flag, mod):
    assert mod.get(f"/api/flags/{flag.pk}/").json()["version"] == flag.item.version


@pytest.mark.django_db
def test_a_decision_on_another_version_is_409_and_changes_nothing(flag, mod):
    version = flag.item.version
    stale = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": "No.", "version": version + 1})
    assert stale.status_code == 409 and stale.json()["detail"]
    flag.item.refresh_from_db()
    assert flag.item.status == Status.PENDING


UPHOLD_PARTIAL = {"verdict": "partial", "proof": "claimed", "quality": 6, "note": "Yes."}


@pytest.mark.django_db
def test_an_uphold_of_the_version_read_applies_the_values(flag, mod, cell):
    version = flag.item.version
    done = post_json(mod, f"/api/flags/{flag.pk}/uphold/", {**UPHOLD_PARTIAL, "version": version})
    assert done.status_code == 200, done.content
    cell.refresh_from_db()
    assert (cell.verdict, cell.proof, cell.quality) == (Verdict.PARTIAL, Proof.CLAIMED, 6)


@pytest.mark.django_db
def test_an_uphold_can_rewrite_the_rationale_or_leave_it_marked(flag, mod, cell):
    body = {**UPHOLD_PARTIAL, "rationale": "  Partial: the docs show it behind a flag.  "}
    done = post_json(mod, f"/api/flags/{flag.pk}/uphold/", body)
    assert done.status_code == 200, done.content
    cell.refresh_from_db()
    assert cell.rationale == "Partial: the docs show it behind a flag."
    assert cell.rationale_rewritten_at is not None and cell.rationale_predates is None


@pytest.mark.django_db
def test_an_uphold_without_a_rationale_marks_the_old_one(flag, mod, cell):
    old = cell.rationale
    done = post_json(mod, f"/api/flags/{flag.pk}/uphold/", {**UPHOLD_PARTIAL, "rationale": ""})
    assert done.status_code == 200, done.content
    cell.refresh_from_db()
    assert cell.rationale == old and cell.rationale_predates is not None
    too_long = {**UPHOLD_PARTIAL, "rationale": "x" * 100_000}
    assert post_json(mod, f"/api/flags/{flag.pk}/uphold/", too_long).status_code in (400, 409)


@pytest.mark.django_db
def test_a_decision_moves_the_item_to_its_next_version(flag, mod):
    version = flag.item.version
    done = post_json(mod, f"/api/flags/{flag.pk}/uphold/", {**UPHOLD_PARTIAL, "version": version})
    assert done.json()["status"] == Status.UPHELD and done.json()["version"] == version + 1


@pytest.mark.django_db
def test_a_decision_on_a_resolved_item_is_409_even_with_its_new_version(flag, mod):
    version = flag.item.version
    post_json(mod, f"/api/flags/{flag.pk}/uphold/", {**UPHOLD_PARTIAL, "version": version})
    again = post_json(
        mod, f"/api/flags/{flag.pk}/reject/", {"note": "Late.", "version": version + 1}
    )
    assert again.status_code == 409


@pytest.mark.django_db
@pytest.mark.parametrize("version", [0, -1, "x", 2**40, True])
def test_a_version_that_is_no_version_is_400(flag, mod, version):
    response = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": "No.", "version": version})
    assert response.status_code == 400 and "version" in response.json()


@pytest.mark.django_db
def test_a_note_with_a_nul_is_400(flag, mod):
    response = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": "Not\x1b so.\x00"})
    assert response.status_code == 400 and "note" in response.json()


@pytest.mark.django_db
def test_notes_are_stored_without_control_characters(flag, mod):
    ok = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": "Not\x1b\x0b so."})
    assert ok.status_code == 200
    assert ReviewItem.objects.get().public_note == "Not so."


@pytest.mark.django_db
def test_an_unknown_status_filter_is_400(flag, mod):
    response = mod.get("/api/flags/?status=nope")
    assert response.status_code == 400 and "status" in response.json()


@pytest.mark.django_db
def test_the_status_filter_filters(flag, mod):
    assert mod.get("/api/flags/?status=upheld").json() == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, url",
    [
        ("get", "/api/flags/999999/"),
        ("get", "/api/flags/1.5/"),
        ("post", "/api/flags/%00/uphold/"),
        ("post", "/api/flags/99999999999999999999999/reject/"),
    ],
)
def test_an_unknown_flag_is_a_json_404(mod, method, url):
    if method == "get":
        response = mod.get(url)
    else:
        response = post_json(mod, url, {"note": "x"})
    assert response.status_code == 404 and response.json()["detail"]


@pytest.fixture
def rejected_with_a_late_flag(cell, flag, mod):
    """A rejection covering the flags listed before another came: the late flag."""
    rows = pending_rows(mod)
    late = post_json(Client(REMOTE_ADDR="10.1.0.2"), "/api/flags/", body(cell))
    assert late.status_code == 201
    response = post_json(
        mod,
        f"/api/flags/{flag.pk}/reject/",
        {
            "note": "Not convincing.",
            "flags": [r["id"] for r in rows],
            "version": rows[0]["version"],
        },
    )
    assert response.status_code == 200 and response.json()["status"] == Status.REJECTED
    return Flag.objects.get(pk=late.json()["id"])


@pytest.mark.django_db
def test_an_api_decision_leaves_a_flag_it_did_not_list_pending(rejected_with_a_late_flag, flag):
    late = rejected_with_a_late_flag
    assert late.item.status == Status.PENDING and late.item_id != flag.item_id


@pytest.mark.django_db
def test_an_api_decision_covering_no_flag_is_400(flag, mod):
    empty = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": "x", "flags": []})
    assert empty.status_code == 400 and "flags" in empty.json()


DEPTHS = [1000, 5000, 100_000]


@pytest.mark.django_db
@pytest.mark.parametrize("depth", DEPTHS)
def test_deeply_nested_json_flag_is_a_400_not_a_server_error(cell, depth):
    deep = "[" * depth
    response = Client(REMOTE_ADDR="10.1.0.9").post(
        "/api/flags/", deep, content_type="application/json"
    )
    assert response.status_code == 400 and "detail" in response.json()


@pytest.mark.django_db
@pytest.mark.parametrize("depth", DEPTHS)
def test_deeply_nested_json_decision_is_a_400_not_a_server_error(flag, mod, depth):
    decided = mod.post(
        f"/api/flags/{flag.pk}/reject/", "[" * depth, content_type="application/json"
    )
    assert decided.status_code == 400


# ---------------------------------------------------------------- one rule, one message


@pytest.mark.django_db
def test_an_api_note_missing_gets_the_decisions_message(flag, mod):
    response = post_json(mod, f"/api/flags/{flag.pk}/reject/", {"note": " "})
    assert response.json() == {"note": [NOTE_MISSING]}


@pytest.mark.django_db
def test_an_api_explanation_too_short_gets_the_flags_message(cell):
    response = post_json(Client(), "/api/flags/", body(cell, explanation="Too short."))
    assert response.json() == {"explanation": [SHORT % {"limit_value": 20, "show_value": 10}]}


@pytest.mark.django_db
def test_a_decision_may_name_any_flag_id_a_key_holds(flag, mod):
    """Ids are 64-bit: a large one is no malformed request, just no flag of this item."""
    response = post_json(
        mod, f"/api/flags/{flag.pk}/reject/", {"note": "No.", "flags": [flag.pk, ID_MAX]}
    )
    assert (
        response.status_code == 400
        and "not (all) on this review item" in response.json()["flags"][0]
    )


@pytest.mark.django_db
def test_the_schema_states_the_bounds_of_an_explanation_and_a_note():
    schemas = (
        Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()["components"]["schemas"]
    )
    explanation = schemas["FlagCreate"]["properties"]["explanation"]
    note = schemas["Reject"]["properties"]["note"]
    assert (explanation["minLength"], explanation["maxLength"]) == (
        EXPLANATION_MIN,
        EXPLANATION_MAX,
    )
    assert (note["minLength"], note["maxLength"]) == (1, NOTE_MAX)


@pytest.mark.django_db
@pytest.mark.parametrize("explanation", ["", "   "])
def test_an_api_explanation_left_blank_gets_the_flags_message(cell, explanation):
    response = post_json(Client(), "/api/flags/", body(cell, explanation=explanation))
    assert response.json() == {"explanation": [SHORT % {"limit_value": 20, "show_value": 0}]}
