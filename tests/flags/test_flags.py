"""Filing flags (HTML form, htmx, API), abuse limits, moderation exactly once, and the public record."""

import pytest
from django.test import Client

from arena.models import ProductScore
from flags.models import Flag, ModeratorAction, ReviewItem
from flags.inputs import ModerationDecision
from flags.services import review_item_uphold
from stories.models import Cell, CellChange

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.select_related("product").get(
        story__text__startswith="A workflow pauses for human approval", product__slug="hatchet"
    )


def client_from(ip: str) -> Client:
    return Client(REMOTE_ADDR=ip)


def form_data(**overrides):
    data = {
        "reason": "wrong_verdict",
        "proposed_verdict": "full",
        "proposed_quality": "8",
        "explanation": EXPLANATION,
    }
    data.update(overrides)
    return data


@pytest.mark.django_db
def test_flag_form_page_without_javascript(cell):
    c = client_from("10.0.0.1")
    page = c.get(f"/cells/{cell.pk}/flag/")
    assert page.status_code == 200
    html = page.content.decode()
    for label in (
        "Reason",
        "Explanation",
        "Proposed verdict",
        "Source URL",
        "Email (optional, never shown)",
    ):
        assert label in html
    response = c.post(f"/cells/{cell.pk}/flag/", form_data())
    assert response.status_code == 302
    flag = Flag.objects.get()
    assert response["Location"].startswith(f"/flags/status/{flag.token}/")
    status = c.get(response["Location"]).content.decode()
    assert "pending" in status and EXPLANATION in status
    assert len(flag.token) >= 30


@pytest.mark.django_db
def test_flag_via_htmx_confirms_in_place(cell):
    c = client_from("10.0.0.2")
    form = c.get(f"/cells/{cell.pk}/flag/", HTTP_HX_REQUEST="true")
    assert b"<html" not in form.content and b'name="explanation"' in form.content
    done = c.post(f"/cells/{cell.pk}/flag/", form_data(), HTTP_HX_REQUEST="true")
    assert done.status_code == 201
    body = done.content.decode()
    assert "<html" not in body and "pending review" in body
    assert f"/flags/status/{Flag.objects.get().token}/" in body


