"""The moderators' template tags: the queue's health on the admin's index and on the queue."""

from __future__ import annotations

from typing import Any

from django import template

from core.moderators import user_can_moderate
from flags.selectors import QueueHealth, queue_health

register = template.Library()


@register.simple_tag(takes_context=True)
def moderation_queue_health(context: dict[str, Any]) -> QueueHealth | None:
    """None for anyone but a moderator: the admin's index is every staff member's."""
    request = context.get("request")
    return queue_health() if request and user_can_moderate(request.user) else None
