"""What a product is, as the pages, an arena file or an editor state it: the rules every writer
checks (the arena file's reader, the admin's form, the API's schema). Plain Python, no Django.

A licence is an SPDX licence expression of the identifiers below (``MIT``, ``Apache-2.0 OR MIT``,
``GPL-2.0-only WITH Classpath-exception-2.0``) or a ``LicenseRef-`` of the product's own (a
licence SPDX does not list, e.g. ``LicenseRef-Proprietary``). The list is the SPDX licence list's
identifiers that software products in these arenas use, not the whole list: a project that needs
another adds it here (one line), so an identifier is never a typo that nobody catches.
"""

from __future__ import annotations

import re

# SPDX licence identifiers (https://spdx.org/licenses/), the ones products here use.
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
# The licences the Open Source Initiative approves, of the list above (a must-have "open-source
# licence" reads this; SSPL, BUSL and the Elastic licence are source-available, not open source).
OSI_APPROVED = SPDX_LICENCES - {"BUSL-1.1", "CC0-1.0", "Elastic-2.0", "SSPL-1.0"}

_REF = re.compile(r"LicenseRef-[A-Za-z0-9.-]+")
_TOKEN = re.compile(r"\(|\)|[^\s()]+")
MAX_LICENCE = 100  # products.models.Product.licence


def _known(word: str) -> bool:
    return word.removesuffix("+") in SPDX_LICENCES or bool(_REF.fullmatch(word))


def licence_problem(text: str) -> str | None:
    """Why ``text`` is not an SPDX licence expression this site knows, or None (empty: unknown,
    allowed). Operators are ``AND``, ``OR`` and ``WITH`` (an exception), with parentheses."""
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


def licence_error(text: str) -> str | None:
    """``licence_problem`` as a sentence of its own (a form's or a service's message)."""
    problem = licence_problem(text)
    if problem is None or problem.startswith("'"):
        return problem
    return f"{text!r} {problem}"


def licence_ids(text: str) -> set[str]:
    """The licence identifiers an expression names (exceptions and operators left out)."""
    words = _TOKEN.findall(text)
    return {
        w.removesuffix("+")
        for i, w in enumerate(words)
        if _known(w) and (i == 0 or words[i - 1] != "WITH")
    }


def open_source(text: str) -> bool | None:
    """Whether the licence is open source, by the OSI's list: with ``OR`` one approved choice is
    enough, otherwise every licence named must be approved. None when no licence is stated."""
    if not text:
        return None
    ids = licence_ids(text)
    if " OR " in f" {text} ":
        return any(i in OSI_APPROVED for i in ids)
    return bool(ids) and all(i in OSI_APPROVED for i in ids)


# Hosting, as products.models.Hosting stores it (the file's schema and the API say the same).
HOSTING = ("self-hosted", "managed", "both")
