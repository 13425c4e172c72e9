"""The flag pages: the form on a cell, the reporter's status page, the mail's unsubscribe, the changes."""

from typing import Any

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers

from flags.forms import FlagForm
from flags.mailing import flags_forget, unsubscribe_flag_id
from flags.models import Flag
from flags.selectors import flag_value_when_filed, queue_health
from flags.services import FlagThrottled, flag_submit
from stories.models import Cell
from stories.values import CellValue
from web import params
from web.formats.feeds import recent_changes_queryset
from web.http.clients import client_key
from web.params import HtmxHttpRequest


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def flag_create(request: HtmxHttpRequest, cell: int) -> HttpResponse:
    """The flag form: a page of its own without JavaScript, swapped in place with htmx."""
    flagged = get_object_or_404(
        Cell.objects.select_related("story__arena", "story__persona", "product"), pk=cell
    )
    template = "flags/flag_form.html"
    partial = f"{template}#flag-form" if request.htmx else template
    form_id = params.flag_form_id(request.GET)
    query = "" if form_id == params.PAGE_FORM else f"?form={form_id}"
    url = reverse("flag-create", args=[flagged.pk]) + query
    posted = request.method == "POST"
    form = FlagForm(request.POST if posted else None, auto_id=f"flag-{form_id}-%s")
    context: dict[str, Any] = {"cell": flagged, "form_id": form_id, "post_url": url, "form": form}
    if not posted:
        return render(request, partial, context)
    status, retry_after = 400, None
    if form.is_valid():
        try:
            flag = flag_submit(cell=flagged, form=form, client=client_key(request))
        except ValidationError as exc:  # the cell's: the form was valid
            form.add_error(None, exc.messages)
        except FlagThrottled as exc:
            wait = f"Please try again in {exc.retry_after} seconds."
            form.add_error(None, f"You have sent many flags in a short time. {wait}")
            status, retry_after = 429, exc.retry_after
        else:
            if request.htmx:
                context["flag"] = flag
                return render(request, f"{template}#flag-done", context, status=201)
            return redirect(reverse("flag-status", args=[flag.token]) + "?sent=1")
    response = render(request, partial, context, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    if request.htmx:  # htmx swaps no 4xx by default: the messages show in place
        response["HX-Reswap"] = "outerHTML"
    return response


def private(response: HttpResponse) -> HttpResponse:
    """A page whose URL is a secret: not indexed, not sent on as a referrer."""
    response["X-Robots-Tag"] = "noindex"
    response["Referrer-Policy"] = "no-referrer"
    return response


@require_safe
@cache_control(private=True, no_cache=True)  # one reporter's, through a secret link
def flag_status(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The reporter's private status page: the cell as it stood then, the state, the decision."""
    flag = get_object_or_404(
        Flag.objects.select_related("item", "cell__story__arena", "cell__product", "item__change"),
        token=token,
    )
    context = {"flag": flag, "item": flag.item, "cell": flag.cell, "health": queue_health()}
    context |= {"value_then": flag_value_when_filed(flag), "value_now": CellValue.of(flag.cell)}
    context["sent"] = params.SENT.name in request.GET
    return private(render(request, "flags/flag_status.html", context))


@require_safe
def recent_changes(request: HtmxHttpRequest) -> HttpResponse:
    """Every change of a verdict, across arenas, newest first."""
    page = Paginator(recent_changes_queryset(), 50).get_page(request.GET.get(params.PAGE.name))
    return render(request, "flags/recent_changes.html", {"page": page, "changes": page.object_list})


@csrf_exempt  # mail clients send no cookie: the URL's signed token is the proof (RFC 8058)
@require_http_methods(["GET", "HEAD", "POST"])
def flag_unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    flag_id = unsubscribe_flag_id(token)
    state = "ask" if flag_id is not None else "invalid"
    if flag_id is not None and request.method == "POST":
        # a flag that is gone has no mail to stop either
        state = "done" if flags_forget(Flag.objects.filter(pk=flag_id)) else "invalid"
    status = 404 if state == "invalid" else 200
    return private(render(request, "flags/unsubscribe.html", {"state": state}, status=status))
