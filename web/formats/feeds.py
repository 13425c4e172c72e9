"""Atom feeds of verdict changes: the whole site's, one arena's, one product's; and an arena's
disputes. One base class
writes the entries (title, description, link, dates, id), so an entry reads the same in every feed;
what a feed follows (its scope: the site, an arena, a product) narrows the changes and names it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape

from arena import selectors
from arena.models import Arena
from arena.text import clean_text
from products.models import Product
from stories.models import CellChange
from web.views.disputes import disputes_read

# The newest changes a feed carries.
FEED_ITEMS = 50
# Who writes the feeds (Atom wants an author for the feed or for each entry).
FEED_AUTHOR = "Arena"


def recent_changes_queryset() -> QuerySet[CellChange]:
    """Every verdict change with what its entry names (cell, story, arena, product), newest first:
    the feeds and the recent changes page read it (one query)."""
    return CellChange.objects.select_related(
        "cell__story__arena", "cell__product", "changed_by"
    ).order_by("-changed_at", "-pk")


def _xml_text(text: object) -> str:
    """Stored text as a feed may carry it: XML 1.0 cannot hold most control characters, and Django's
    feed generator raises on them, so one stray character in a note would break the whole feed."""
    return clean_text(str(text or ""))


def _direction(change: CellChange) -> str:
    """`` (against the product's claim)`` after an upheld flag's correction; "" otherwise."""
    direction = change.direction
    return "" if direction is None else f" ({direction.label})"


@dataclass(frozen=True)
class SiteScope:
    """What a feed follows, with the site's address as the request has it (the feed's author link:
    one feed instance serves every request, so nothing per request is kept on it)."""

    site_url: str


@dataclass(frozen=True)
class ArenaScope(SiteScope):
    """One arena: the feed's title, subtitle, page and changes come from its scope."""

    arena: Arena

    def narrow(self, changes: QuerySet[CellChange]) -> QuerySet[CellChange]:
        return changes.filter(cell__story__arena=self.arena)

    @property
    def subject(self) -> str:
        """What the feed follows, as its title names it."""
        return self.arena.name

    @property
    def corrected(self) -> str:
        """What each change corrects, as the subtitle says it."""
        return "a verdict, proof level or quality"

    def page(self) -> str:
        return self.arena.get_absolute_url()


@dataclass(frozen=True)
class ProductScope(ArenaScope):
    """One product in its arena."""

    product: Product

    def narrow(self, changes: QuerySet[CellChange]) -> QuerySet[CellChange]:
        return changes.filter(cell__product=self.product)

    @property
    def subject(self) -> str:
        return f"{self.product.name} in {self.arena.name}"

    @property
    def corrected(self) -> str:
        return f"{self.product.name}'s verdicts, proof levels or qualities"

    def page(self) -> str:
        return reverse("product-detail", args=[self.arena.slug, self.product.slug])


@dataclass(frozen=True)
class DisputeScope(SiteScope):
    """An arena's disputes, as filtered."""

    arena: Arena
    filters: selectors.DisputeFilters


class BadFilter(Exception):
    """A feed's filter names nothing (a 400, with the message)."""


class ChangesFeed[S: SiteScope](Feed):
    """Verdict changes, newest first: the site's, or one arena's or product's (subclasses narrow
    ``changes`` and name the feed)."""

    feed_type = Atom1Feed

    @staticmethod
    def site_url(request: HttpRequest) -> str:
        return request.build_absolute_uri(reverse("home"))

    def changes(self, scope: S) -> QuerySet[CellChange]:
        return recent_changes_queryset()

    def items(self, scope: S) -> QuerySet[CellChange]:
        return self.changes(scope)[:FEED_ITEMS]

    # -- the feed
    def author_name(self) -> str:
        return FEED_AUTHOR

    def author_link(self, scope: S) -> str:
        return scope.site_url

    def feed_copyright(self) -> str:
        return f"Data: {settings.DATA_LICENSE_NAME} ({settings.DATA_LICENSE_URL})"

    # -- its entries, the same in every feed
    def item_title(self, change: CellChange) -> str:
        # the title names the verdicts only (short); the description names whole judgements
        return _xml_text(
            f"{change.cell.product.name}: {change.old_value.verdict} → {change.new_value.verdict} "
            f"on “{change.cell.story.text[:80]}”"
        )

    def item_description(self, change: CellChange) -> str:
        # Atom carries it as ``<summary type="html">``: the stored text is escaped as HTML too, so a
        # reader shows a note's "<b>" as written instead of reading it as markup
        return escape(
            _xml_text(
                f"{change.cell.story.arena.name}. {change.get_kind_display().capitalize()}: "
                f"{change.old_value.label()} → {change.new_value.label()}{_direction(change)}. "
                f"{change.note}"
            )
        )

    def item_link(self, change: CellChange) -> str:
        # (also the entry's id, with its date: one change, one id, in every feed that carries it)
        return reverse("cell-detail", args=[change.cell_id]) + f"#change-{change.pk}"

    def item_pubdate(self, change: CellChange) -> datetime:
        return change.changed_at

    def item_updateddate(self, change: CellChange) -> datetime:
        return change.changed_at


