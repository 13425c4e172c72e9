"""Settings for the reverse proxies in front of the app (Varnish, a load balancer, a TLS
terminator): which of them are ours, so that only their X-Forwarded-* headers are believed.

docs/operations.md ("Client addresses behind proxies") says how to set them."""

import ipaddress

from django.core.exceptions import ImproperlyConfigured

from config.env import env_list, env_trusted_proxies

__all__ = ["SECURE_PROXY_SSL_HEADER", "TRUSTED_PROXIES", "TRUSTED_PROXY_IPS"]

# How many reverse proxies of our own stand in front of the app (each appends to X-Forwarded-For),
# and the addresses or networks they send from: X-Forwarded-For and X-Forwarded-Proto are believed
# only from those (web/http/clients.py, web/http/forwarded.py). 0: REMOTE_ADDR is the client.
TRUSTED_PROXIES = env_trusted_proxies()
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("TRUSTED_PROXIES is a count of proxies: 0 or more")
TRUSTED_PROXY_IPS = env_list("TRUSTED_PROXY_IPS", "127.0.0.1,::1")
for _entry in TRUSTED_PROXY_IPS:  # (a typo stops every process at start-up)
    try:
        ipaddress.ip_network(_entry, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXY_IPS: {_entry!r} is not an address or network (10.0.0.0/8)"
        ) from None
# Django believes this header from anyone: web.http.forwarded.ForwardedHeadersMiddleware drops it
# (and the other X-Forwarded-* headers) from every request that did not come from a trusted proxy,
# so that only our proxy says whether the visitor used https.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
