"""Filing flags (HTML form, htmx, API), abuse limits, moderation exactly once, and the public record."""

import re
import threading

import pytest
from django.contrib import admin as django_admin
from django.test import Client

from arena.models import ProductScore
from flags.forms import NOTE_MISSING, DecisionForm
from flags.models import Flag, ModeratorAction, ReviewItem, Status
from flags.services import review_item_uphold
from stories.models import Cell, CellChange
from stories.values import Proof, Verdict
from web.pages.cells import verdict_class

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


def flag_url(cell) -> str:
    return f"/cells/{cell.pk}/flag/"


def review_url(item) -> str:
    return f"/admin/flags/reviewitem/{item.pk}/change/"


@pytest.fixture
def sent(cell):
    """A visitor's flag sent from the page without JavaScript: (their client, the response)."""
    reporter = client_from("10.0.6.1")
    return reporter, reporter.post(flag_url(cell), form_data())


@pytest.fixture
def admin_client(moderator):
    client = Client()
    client.force_login(moderator)
    return client


def uphold_in_admin(admin_client, item, **values):
    data = {
        "decision": "uphold",
        "verdict": "full",
        "proof": "claimed",
        "quality": "8",
        "note": "Docs confirm it.",
        "version": item.version,
        **values,
    }
    return admin_client.post(review_url(item), data)


@pytest.fixture
def upheld(sent, admin_client, django_capture_on_commit_callbacks):
    """The flag upheld in the admin (full claimed 8/10), its recomputation run."""
    item = ReviewItem.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        response = uphold_in_admin(admin_client, item)
    assert response.status_code == 302
    return item


# ---------------------------------------------------------------- filing a flag


@pytest.mark.django_db
@pytest.mark.parametrize(
    "label",
    ["Reason", "Explanation", "Proposed verdict", "Source URL", "Email (optional, never shown)"],
)
def test_the_flag_form_page_works_without_javascript(cell, label):
    page = client_from("10.0.0.1").get(flag_url(cell))
    assert page.status_code == 200 and label in page.content.decode()


@pytest.mark.django_db
def test_a_sent_flag_redirects_to_its_private_status_page(sent):
    _, response = sent
    flag = Flag.objects.get()
    assert response.status_code == 302
    assert response["Location"].startswith(f"/flags/status/{flag.token}/")
    assert len(flag.token) >= 30


@pytest.mark.django_db
def test_the_status_page_shows_the_flag_pending(sent):
    reporter, response = sent
    status = reporter.get(response["Location"]).content.decode()
    assert "pending" in status and EXPLANATION in status


@pytest.mark.django_db
def test_htmx_gets_the_form_alone(cell):
    form = client_from("10.0.0.2").get(flag_url(cell), HTTP_HX_REQUEST="true")
    assert b"<html" not in form.content and b'name="explanation"' in form.content


@pytest.mark.django_db
def test_the_form_the_dialog_shows_names_the_product_story_and_verdict(cell):
    form = client_from("10.0.0.2").get(f"{flag_url(cell)}?form=d1", HTTP_HX_REQUEST="true")
    subject = form.content.decode().split('class="flag-subject"', 1)[1].split("</p>", 1)[0]
    assert cell.product.name in subject and cell.story.text in subject
    assert f'class="verdict {verdict_class(cell.verdict)}"' in subject


def _ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


