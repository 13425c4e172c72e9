"""A product's embeddable badge (``…/badge.svg``) in shields.io's "flat" style."""

import unicodedata
from collections.abc import Sequence

from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe

from arena.models import ProductScore
from arena.selectors.arenas import arena_product_list
from arena.selectors.calls import call_of
from arena.selectors.leaderboard import arena_score_list
from arena.selectors.matrix import product_get
from core.text import clean_text
from products.models import Product
from web.views.common import arena_or_404

# Verdana's widths in 1/2048 em (others WIDTH_DEFAULT, East Asian an em); ``textLength`` fits them.
_WIDTHS = {
    char: width
    for width, chars in {
        548: "'", 562: "il", 676: "j", 720: " f", 745: ",.·", 807: "t", 809: "!", 862: "I", 868: "-",
        874: "r", 889: ":;", 928: "()[]|", 942: '"', 969: "J", 1051: "z", 1067: "cs", 1114: "?",
        1151: "L", 1178: "F", 1212: "kvxy", 1219: "e", 1233: "a", 1235: "P", 1239: "Y", 1242: "T",
        1243: "o", 1276: "bdgpq", 1283: "/\\", 1294: "E", 1296: "hnu", 1300: "{}",
        1302: "$*_`–0123456789", 1400: "Z", 1401: "ASV", 1403: "X", 1405: "BK", 1424: "R", 1430: "C",
        1474: "&", 1499: "U", 1532: "N", 1540: "H", 1577: "D", 1587: "G", 1612: "OQ", 1675: "#+<=>^~w",
        1767: "M", 1887: "…", 1992: "m", 2028: "W", 2048: "@—", 2217: "%",
    }.items()
    for char in chars
}  # fmt: skip
WIDTH_DEFAULT = 1300
EM = 2048
FONT_SIZE = 11  # px
PADDING = 6  # px each side of a text
HEIGHT = 20
NAME_MAX = 40  # at most this many characters of a name (then "…"): a badge stays a badge

LABEL_COLOR = "#555"  # white text 7.5:1 (6.4:1 under the top of the sheen)
SCORED_COLOR = "#1d5fa8"  # the site's accent: white text 6.5:1 (5.7:1)
UNSCORED_COLOR = "#5f6b76"  # white text 5.5:1 (4.8:1)


def text_width(text: str) -> float:
    units = 0
    for char in text:
        if (width := _WIDTHS.get(char)) is None:
            wide = unicodedata.east_asian_width(char) in ("W", "F")
            width = EM if wide else 0 if unicodedata.combining(char) else WIDTH_DEFAULT
        units += width
    return units * FONT_SIZE / EM


def _short(name: str) -> str:
    name = " ".join(clean_text(name).split())
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1].rstrip() + "…"


def _num(value: float) -> str:
    return f"{value:.1f}".removesuffix(".0")


def badge_svg(
    *,
    arena_name: str,
    product_name: str,
    score: ProductScore | None,
    products: int,
    close_to: str | None = None,
) -> str:
    """The arena, the product's rank and range (``#2 (1–4)``) and PA Score; the title in words."""
    arena_name, product_name = _short(arena_name), _short(product_name)
    if score is None or score.pa_score is None:
        title = f"{product_name} in {arena_name}: not scored yet"
        message, color = f"{product_name} · not scored yet", UNSCORED_COLOR
    else:
        best, worst = score.rank_best, score.rank_worst  # (stored together)
        could = f"{best}–{worst}" if worst is not None and best != worst else ""
        title = f"{product_name}: rank {score.rank} of {products} in {arena_name}"
        title += f" (could be {could})" if could else ""
        title += f", PA Score {score.pa_score} out of 100"
        title += f"; too close to call with {close_to}" if close_to else ""
        could = f" ({could})" if could else ""
        message = f"{product_name} #{score.rank}{could} · PA {score.pa_score}"
        color = SCORED_COLOR
    label_text, message_text = text_width(arena_name), text_width(message)
    left, right = label_text + 2 * PADDING, message_text + 2 * PADDING
    texts = [
        (_num(left / 2), _num(label_text), arena_name),
        (_num(left + right / 2), _num(message_text), message),
    ]
    context: dict[str, object] = {"title": title, "color": color, "label_color": LABEL_COLOR}
    context.update(texts=texts, h=HEIGHT, w=_num(left + right), lw=_num(left), rw=_num(right))
    return render_to_string("badges/badge.svg", context)


def _close_to(product: Product, scores: Sequence[ProductScore]) -> str | None:
    if (at := next((i for i, s in enumerate(scores) if s.product_id == product.pk), None)) is None:
        return None
    near = [scores[i] for i in (at - 1, at + 1) if 0 <= i < len(scores)]
    names = [n.product.name for n in near if call_of(scores[at], n).close]
    return " and ".join(names) or None


@require_safe
def product_badge_svg(request: HttpRequest, arena: str, product: str) -> HttpResponse:
    found = arena_or_404(arena)
    products = arena_product_list(arena=found)
    if (subject := product_get(arena=found, slug=product, products=products)) is None:
        raise Http404(f"No product {product!r}")  # unknown or retired
    scores = arena_score_list(arena=found)
    badge = badge_svg(
        arena_name=found.name,
        product_name=subject.name,
        score=next((s for s in scores if s.product_id == subject.pk), None),
        products=len(products),
        close_to=_close_to(subject, scores),
    )
    return HttpResponse(badge, content_type="image/svg+xml; charset=utf-8")
