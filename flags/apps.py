from django.apps import AppConfig
from django.core.signals import request_finished, request_started


class FlagsConfig(AppConfig):
    name = "flags"

    def ready(self) -> None:
        from flags import notices

        # without a broker, mail is sent once the response has gone, never while a visitor waits
        request_started.connect(notices.hold_for_request)
        request_finished.connect(notices.send_after_request)