@pytest.mark.django_db
def test_each_instance_of_the_form_has_ids_of_its_own(cell):
    """The dialog's instances and the cell page's panel never share an id, and each label points
    at its own instance's field; the form posts back to its instance."""
    reporter = client_from("10.0.0.2")
    pages = {
        name: reporter.get(f"{flag_url(cell)}?form={name}", HTTP_HX_REQUEST="true").content.decode()
        for name in ("d1", "d2", "panel")
    }
    ids = {name: _ids(html) for name, html in pages.items()}
    assert not ids["d1"] & ids["d2"] and not ids["d1"] & ids["panel"]
    assert not ids["d2"] & ids["panel"]
    for name, html in pages.items():
        assert set(re.findall(r'<label for="([^"]+)"', html)) <= ids[name]
        assert f'hx-post="{flag_url(cell)}?form={name}"' in html
    # an error re-renders the same instance
    again = reporter.post(
        f"{flag_url(cell)}?form=d2", form_data(reason=""), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert f'id="flag-form-{cell.pk}-d2"' in again and 'id="flag-d2-explanation"' in again
    # anything else is the page's own instance
    odd = reporter.get(f"{flag_url(cell)}?form=<b>", HTTP_HX_REQUEST="true").content.decode()
    assert 'id="flag-page-explanation"' in odd and "<b>" not in odd


@pytest.mark.django_db
def test_a_flag_sent_with_htmx_is_confirmed_in_place(cell):
    done = client_from("10.0.0.2").post(flag_url(cell), form_data(), HTTP_HX_REQUEST="true")
    assert done.status_code == 201
    body = done.content.decode()
    assert "<html" not in body and "pending review" in body
    assert f"/flags/status/{Flag.objects.get().token}/" in body


@pytest.mark.django_db
@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"proposed_quality": "11"}, "Ensure this value is less than or equal to 10."),
        ({"source_url": "notaurl"}, "Enter a valid URL."),
        ({"email": "nope"}, "Enter a valid email address."),
        ({"explanation": "too short"}, "at least 20 characters"),
    ],
)
def test_a_bad_field_gets_its_message_and_stores_nothing(cell, overrides, message):
    response = client_from("10.0.0.3").post(flag_url(cell), form_data(**overrides))
    assert response.status_code == 400 and message in response.content.decode()
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_the_honeypot_is_refused(cell):
    response = client_from("10.0.0.4").post(
        flag_url(cell), form_data(website="http://spam.example")
    )
    assert response.status_code == 400 and not Flag.objects.exists()


@pytest.mark.django_db
def test_flagging_a_cell_again_while_pending_is_told(cell):
    reporter = client_from("10.0.1.1")
    reporter.post(flag_url(cell), form_data())
    again = reporter.post(flag_url(cell), form_data())
    assert again.status_code == 400
    assert "already flagged this verdict" in again.content.decode()


@pytest.mark.django_db
def test_flags_of_two_clients_on_a_cell_share_one_review_item(cell):
    client_from("10.0.1.1").post(flag_url(cell), form_data())
    client_from("10.0.1.2").post(flag_url(cell), form_data(reason="wrong_quality"))
    item = ReviewItem.objects.get()
    assert item.flags.count() == 2
    assert len({f.client_hash for f in item.flags.all()}) == 2


@pytest.mark.django_db
def test_client_addresses_are_stored_only_hashed(sent):
    assert "10.0.6" not in Flag.objects.get().client_hash


# ---------------------------------------------------------------- the rate limit


@pytest.fixture
def few_per_hour(settings):
    settings.FLAG_RATE = "3/hour"


@pytest.fixture
def five_cells(seeded_arena):
    return list(Cell.objects.filter(story__arena=seeded_arena)[:5])


@pytest.mark.django_db
def test_flags_past_the_rate_are_refused_and_not_stored(few_per_hour, five_cells):
    flooder = client_from("10.0.2.1")
    codes = [flooder.post(flag_url(x), form_data()).status_code for x in five_cells[:4]]
    assert codes == [302, 302, 302, 429]
    assert Flag.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize("via", ["form", "api"])
def test_a_throttled_client_is_told_when_to_retry(few_per_hour, five_cells, via):
    flooder = client_from("10.0.2.1")
    for x in five_cells[:3]:
        flooder.post(flag_url(x), form_data())
    if via == "form":
        blocked = flooder.post(flag_url(five_cells[4]), form_data())
    else:
        blocked = flooder.post(
            "/api/flags/",
            {"cell": five_cells[4].pk, "reason": "other", "explanation": EXPLANATION},
            content_type="application/json",
        )
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0


@pytest.mark.django_db
def test_the_rate_is_counted_per_client(few_per_hour, five_cells):
    for x in five_cells[:3]:
        client_from("10.0.2.1").post(flag_url(x), form_data())
    other = client_from("10.0.2.2").post(flag_url(five_cells[4]), form_data())
    assert other.status_code == 302


# ---------------------------------------------------------------- the API


def api_post(client, data):
    return client.post("/api/flags/", data, content_type="application/json")


