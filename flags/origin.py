"""The origin (``https://host``) of the request being served, for the absolute links of the mails
a write causes (``flags.notices`` stores it with each notice). Set by
``web.http.origin.RequestOriginMiddleware``; empty outside a request (a command, a worker)."""

from contextvars import ContextVar

REQUEST_ORIGIN: ContextVar[str] = ContextVar("request_origin", default="")
