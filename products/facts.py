"""What a product is: the licence rule every writer checks, in plain Python. A licence is an SPDX
expression of the identifiers below (add one when a product needs it) or a ``LicenseRef-``."""

from __future__ import annotations

import re

SPDX_LICENCES = frozenset(
    """
    0BSD AGPL-3.0-only AGPL-3.0-or-later Apache-2.0 Artistic-2.0 BSD-2-Clause BSD-3-Clause
    BSL-1.0 BUSL-1.1 CC0-1.0 CDDL-1.0 ECL-2.0 Elastic-2.0 EPL-1.0 EPL-2.0 EUPL-1.2
    GPL-2.0-only GPL-2.0-or-later GPL-3.0-only GPL-3.0-or-later ISC LGPL-2.1-only
    LGPL-2.1-or-later LGPL-3.0-only LGPL-3.0-or-later MIT MIT-0 MPL-2.0 OSL-3.0 PostgreSQL
    Python-2.0 SSPL-1.0 Unlicense UPL-1.0 Zlib
    """.split()
)
# SPDX exceptions that follow WITH.
SPDX_EXCEPTIONS = frozenset(
    {"Classpath-exception-2.0", "LLVM-exception", "GCC-exception-3.1", "Qt-GPL-exception-1.0"}
)
# approved by the OSI (SSPL, BUSL and the Elastic licence are source-available)
OSI_APPROVED = SPDX_LICENCES - {"BUSL-1.1", "CC0-1.0", "Elastic-2.0", "SSPL-1.0"}

_REF = re.compile(r"LicenseRef-[A-Za-z0-9.-]+")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
MAX_LICENCE = 100  # products.models.Product.licence


def _known(word: str) -> bool:
    return word.removesuffix("+") in SPDX_LICENCES or bool(_REF.fullmatch(word))


def licence_problem(text: str) -> str | None:
    """Why ``text`` is not an SPDX expression this site knows, or None (empty is allowed)."""
    if not text:
        return None
    if len(text) > MAX_LICENCE:
        return f"is longer than {MAX_LICENCE} characters"
    tokens = _TOKEN.findall(text)
    depth, expect_id, after_with = 0, True, False
    for word in tokens:
        if expect_id and word == "(" and not after_with:
            depth += 1
        elif expect_id and after_with:
            if word not in SPDX_EXCEPTIONS:
                return f"{word!r} is not an SPDX licence exception this site knows"
            expect_id, after_with = False, False
        elif expect_id:
            if not _known(word):
                return (
                    f"{word!r} is not an SPDX licence identifier this site knows (e.g. MIT, "
                    "Apache-2.0, AGPL-3.0-only; LicenseRef-… for a licence SPDX does not list)"
                )
            expect_id = False
        elif word == ")" and depth:
            depth -= 1
        elif word in ("AND", "OR", "WITH"):
            expect_id, after_with = True, word == "WITH"
        else:
            return f"{word!r} is out of place in an SPDX licence expression"
    if expect_id or depth:
        return "is an unfinished SPDX licence expression"
    return None


def open_source(text: str) -> bool | None:
    """By the OSI's list: with ``OR`` one approved choice is enough; None when none is stated."""
    if not text:
        return None
    ids = {w.removesuffix("+") for w in _TOKEN.findall(text) if _known(w)}  # (not the exceptions)
    if " OR " in f" {text} ":
        return any(i in OSI_APPROVED for i in ids)
    return bool(ids) and all(i in OSI_APPROVED for i in ids)
