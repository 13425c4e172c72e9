"""Atom feeds: verdict changes (the site's, an arena's or a product's) and an arena's disputes."""

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.core.exceptions import BadRequest
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, SyndicationFeed
from django.utils.xmlutils import SimplerXMLGenerator

from arena.models import Arena
from arena.selectors.matrix import product_get
from core.text import clean_text
from flags.disputes import Dispute, arena_dispute_list
from products.models import Product
from stories.models import CellChange
from web.views.common import arena_or_404
from web.views.disputes import DisputesRead, disputes_read

FEED_ITEMS = 50  # the newest entries a feed carries


def recent_changes_queryset() -> QuerySet[CellChange]:
    return CellChange.objects.select_related(
        "cell__story__arena", "cell__product", "changed_by"
    ).order_by("-changed_at", "-pk")


Scope = tuple[Arena | None, Product | None]  # what a changes feed follows


class CleanAtomFeed(Atom1Feed):
    def add_item_elements(self, handler: SimplerXMLGenerator, item: dict[str, Any]) -> None:
        # XML 1.0 cannot hold most control characters: one in a note would break the whole feed
        text = " ".join(clean_text(item["description"]).split())  # (the templates' line breaks)
        item = {**item, "title": clean_text(item["title"]), "description": text}
        super().add_item_elements(handler, item)


class SiteFeed(Feed):
    feed_type = CleanAtomFeed
    author_name = "Arena"  # (Atom wants an author: the site, at its address)

    def get_feed(self, obj: Any, request: HttpRequest) -> SyndicationFeed:
        feed = super().get_feed(obj, request)
        feed.feed["author_link"] = request.build_absolute_uri(reverse("home"))
        return feed


class ChangesFeed(SiteFeed):
    """Verdict changes, newest first: the site's, an arena's or a product's."""

    description_template = "feeds/change.html"  # summary HTML (type="html"): templates escape

    def get_object(
        self, request: HttpRequest, arena: str | None = None, product: str | None = None
    ) -> Scope:
        found = arena_or_404(arena) if arena else None
        item = product_get(arena=found, slug=product) if found and product else None
        if product and item is None:
            raise Http404(f"No product {product!r}")
        return found, item

    def items(self, scope: Scope) -> QuerySet[CellChange]:
        arena, product = scope
        changes = recent_changes_queryset()
        if product is not None:
            changes = changes.filter(cell__product=product)
        elif arena is not None:
            changes = changes.filter(cell__story__arena=arena)
        return changes[:FEED_ITEMS]

    def title(self, scope: Scope) -> str:
        arena, product = scope
        if arena is None:
            return "Arena verdict changes"
        subject = f"{product.name} in {arena.name}" if product else arena.name
        return f"{subject}: verdict changes"

    def subtitle(self, scope: Scope) -> str:
        arena, product = scope
        what = "a verdict, proof level or quality"
        if product is not None:
            what = f"{product.name}'s verdicts, proof levels or qualities"
        where = f"in the {arena.name} arena" if arena else "on the arena site"
        return f"Every correction of {what} {where}, newest first."

    def link(self, scope: Scope) -> str:
        arena, product = scope
        if arena is None:
            return reverse("recent-changes")
        if product is not None:
            return reverse("product-detail", args=[arena.slug, product.slug])
        return arena.get_absolute_url()

    def feed_copyright(self) -> str:
        return f"Data: {settings.DATA_LICENSE_NAME} ({settings.DATA_LICENSE_URL})"

    def item_title(self, change: CellChange) -> str:
        # the title names the verdicts only (short); the description names whole judgements
        return (
            f"{change.cell.product.name}: {change.old_value.verdict} → {change.new_value.verdict} "
            f"on “{change.cell.story.text[:80]}”"
        )

    def item_link(self, change: CellChange) -> str:
        # (also the entry's id, with its date: one change, one id, in every feed that carries it)
        return reverse("cell-detail", args=[change.cell_id]) + f"#change-{change.pk}"

    def item_pubdate(self, change: CellChange) -> datetime:
        return change.changed_at

    item_updateddate = item_pubdate


class ArenaDisputesFeed(SiteFeed):
    """An arena's disputes as its page shows them, narrowed by its filters (none named: a 400)."""

    description_template = "feeds/dispute.html"

    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> DisputesRead:
        read = disputes_read(request.GET, kwargs["arena"])
        if read.problems:
            raise BadRequest(" ".join(read.problems))
        return read

    def items(self, scope: DisputesRead) -> list[Dispute]:
        return arena_dispute_list(arena=scope.arena, filters=scope.filters, limit=FEED_ITEMS)

    def title(self, scope: DisputesRead) -> str:
        on = f" on {scope.filters.product.name}" if scope.filters.product else ""
        return f"{scope.arena.name}: disputes{on}"

    def subtitle(self, scope: DisputesRead) -> str:
        return (
            f"Flags on {scope.arena.name} verdicts under review, and each decision, newest first."
        )

    def link(self, scope: DisputesRead) -> str:
        return reverse("arena-disputes", args=[scope.arena.slug])

    def item_title(self, d: Dispute) -> str:
        cell = d.item.cell
        state = "Under review" if d.pending else d.decision.capitalize()
        return f"{state}: {cell.product.name} on “{cell.story.text[:80]}”"

    def item_link(self, d: Dispute) -> str:
        # (also the entry's id: one dispute, one id, its entry updated when it is decided)
        return reverse("cell-detail", args=[d.item.cell_id]) + f"#dispute-{d.pk}"

    def item_pubdate(self, d: Dispute) -> datetime:
        return d.opened_at

    def item_updateddate(self, d: Dispute) -> datetime:
        return d.updated_at
