"""Post a form the way a browser does: the fields the page rendered, hidden ones included."""

from __future__ import annotations

from html.parser import HTMLParser

from django.test import Client


class _FormParser(HTMLParser):
    def __init__(self, form_id: str | None):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._select_first: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # an attribute written without a value (``checked``) means the empty string in HTML
        a = {key: value or "" for key, value in attrs}
        if tag == "form" and not self.inside:
            if self.form_id is None or a.get("id") == self.form_id:
                self.inside = True
            return
        if not self.inside:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.data[name] = a.get("value", "on")
            elif kind not in ("submit", "button", "image", "file"):
                self.data[name] = a.get("value", "")
        elif tag == "select" and name:
            self._select, self._select_first = name, None
        elif tag == "option" and self._select:
            value = a.get("value", "")
            if self._select_first is None:
                self._select_first = value
                self.data.setdefault(self._select, value)
            if "selected" in a:
                self.data[self._select] = value
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._textarea:
            self.data[self._textarea] = "".join(self._text).removeprefix("\n")
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self._text.append(data)


def form_data(html: str, form_id: str | None = None) -> dict[str, str]:
    """The values a browser would send for the form ``form_id`` (the first form when None)."""
    parser = _FormParser(form_id)
    parser.feed(html)
    return parser.data


def page_form(
    client: Client, url: str, form_id: str | None = None, **changes: object
) -> dict[str, str]:
    """GET ``url`` and return its form's data with ``changes`` applied (what an editor types)."""
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    data = form_data(response.content.decode(), form_id)
    data.update({k: str(v) for k, v in changes.items()})
    return data
