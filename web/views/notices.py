"""The one-click unsubscribe of the flags' mail (RFC 8058), CSRF-exempt: mail clients send no
cookie; the signed token in the URL is the proof."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from flags.mailing import flag_unsubscribe, unsubscribe_flag_id


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def flag_unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    flag_id = unsubscribe_flag_id(token)
    state = "ask" if flag_id is not None else "invalid"
    if flag_id is not None and request.method == "POST":
        # a flag that is gone has no mail to stop either
        state = "done" if flag_unsubscribe(flag_id) else "invalid"
    status = 404 if state == "invalid" else 200
    response = render(request, "flags/unsubscribe.html", {"state": state}, status=status)
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response
