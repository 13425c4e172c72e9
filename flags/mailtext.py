"""What a text from the database may look like once it is in a mail or a log line.

Names and titles come from the database whatever wrote them (an arena file, the admin, an older
import), so the mail is made robust here rather than trusting every writer: a header is one line
(a CR or LF in a header makes the mail unsendable, or smuggles a header in), and no text may hold
what no encoding can send (a lone surrogate) or a terminal reads as a command (control
characters).
"""

from __future__ import annotations

import re
import unicodedata

HEADER_MAX = 120  # characters of a name kept in a subject; the body names it in full
LOG_MAX = 1000
ELLIPSIS = "…"
# other (C*: control, format, surrogate, private, unassigned) and line/paragraph separators
_UNSAFE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
_SPACES = re.compile(r"\s+")


def _unsafe(char: str) -> bool:
    return unicodedata.category(char) in _UNSAFE


def one_line(text: object, limit: int | None = HEADER_MAX) -> str:
    """``text`` as one line for a header or a log line: every control, format or separator
    character and lone surrogate becomes a space, runs of spaces one, ends stripped; cut to
    ``limit`` characters with an ellipsis (None: not cut)."""
    value = "".join(" " if _unsafe(c) else c for c in str(text))
    value = _SPACES.sub(" ", value).strip()
    return value if limit is None or len(value) <= limit else value[: limit - 1].rstrip() + ELLIPSIS


def body_text(text: str) -> str:
    """``text`` for a mail's body: line breaks kept (as LF), tabs kept, every other control or
    format character and lone surrogate a space."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join("".join(" " if _unsafe(c) and c != "\t" else c for c in ln) for ln in lines)
