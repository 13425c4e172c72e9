"""Which reverse proxies are ours, whose X-Forwarded-* headers are believed (docs/operations.md)."""

import ipaddress

from django.core.exceptions import ImproperlyConfigured

from config.env import env_list, env_trusted_proxies

__all__ = ["SECURE_PROXY_SSL_HEADER", "TRUSTED_PROXIES", "TRUSTED_PROXY_IPS"]

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
# Django believes it from anyone: ForwardedHeadersMiddleware drops it unless our proxy sent it.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
