"""Who moderates: the staff pages of every app ask the same question."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User

MODERATORS_GROUP = "Moderators"


def user_can_moderate(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Superusers and members of the Moderators group (active, signed in)."""
    if not isinstance(user, User) or not user.is_active:
        return False
    return user.is_superuser or user.groups.filter(name=MODERATORS_GROUP).exists()