class RecentChangesFeed(ChangesFeed[SiteScope]):
    """Every change across arenas (``/changes/feed/``)."""

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> SiteScope:
        return SiteScope(site_url=self.site_url(request))

    title = "Arena verdict changes"
    subtitle = "Every correction of a verdict, proof level or quality on the arena site."

    def link(self) -> str:
        return reverse("recent-changes")


def _arena_or_404(slug: str) -> Arena:
    arena = selectors.arena_get(slug=slug)
    if arena is None:
        raise Http404(f"No arena {slug!r}")
    return arena


class ScopedChangesFeed[S: ArenaScope](ChangesFeed[S]):
    """The changes of one arena or product: its scope narrows them and names the feed."""

    def changes(self, scope: S) -> QuerySet[CellChange]:
        return scope.narrow(super().changes(scope))

    def title(self, scope: S) -> str:
        return _xml_text(f"{scope.subject}: verdict changes")

    def subtitle(self, scope: S) -> str:
        return _xml_text(
            f"Every correction of {scope.corrected} in the {scope.arena.name} arena, newest first."
        )

    def link(self, scope: S) -> str:
        return scope.page()


class ArenaChangesFeed(ScopedChangesFeed[ArenaScope]):
    """One arena's changes (``/arenas/<arena>/changes/feed/``)."""

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> ArenaScope:
        return ArenaScope(site_url=self.site_url(request), arena=_arena_or_404(kwargs["arena"]))


class ProductChangesFeed(ScopedChangesFeed[ProductScope]):
    """One product's changes in its arena
    (``/arenas/<arena>/products/<product>/changes/feed/``)."""

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> ProductScope:
        arena = _arena_or_404(kwargs["arena"])
        product = selectors.product_get(arena=arena, slug=kwargs["product"])
        if product is None:
            raise Http404(f"No product {kwargs['product']!r}")
        return ProductScope(site_url=self.site_url(request), arena=arena, product=product)


class ArenaDisputesFeed(Feed):
    """One arena's disputes, the latest news first (``/arenas/<arena>/disputes/feed/``): an
    entry per dispute, updated when it is decided. Only what the disputes page shows
    (``arena.selectors.disputes``); ``?product=``, ``?story=`` and ``?state=`` narrow it as they
    narrow the page (a filter naming nothing is a 400)."""

    feed_type = Atom1Feed

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> DisputeScope:
        read = disputes_read(request.GET, kwargs["arena"])
        if read.problems:
            raise BadFilter(" ".join(read.problems))
        site_url = ChangesFeed.site_url(request)
        return DisputeScope(site_url=site_url, arena=read.arena, filters=read.filters)

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return super().__call__(request, *args, **kwargs)
        except BadFilter as exc:
            return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")

    def items(self, scope: DisputeScope) -> list[selectors.Dispute]:
        return selectors.arena_dispute_list(
            arena=scope.arena, filters=scope.filters, limit=FEED_ITEMS
        )

    def title(self, scope: DisputeScope) -> str:
        product = scope.filters.product
        return _xml_text(
            f"{scope.arena.name}: disputes" + (f" on {product.name}" if product else "")
        )

    def subtitle(self, scope: DisputeScope) -> str:
        return _xml_text(
            f"Flags on {scope.arena.name} verdicts under review, and each decision, newest first."
        )

    def link(self, scope: DisputeScope) -> str:
        return reverse("arena-disputes", args=[scope.arena.slug])

    def author_name(self) -> str:
        return FEED_AUTHOR

    def author_link(self, scope: DisputeScope) -> str:
        return scope.site_url

    def item_title(self, d: selectors.Dispute) -> str:
        cell = d.item.cell
        state = "Under review" if d.pending else d.decision.capitalize()
        return _xml_text(f"{state}: {cell.product.name} on “{cell.story.text[:80]}”")

    def item_description(self, d: selectors.Dispute) -> str:
        flags = f"{d.flag_count} flag{'' if d.flag_count == 1 else 's'}"
        parts = [f"{flags}: {'; '.join(d.reasons)}."]
        if d.proposals:
            parts.append(f"Proposed: {'; '.join(d.proposals)}.")
        if d.affiliated:
            parts.append("Filed by the vendor.")
        if d.pending:
            parts.append(f"Under review since {d.opened_at:%Y-%m-%d}.")
        else:
            parts.append(f"{d.decision.capitalize()} on {d.decided_at:%Y-%m-%d}.")
        if d.change is not None and d.direction is not None:
            change = d.change
            parts.append(
                f"Corrected {change.old_value.label()} → {change.new_value.label()}, "
                f"{d.direction.label}."
            )
        if d.note:
            parts.append(f"Moderator's note: {d.note}")
        return escape(_xml_text(" ".join(parts)))

    def item_link(self, d: selectors.Dispute) -> str:
        # (also the entry's id: one dispute, one id, its entry updated when it is decided)
        return reverse("cell-detail", args=[d.item.cell_id]) + f"#dispute-{d.pk}"

    def item_pubdate(self, d: selectors.Dispute) -> datetime:
        return d.opened_at

    def item_updateddate(self, d: selectors.Dispute) -> datetime:
        return d.updated_at
