"""factory_boy factories: one valid row each, with whatever it needs around it.

A test that needs one cell makes one (``CellFactory()``: its story, product, category, persona and
arena come with it) instead of importing the seed arena. Cells are valid by ``CellValue``'s rules;
the traits ``partial``, ``disputed``, ``none`` and ``na`` give the other verdicts.
"""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, User
from django.utils import timezone
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice
from factory.django import DjangoModelFactory

from arena.models import Arena, Category, Persona, SubGroup
from flags.models import Flag, Reason, ReviewItem, Status
from products.models import Product
from stories.models import Cell, CellChange, Evidence, Story
from stories.values import CellValue, Proof, Verdict

MODERATORS = "Moderators"


class UserFactory(DjangoModelFactory[User]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.django.Password("pw")


class ModeratorFactory(UserFactory):
    """A staff user in the Moderators group (the group is made if a flush removed it)."""

    username = factory.Sequence(lambda n: f"mod{n}")
    is_staff = True

    @factory.post_generation
    def moderators(user: User, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            user.groups.add(Group.objects.get_or_create(name=MODERATORS)[0])


def totp_device(user: User) -> TOTPDevice:
    """The staff user's confirmed authenticator (made if they have none), ready for a fresh code."""
    device, _ = TOTPDevice.objects.get_or_create(
        user=user, name="test authenticator", defaults={"confirmed": True}
    )
    # a code is accepted once per 30-second step: a test signing in twice in one step still can
    TOTPDevice.objects.filter(pk=device.pk).update(last_t=-1)
    device.last_t = -1
    return device


def totp_code(user: User) -> str:
    """The code the user's authenticator shows now (django-otp's own TOTP)."""
    device = totp_device(user)
    return f"{totp(device.bin_key, device.step, device.t0, device.digits, device.drift):06d}"


class ArenaFactory(DjangoModelFactory[Arena]):
    class Meta:
        model = Arena

    slug = factory.Sequence(lambda n: f"arena-{n}")
    name = factory.Sequence(lambda n: f"Arena {n}")


class CategoryFactory(DjangoModelFactory[Category]):
    class Meta:
        model = Category

    arena = factory.SubFactory(ArenaFactory)
    name = factory.Sequence(lambda n: f"Category {n}")
    position = factory.Sequence(lambda n: n)


class SubGroupFactory(DjangoModelFactory[SubGroup]):
    class Meta:
        model = SubGroup

    category = factory.SubFactory(CategoryFactory)
    name = factory.Sequence(lambda n: f"Group {n}")
    position = factory.Sequence(lambda n: n)


class PersonaFactory(DjangoModelFactory[Persona]):
    class Meta:
        model = Persona
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"persona-{n}")
    label = factory.LazyAttribute(lambda p: p.slug.replace("-", " "))


class ProductFactory(DjangoModelFactory[Product]):
    class Meta:
        model = Product

    arena = factory.SubFactory(ArenaFactory)
    name = factory.Sequence(lambda n: f"Product {n}")
    slug = factory.Sequence(lambda n: f"product-{n}")
    position = factory.Sequence(lambda n: n)


class StoryFactory(DjangoModelFactory[Story]):
    class Meta:
        model = Story

    arena = factory.SubFactory(ArenaFactory)
    category = factory.SubFactory(CategoryFactory, arena=factory.SelfAttribute("..arena"))
    persona = factory.SubFactory(PersonaFactory)
    text = factory.Sequence(lambda n: f"A user does thing number {n}")
    weight = 2
    position = factory.Sequence(lambda n: n)


class CellFactory(DjangoModelFactory[Cell]):
    """A full, probed 8/10 cell; the product is of the story's arena."""

    class Meta:
        model = Cell

    class Params:
        partial = factory.Trait(verdict=Verdict.PARTIAL, proof=Proof.CLAIMED, quality=5)
        disputed = factory.Trait(verdict=Verdict.DISPUTED, proof=Proof.CONTRADICTED, quality=3)
        none = factory.Trait(verdict=Verdict.NONE, proof=None, quality=0)
        na = factory.Trait(verdict=Verdict.NA, proof=None, quality=None)

    story = factory.SubFactory(StoryFactory)
    product = factory.SubFactory(ProductFactory, arena=factory.SelfAttribute("..story.arena"))
    verdict = Verdict.FULL
    proof = Proof.PROBED
    quality = 8
    rationale = "The docs describe it and a probe confirmed it."

    @classmethod
    def _create(cls, model_class: type[Cell], *args: object, **kwargs: Any) -> Cell:
        # a factory that made an invalid cell would test the constraint, not the code under test
        CellValue(kwargs["verdict"], kwargs.get("proof"), kwargs.get("quality")).check()
        return super()._create(model_class, *args, **kwargs)


class EvidenceFactory(DjangoModelFactory[Evidence]):
    class Meta:
        model = Evidence

    cell = factory.SubFactory(CellFactory)
    position = factory.Sequence(lambda n: n)
    source = "github"
    quote = "“Every step is retried until it succeeds.”"


class CellChangeFactory(DjangoModelFactory[CellChange]):
    """An admin's change of a cell from none to its current value."""

    class Meta:
        model = CellChange

    cell = factory.SubFactory(CellFactory)
    kind = CellChange.Kind.ADMIN
    old_verdict = Verdict.NONE
    old_proof = None
    old_quality = 0
    new_verdict = factory.SelfAttribute("cell.verdict")
    new_proof = factory.SelfAttribute("cell.proof")
    new_quality = factory.SelfAttribute("cell.quality")
    changed_at = factory.LazyFunction(timezone.now)
    note = "Checked the docs."


class ReviewItemFactory(DjangoModelFactory[ReviewItem]):
    """A pending review item (add flags with ``FlagFactory(item=…)``)."""

    class Meta:
        model = ReviewItem

    cell = factory.SubFactory(CellFactory)
    status = Status.PENDING
    created_at = factory.LazyFunction(timezone.now)


class FlagFactory(DjangoModelFactory[Flag]):
    class Meta:
        model = Flag

    item = factory.SubFactory(ReviewItemFactory)
    cell = factory.SelfAttribute("item.cell")
    reason = Reason.WRONG_VERDICT
    proposed_verdict = Verdict.PARTIAL
    proposed_quality = 5
    explanation = "The docs say this only works for some workflows, not all of them."
    client_hash = factory.Sequence(lambda n: f"client-{n:056d}")
    created_at = factory.LazyFunction(timezone.now)