@pytest.mark.django_db
def test_bad_flag_gets_a_message_per_field_and_stores_nothing(cell):
    c = client_from("10.0.0.3")
    response = c.post(
        f"/cells/{cell.pk}/flag/",
        form_data(
            explanation="too short", proposed_quality="11", source_url="notaurl", email="nope"
        ),
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Ensure this value is less than or equal to 10." in html
    assert "Enter a valid URL." in html
    assert "Enter a valid email address." in html
    assert not Flag.objects.exists()
    short = c.post(f"/cells/{cell.pk}/flag/", form_data(explanation="too short"))
    assert short.status_code == 400
    assert "at least 20 characters" in short.content.decode()
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_honeypot_is_refused(cell):
    response = client_from("10.0.0.4").post(
        f"/cells/{cell.pk}/flag/", form_data(website="http://spam.example")
    )
    assert response.status_code == 400 and not Flag.objects.exists()


@pytest.mark.django_db
def test_same_client_same_cell_pending_is_told_and_reporters_grouped(cell):
    a, b = client_from("10.0.1.1"), client_from("10.0.1.2")
    assert a.post(f"/cells/{cell.pk}/flag/", form_data()).status_code == 302
    again = a.post(f"/cells/{cell.pk}/flag/", form_data())
    assert again.status_code == 400
    assert "already flagged this verdict" in again.content.decode()
    assert b.post(f"/cells/{cell.pk}/flag/", form_data(reason="wrong_quality")).status_code == 302
    item = ReviewItem.objects.get()
    assert item.flags.count() == 2
    assert len({f.client_hash for f in item.flags.all()}) == 2
    assert all("10.0.1" not in f.client_hash for f in item.flags.all())  # stored only hashed


@pytest.mark.django_db
def test_flood_is_throttled_with_retry_after_and_accepted_flags_are_stored(seeded_arena, settings):
    settings.FLAG_RATE = "3/hour"
    c = client_from("10.0.2.1")
    cells = list(Cell.objects.filter(story__arena=seeded_arena)[:5])
    codes = [c.post(f"/cells/{x.pk}/flag/", form_data()).status_code for x in cells[:4]]
    assert codes == [302, 302, 302, 429]
    blocked = c.post(f"/cells/{cells[4].pk}/flag/", form_data())
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    assert Flag.objects.count() == 3
    api = client_from("10.0.2.1").post(
        "/api/flags/",
        {"cell": cells[4].pk, "reason": "other", "explanation": EXPLANATION},
        content_type="application/json",
    )
    assert api.status_code == 429 and int(api["Retry-After"]) > 0
    other = client_from("10.0.2.2").post(f"/cells/{cells[4].pk}/flag/", form_data())
    assert other.status_code == 302


@pytest.mark.django_db
def test_api_flag_create_and_errors(cell):
    c = client_from("10.0.3.1")
    ok = c.post(
        "/api/flags/",
        {
            "cell": cell.pk,
            "reason": "wrong_verdict",
            "explanation": EXPLANATION,
            "proposed_verdict": "full",
            "proposed_quality": 8,
        },
        content_type="application/json",
    )
    assert ok.status_code == 201
    assert ok.json()["status"] == "pending" and ok.json()["id"] == Flag.objects.get().pk
    assert "email" not in ok.json()
    bad = c.post(
        "/api/flags/",
        {"cell": cell.pk, "reason": "because", "explanation": "short"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and set(bad.json()) >= {"reason"}
    bad2 = c.post(
        "/api/flags/",
        {"cell": cell.pk, "reason": "other", "explanation": "short", "proposed_quality": 12},
        content_type="application/json",
    )
    assert bad2.status_code == 400 and set(bad2.json()) == {"explanation", "proposed_quality"}
    missing = c.post(
        "/api/flags/",
        {"cell": 999999, "reason": "other", "explanation": EXPLANATION},
        content_type="application/json",
    )
    assert missing.status_code == 400 and "cell" in missing.json()
    assert Flag.objects.count() == 1


@pytest.mark.django_db
def test_script_in_explanation_is_escaped(cell, moderator):
    c = client_from("10.0.4.1")
    evil = "<script>alert('x')</script> this verdict is definitely wrong"
    response = c.post(f"/cells/{cell.pk}/flag/", form_data(explanation=evil))
    status = c.get(response["Location"]).content.decode()
    assert "<script>alert" not in status and "&lt;script&gt;alert" in status
    admin = Client()
    admin.force_login(moderator)
    page = admin.get(
        f"/admin/flags/reviewitem/{ReviewItem.objects.get().pk}/change/"
    ).content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


@pytest.mark.django_db
def test_anonymous_cannot_see_or_resolve(cell, django_user_model):
    client_from("10.0.5.1").post(f"/cells/{cell.pk}/flag/", form_data())
    flag = Flag.objects.get()
    anon = Client()
    assert anon.get("/api/flags/?status=pending").status_code in (401, 403)
    assert anon.post(f"/api/flags/{flag.pk}/uphold/", {"note": "x"}).status_code in (401, 403)
    assert anon.get("/admin/flags/reviewitem/").status_code == 302  # to the login page
    staff = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    c = Client()
    c.force_login(staff)
    assert c.post(f"/api/flags/{flag.pk}/reject/", {"note": "x"}).status_code == 403
    assert c.get(f"/admin/flags/reviewitem/{flag.item_id}/change/").status_code == 403
    flag.item.refresh_from_db()
    assert flag.item.status == "pending"


@pytest.mark.django_db
def test_uphold_in_admin_corrects_cell_records_and_recomputes(
    cell, moderator, django_capture_on_commit_callbacks
):
    reporter = client_from("10.0.6.1")
    sent = reporter.post(f"/cells/{cell.pk}/flag/", form_data())
    item = ReviewItem.objects.get()
    before = ProductScore.objects.get(product=cell.product)
    admin = Client()
    admin.force_login(moderator)
    queue = admin.get("/admin/flags/reviewitem/").content.decode()
    assert "Hatchet PA" in queue and "rank" in queue  # score impact in the queue
    review = admin.get(f"/admin/flags/reviewitem/{item.pk}/change/").content.decode()
    assert "Score impact of upholding" in review and "1 reporter" in review
    with django_capture_on_commit_callbacks(execute=True):
        done = admin.post(
            f"/admin/flags/reviewitem/{item.pk}/change/",
            {
                "decision": "uphold",
                "verdict": "full",
                "proof": "claimed",
                "quality": "8",
                "note": "Docs confirm it.",
                "version": item.version,
            },
        )
    assert done.status_code == 302
    cell.refresh_from_db()
    assert (cell.verdict, cell.proof, cell.quality) == ("full", "claimed", 8)
    change = CellChange.objects.get(cell=cell)
    assert (
        change.kind,
        change.old_verdict,
        change.new_verdict,
        change.note,
        change.changed_by,
    ) == (
        "flag",
        "none",
        "full",
        "Docs confirm it.",
        moderator,
    )
    after = ProductScore.objects.get(product=cell.product)
    assert after.pa_score > before.pa_score and after.upheld == 1
    assert ModeratorAction.objects.get().action == "uphold"
    status = reporter.get(sent["Location"]).content.decode()
    assert "upheld" in status and "Docs confirm it." in status
    # public record: recent changes and Atom feed
    assert "Docs confirm it." in Client().get("/changes/").content.decode()
    feed = Client().get("/changes/feed/")
    assert (
        feed["Content-Type"].startswith("application/atom+xml") and b"Hatchet: none" in feed.content
    )
    # a second resolution is refused and changes nothing
    again = admin.post(
        f"/admin/flags/reviewitem/{item.pk}/change/",
        {"decision": "reject", "note": "late", "version": item.version},
    )
    item.refresh_from_db()
    assert item.status == "upheld" and ModeratorAction.objects.count() == 1
    assert again.status_code in (200, 302)


@pytest.mark.django_db
def test_two_moderators_at_once_resolve_once(cell, moderator, django_user_model):
    client_from("10.0.7.1").post(f"/cells/{cell.pk}/flag/", form_data())
    item = ReviewItem.objects.get()
    other = django_user_model.objects.create_superuser("boss", "b@example.com", "pw")
    first, second = Client(), Client()
    first.force_login(moderator)
    second.force_login(other)
    version = item.version  # both opened the page before either sent
    r1 = first.post(
        f"/admin/flags/reviewitem/{item.pk}/change/",
        {"decision": "reject", "note": "Not convincing.", "version": version},
    )
    r2 = second.post(
        f"/admin/flags/reviewitem/{item.pk}/change/",
        {
            "decision": "uphold",
            "verdict": "full",
            "proof": "claimed",
            "quality": "9",
            "note": "Yes.",
            "version": version,
        },
        follow=True,
    )
    assert r1.status_code == 302
    assert "already resolved" in r2.content.decode()
    item.refresh_from_db()
    cell.refresh_from_db()
    assert item.status == "rejected" and cell.verdict == "none" and not CellChange.objects.exists()


@pytest.mark.django_db
def test_api_moderation(cell, moderator, django_capture_on_commit_callbacks):
    client_from("10.0.8.1").post(f"/cells/{cell.pk}/flag/", form_data())
    flag = Flag.objects.get()
    c = Client()
    c.force_login(moderator)
    pending = c.get("/api/flags/?status=pending").json()
    rows = pending["results"] if isinstance(pending, dict) else pending
    assert [r["id"] for r in rows] == [flag.pk] and rows[0]["reporters"] == 1
    with django_capture_on_commit_callbacks(execute=True):
        ok = c.post(
            f"/api/flags/{flag.pk}/uphold/", {"note": "Confirmed"}, content_type="application/json"
        )
    assert ok.status_code == 200 and ok.json()["status"] == "upheld"
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == ("full", 8)  # the flag's proposal, proof completed
    twice = c.post(f"/api/flags/{flag.pk}/reject/", {"note": "x"}, content_type="application/json")
    assert twice.status_code == 409


@pytest.mark.django_db
def test_bulk_reject(seeded_arena, moderator):
    cells = list(Cell.objects.filter(story__arena=seeded_arena)[:3])
    for i, x in enumerate(cells):
        client_from(f"10.0.9.{i}").post(f"/cells/{x.pk}/flag/", form_data())
    admin = Client()
    admin.force_login(moderator)
    ids = list(ReviewItem.objects.values_list("pk", flat=True))
    confirm = admin.post(
        "/admin/flags/reviewitem/", {"action": "bulk_reject", "_selected_action": ids}
    )
    assert b"Public note" in confirm.content
    admin.post(
        "/admin/flags/reviewitem/",
        {"action": "bulk_reject", "_selected_action": ids, "apply": "1", "note": "Spam wave."},
    )
    assert set(ReviewItem.objects.values_list("status", flat=True)) == {"rejected"}
    assert ModeratorAction.objects.filter(action="reject").count() == 3


@pytest.mark.django_db
def test_upholding_without_changing_values_is_still_recorded_and_counts(
    cell, moderator, django_capture_on_commit_callbacks
):
    inngest = Cell.objects.get(story=cell.story, product__slug="inngest")
    client_from("10.0.10.1").post(
        f"/cells/{inngest.pk}/flag/",
        form_data(reason="outdated_evidence", proposed_verdict="", proposed_quality=""),
    )
    before = ProductScore.objects.get(product=inngest.product)
    with django_capture_on_commit_callbacks(execute=True):
        review_item_uphold(
            item=ReviewItem.objects.get(),
            moderator=moderator,
            decision=ModerationDecision(note="Evidence links refreshed."),
        )
    change = CellChange.objects.get(cell=inngest)
    assert (change.kind, change.old_verdict, change.new_verdict, change.note) == (
        "flag",
        "full",
        "full",
        "Evidence links refreshed.",
    )
    after = ProductScore.objects.get(product=inngest.product)
    assert (
        after.upheld == 1
        and after.integrity < before.integrity
        and after.pa_score == before.pa_score
    )
