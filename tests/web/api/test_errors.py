"""Every answer under /api/ is JSON, refusals included, in the shape docs/contract.md documents
("API errors"): ``{"detail": "<message>"}``. Refusals Django answers itself (an address no route
matches, an oversize body, a disallowed host, a server error) as well as DRF's; an object with a key
twice is refused, naming the key."""

import json

import pytest
from django.http import JsonResponse
from django.test import Client
from django.urls import path

from config import urls as root
from stories.models import Cell

EXPLANATION = "The docs now describe a built-in approval step with a webhook resume."


def boom(request):
    raise RuntimeError("a bug in a view")


def form(request):
    return JsonResponse({"fields": len(request.POST)})


# This module is also a URLconf: the site's, with a view that fails and a plain Django view.
urlpatterns = [path("api/boom/", boom), path("api/form/", form), *root.urlpatterns]
handler400, handler403 = root.handler400, root.handler403
handler404, handler500 = root.handler404, root.handler500


@pytest.fixture
def cell(seeded_arena):
    return Cell.objects.filter(story__arena=seeded_arena).order_by("pk").first()


def flag_body(cell) -> str:
    return json.dumps({"cell": cell.pk, "reason": "wrong_verdict", "explanation": EXPLANATION})


def request_for(status, cell, settings, client):
    """The request that meets the refusal ``status``."""
    if status == 400:
        return client.post("/api/flags/", "{not json", content_type="application/json")
    if status == 404:
        # a compare address with a product slug the route does not accept: no route matches
        return client.get("/api/arenas/durable-execution-engines/compare/a.b/c/")
    if status == 405:
        return client.delete("/api/arenas/")
    if status == 413:
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
        data = json.dumps({"cell": cell.pk, "reason": "other", "explanation": "x" * 2000})
        return client.post("/api/flags/", data, content_type="application/json")
    if status == 415:
        return client.post("/api/flags/", flag_body(cell), content_type="text/plain")
    if status == 429:
        settings.FLAG_RATE = "1/hour"
        client.post("/api/flags/", flag_body(cell), content_type="application/json")
        return client.post("/api/flags/", flag_body(cell), content_type="application/json")
    assert status == 500
    settings.ROOT_URLCONF = __name__
    return client.get("/api/boom/")


@pytest.mark.django_db
@pytest.mark.parametrize("status", [400, 404, 405, 413, 415, 429, 500])
def test_each_refusal_under_the_api_is_json_with_a_detail(status, cell, settings):
    settings.SECURE_SSL_REDIRECT = False
    client = Client(REMOTE_ADDR="10.9.0.1", raise_request_exception=False)
    response = request_for(status, cell, settings, client)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert list(body) == ["detail"] and isinstance(body["detail"], str) and body["detail"]
    if status == 413:
        assert "1000 bytes" in body["detail"]


@pytest.mark.django_db
def test_an_oversize_body_read_outside_a_view_is_a_json_413(settings):
    """A plain Django view reading a form body (or Django's CSRF check before it): the
    RequestDataTooBig goes to the root URLconf's handler400."""
    settings.SECURE_SSL_REDIRECT = False
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    settings.ROOT_URLCONF = __name__
    client = Client(raise_request_exception=False)
    assert client.post("/api/form/", {"x": "y"}).json() == {"fields": 1}
    response = client.post("/api/form/", {"x": "y" * 500})
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert "100 bytes" in response.json()["detail"]


@pytest.mark.django_db
def test_a_disallowed_host_under_the_api_is_a_json_400(settings):
    settings.ALLOWED_HOSTS = ["testserver"]
    settings.SECURE_SSL_REDIRECT = False
    response = Client(raise_request_exception=False).get("/api/arenas/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response.json() == {"detail": "Bad request."}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "address", ["/api/nothing/here/", "/api/arenas/x/matrix/%0A/", "/api/arenas/a/b/c/"]
)
def test_an_address_no_route_matches_is_a_json_404(address, settings):
    settings.SECURE_SSL_REDIRECT = False
    response = Client().get(address)
    assert response.status_code == 404
    assert response.json() == {"detail": "No such API address."}


@pytest.mark.django_db
def test_the_site_keeps_its_html_pages(settings):
    settings.SECURE_SSL_REDIRECT = False
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, key",
    [
        ('{"cell": 1, "reason": "other", "cell": 2, "explanation": "x"}', "cell"),
        ('{"cell": 1, "reason": "other", "explanation": "x", "meta": {"a": 1, "a": 1}}', "a"),
    ],
)
def test_a_json_key_given_twice_is_refused_by_name(text, key, settings):
    settings.SECURE_SSL_REDIRECT = False
    response = Client().post("/api/flags/", text, content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": f"JSON parse error - the key {key!r} appears twice in one object."
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, address, status, location",
    [
        ("get", "/api/arenas?x=1", 301, "/api/arenas/?x=1"),
        ("post", "/api/flags", 308, "/api/flags/"),
        ("get", "/api/nothing", 404, None),
        ("get", "/api/arenas/x/compare/a", 404, None),
    ],
)
def test_an_address_without_its_slash_is_answered_in_json(method, address, status, location):
    """Redirected to the address with it when that is a route (keeping a POST's method), a 404
    otherwise: not Django's empty HTML redirect."""
    response = getattr(Client(), method)(address, secure=True)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.get("Location") == location
