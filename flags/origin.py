"""The origin (``https://host``) the absolute links of the flags' mails name: ``SITE_URL``, or
without it the first of ``ALLOWED_HOSTS`` (https, or http while DEBUG is on). Never a request's
Host or X-Forwarded-Host: whoever files a flag would choose where the moderators' links go."""

from django.conf import settings

# a command's or a worker's mail with neither setting usable, as `make run` serves
LOCAL_ORIGIN = "http://localhost:8000"


def mail_origin() -> str:
    """The origin of the links in the flags' mails."""
    if settings.SITE_URL:
        return str(settings.SITE_URL)
    for host in settings.ALLOWED_HOSTS:
        host = host.lstrip(".")  # ".example.org" is example.org and its subdomains
        if host and "*" not in host:
            return f"{'http' if settings.DEBUG else 'https'}://{host}"
    return LOCAL_ORIGIN