@pytest.mark.django_db
def test_an_api_flag_is_201_pending_and_keeps_the_email_private(cell):
    ok = api_post(
        client_from("10.0.3.1"),
        {
            "cell": cell.pk,
            "reason": "wrong_verdict",
            "explanation": EXPLANATION,
            "proposed_verdict": "full",
            "proposed_quality": 8,
            "email": "me@example.com",
        },
    )
    assert ok.status_code == 201
    assert ok.json()["status"] == "pending" and ok.json()["id"] == Flag.objects.get().pk
    assert "email" not in ok.json()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data, fields",
    [
        ({"reason": "because", "explanation": "short"}, {"reason", "explanation"}),
        (
            {"reason": "other", "explanation": "short", "proposed_quality": 12},
            {"explanation", "proposed_quality"},
        ),
    ],
)
def test_an_api_flag_with_bad_fields_is_400_per_field(cell, data, fields):
    bad = api_post(client_from("10.0.3.1"), {"cell": cell.pk, **data})
    assert bad.status_code == 400 and set(bad.json()) == fields
    assert not Flag.objects.exists()


@pytest.mark.django_db
def test_an_api_flag_on_no_cell_is_400(seeded_arena):
    missing = api_post(
        client_from("10.0.3.1"), {"cell": 999999, "reason": "other", "explanation": EXPLANATION}
    )
    assert missing.status_code == 400 and "cell" in missing.json()


# ---------------------------------------------------------------- escaping


EVIL = "<script>alert('x')</script> this verdict is definitely wrong"


@pytest.mark.django_db
def test_a_script_in_an_explanation_is_escaped_on_the_status_page(cell):
    reporter = client_from("10.0.4.1")
    response = reporter.post(flag_url(cell), form_data(explanation=EVIL))
    status = reporter.get(response["Location"]).content.decode()
    assert "<script>alert" not in status and "&lt;script&gt;alert" in status


@pytest.mark.django_db
def test_a_script_in_an_explanation_is_escaped_on_the_review_page(cell, admin_client):
    client_from("10.0.4.1").post(flag_url(cell), form_data(explanation=EVIL))
    page = admin_client.get(review_url(ReviewItem.objects.get())).content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


# ---------------------------------------------------------------- who may moderate


def anonymous(django_user_model) -> Client:
    return Client()


def staff(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_user("staff", password="pw", is_staff=True))
    return client


@pytest.mark.django_db
@pytest.mark.parametrize(
    "who, method, url, codes",
    [
        (anonymous, "get", "/api/flags/?status=pending", {401, 403}),
        (anonymous, "post", "/api/flags/{flag}/uphold/", {401, 403}),
        (anonymous, "get", "/admin/flags/reviewitem/", {302}),  # to the login page
        (staff, "post", "/api/flags/{flag}/reject/", {403}),
        (staff, "get", "/admin/flags/reviewitem/{item}/change/", {403}),
    ],
)
def test_only_moderators_see_or_resolve_flags(sent, django_user_model, who, method, url, codes):
    flag = Flag.objects.get()
    client = who(django_user_model)
    response = getattr(client, method)(
        url.format(flag=flag.pk, item=flag.item_id), {"note": "x"} if method == "post" else None
    )
    assert response.status_code in codes
    flag.item.refresh_from_db()
    assert flag.item.status == Status.PENDING


# ---------------------------------------------------------------- upholding in the admin


@pytest.mark.django_db
def test_the_queue_shows_the_score_impact_of_upholding(sent, admin_client):
    queue = admin_client.get("/admin/flags/reviewitem/").content.decode()
    assert "Hatchet PA" in queue and "rank" in queue


@pytest.mark.django_db
def test_the_review_page_shows_the_impact_and_the_reporters(sent, admin_client):
    review = admin_client.get(review_url(ReviewItem.objects.get())).content.decode()
    assert "Score impact of upholding" in review and "1 reporter" in review


@pytest.mark.django_db
def test_the_queue_keeps_no_state_on_the_shared_admin_object(sent, admin_client):
    """The admin object serves every request and thread: a page's values never live on it."""
    model_admin = django_admin.site._registry[ReviewItem]
    before = dict(vars(model_admin))
    admin_client.get("/admin/flags/reviewitem/")
    assert vars(model_admin) == before
    attributes = {**vars(type(model_admin)), **vars(model_admin)}.values()
    assert not [a for a in attributes if isinstance(a, threading.local)]


@pytest.mark.django_db
def test_upholding_corrects_the_cell(upheld, cell):
    cell.refresh_from_db()
    assert (cell.verdict, cell.proof, cell.quality) == (Verdict.FULL, Proof.CLAIMED, 8)


@pytest.mark.django_db
def test_upholding_records_the_change_publicly(upheld, cell, moderator):
    change = CellChange.objects.get(cell=cell)
    assert (change.kind, change.old_verdict, change.new_verdict) == ("flag", "none", "full")
    assert (change.note, change.changed_by) == ("Docs confirm it.", moderator)


@pytest.mark.django_db
def test_upholding_recomputes_the_scores(
    sent, cell, admin_client, django_capture_on_commit_callbacks
):
    before = ProductScore.objects.get(product=cell.product)
    with django_capture_on_commit_callbacks(execute=True):
        uphold_in_admin(admin_client, ReviewItem.objects.get())
    after = ProductScore.objects.get(product=cell.product)
    assert after.pa_score > before.pa_score
    # none → full raised the verdict: a correction in the product's favour, never against it
    assert (after.upheld, after.upheld_in_favour) == (0, 1)
    assert after.integrity >= before.integrity


@pytest.mark.django_db
def test_upholding_is_in_the_moderators_log(upheld):
    assert ModeratorAction.objects.get().action == ModeratorAction.Action.UPHOLD


@pytest.mark.django_db
def test_the_reporter_sees_the_decision_and_its_note(upheld, sent):
    reporter, response = sent
    status = reporter.get(response["Location"]).content.decode()
    assert "upheld" in status and "Docs confirm it." in status


@pytest.mark.django_db
def test_recent_changes_show_the_note(upheld):
    assert "Docs confirm it." in Client().get("/changes/").content.decode()


@pytest.mark.django_db
def test_the_atom_feed_shows_the_change(upheld):
    feed = Client().get("/changes/feed/")
    assert feed["Content-Type"].startswith("application/atom+xml")
    assert b"Hatchet: none" in feed.content


@pytest.mark.django_db
def test_a_second_resolution_changes_nothing(upheld, admin_client):
    again = admin_client.post(
        review_url(upheld), {"decision": "reject", "note": "late", "version": upheld.version}
    )
    assert again.status_code in (200, 302)
    upheld.refresh_from_db()
    assert upheld.status == Status.UPHELD and ModeratorAction.objects.count() == 1


@pytest.mark.django_db
def test_two_moderators_at_once_resolve_once(sent, cell, moderator, django_user_model):
    item = ReviewItem.objects.get()
    other = django_user_model.objects.create_superuser("boss", "b@example.com", "pw")
    first, second = Client(), Client()
    first.force_login(moderator)
    second.force_login(other)
    version = item.version  # both opened the page before either sent
    r1 = first.post(
        review_url(item), {"decision": "reject", "note": "Not convincing.", "version": version}
    )
    r2 = uphold_in_admin(second, item, quality="9", note="Yes.", version=version)
    assert r1.status_code == 302
    assert "already resolved" in second.get(r2["Location"]).content.decode()
    item.refresh_from_db()
    cell.refresh_from_db()
    assert item.status == Status.REJECTED and cell.verdict == Verdict.NONE
    assert not CellChange.objects.exists()


# ---------------------------------------------------------------- moderating through the API


def api_post_as(client, url, data):
    return client.post(url, data, content_type="application/json")


@pytest.mark.django_db
def test_the_api_lists_pending_flags_with_their_reporters(sent, admin_client):
    pending = admin_client.get("/api/flags/?status=pending").json()
    rows = pending["results"] if isinstance(pending, dict) else pending
    assert [r["id"] for r in rows] == [Flag.objects.get().pk] and rows[0]["reporters"] == 1


@pytest.mark.django_db
def test_an_api_uphold_without_values_applies_the_flags_proposal(
    sent, cell, admin_client, django_capture_on_commit_callbacks
):
    flag = Flag.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        ok = api_post_as(admin_client, f"/api/flags/{flag.pk}/uphold/", {"note": "Confirmed"})
    assert ok.status_code == 200 and ok.json()["status"] == Status.UPHELD
    cell.refresh_from_db()
    assert (cell.verdict, cell.quality) == (Verdict.FULL, 8)  # proof completed


@pytest.mark.django_db
def test_an_api_decision_on_a_resolved_flag_is_409(sent, admin_client):
    flag = Flag.objects.get()
    api_post_as(admin_client, f"/api/flags/{flag.pk}/uphold/", {"note": "Confirmed"})
    twice = api_post_as(admin_client, f"/api/flags/{flag.pk}/reject/", {"note": "x"})
    assert twice.status_code == 409


# ---------------------------------------------------------------- bulk reject


@pytest.fixture
def three_items(seeded_arena):
    for i, x in enumerate(Cell.objects.filter(story__arena=seeded_arena)[:3]):
        client_from(f"10.0.9.{i}").post(flag_url(x), form_data())
    return list(ReviewItem.objects.values_list("pk", flat=True))


@pytest.mark.django_db
def test_bulk_reject_asks_for_a_public_note(three_items, admin_client):
    confirm = admin_client.post(
        "/admin/flags/reviewitem/", {"action": "bulk_reject", "_selected_action": three_items}
    )
    assert b"Public note" in confirm.content
    assert set(ReviewItem.objects.values_list("status", flat=True)) == {Status.PENDING}


@pytest.mark.django_db
def test_bulk_reject_rejects_every_selected_item(three_items, admin_client):
    admin_client.post(
        "/admin/flags/reviewitem/",
        {
            "action": "bulk_reject",
            "_selected_action": three_items,
            "apply": "1",
            "note": "Spam wave.",
        },
    )
    assert set(ReviewItem.objects.values_list("status", flat=True)) == {Status.REJECTED}
    assert ModeratorAction.objects.filter(action=ModeratorAction.Action.REJECT).count() == 3


# ---------------------------------------------------------------- upholding without a change


@pytest.fixture
def inngest(cell):
    """A full cell flagged without a proposal ("outdated evidence"): upholding keeps its values."""
    inngest = Cell.objects.select_related("product").get(story=cell.story, product__slug="inngest")
    client_from("10.0.10.1").post(
        flag_url(inngest),
        form_data(reason="outdated_evidence", proposed_verdict="", proposed_quality=""),
    )
    return inngest


def uphold_unchanged(moderator, capture):
    with capture(execute=True):
        review_item_uphold(
            item=ReviewItem.objects.get(),
            moderator=moderator,
            form=DecisionForm({"note": "Evidence links refreshed."}),
        )


@pytest.mark.django_db
def test_upholding_without_changing_values_is_still_recorded(
    inngest, moderator, django_capture_on_commit_callbacks
):
    uphold_unchanged(moderator, django_capture_on_commit_callbacks)
    change = CellChange.objects.get(cell=inngest)
    assert (change.kind, change.old_verdict, change.new_verdict, change.note) == (
        "flag",
        "full",
        "full",
        "Evidence links refreshed.",
    )


@pytest.mark.django_db
def test_upholding_without_changing_values_is_neither_against_nor_in_favour(
    inngest, moderator, django_capture_on_commit_callbacks
):
    before = ProductScore.objects.get(product=inngest.product)
    uphold_unchanged(moderator, django_capture_on_commit_callbacks)
    after = ProductScore.objects.get(product=inngest.product)
    assert (after.upheld, after.upheld_in_favour) == (0, 0)
    assert (after.integrity, after.pa_score) == (before.integrity, before.pa_score)


# ---------------------------------------------------------------- judgements as the site names them


@pytest.mark.django_db
def test_the_flag_form_shows_the_cells_badge_coloured_by_its_verdict(cell):
    page = client_from("10.0.0.3").get(flag_url(cell)).content.decode()
    assert f'class="verdict {verdict_class(cell.verdict)}"' in page


@pytest.mark.django_db
def test_the_status_page_names_a_proposed_quality_alone(cell):
    reporter = client_from("10.0.0.4")
    sent = reporter.post(flag_url(cell), form_data(proposed_verdict="", proposed_quality="0"))
    status = reporter.get(sent["Location"]).content.decode()
    assert "verdict unchanged, 0/10" in status


@pytest.mark.django_db
def test_the_review_page_names_the_cell_and_the_proposal_as_judgements(sent, admin_client):
    page = admin_client.get(review_url(ReviewItem.objects.get())).content.decode()
    assert "<td>none 0/10</td>" in page and "<td>full claimed 8/10</td>" in page


@pytest.mark.django_db
def test_an_empty_note_in_the_admin_gets_the_decisions_message(sent, admin_client):
    item = ReviewItem.objects.get()
    page = uphold_in_admin(admin_client, item, note="  ").content.decode()
    assert NOTE_MISSING in page
    item.refresh_from_db()
    assert item.status == Status.PENDING
