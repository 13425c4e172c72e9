"""Rooms a reader can hold: no module of ours over 400 lines, no function over 60 (``make check``).

A function may be longer where a comment on the line of its ``def`` says why
(``def build(...):  # long: one table of the format, field by field``). Migrations are generated
history: left out. Exit 1 with one line per room that is too big.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("config", "web", "ops", "arena", "stories", "products", "flags", "core")
MODULE_LINES = 400
FUNCTION_LINES = 60
REASON = "# long:"


def app_files(root: Path) -> list[Path]:
    return [
        file
        for package in PACKAGES
        for file in sorted((root / package).rglob("*.py"))
        if "migrations" not in file.parts
    ]


def too_big(file: Path, root: Path) -> list[str]:
    text = file.read_text()
    lines = text.splitlines()
    name = file.relative_to(root)
    problems = []
    if len(lines) > MODULE_LINES:
        problems.append(f"{name}: {len(lines)} lines (at most {MODULE_LINES})")
    for node in ast.walk(ast.parse(text, str(file))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        length = (node.end_lineno or node.lineno) - first + 1
        if length <= FUNCTION_LINES:
            continue
        signature_end = node.body[0].lineno - 1 if node.body else node.lineno
        signature = lines[node.lineno - 1 : max(signature_end, node.lineno)]
        if any(REASON in line for line in signature):
            continue
        problems.append(
            f"{name}:{node.lineno}: {node.name} is {length} lines (at most {FUNCTION_LINES})"
        )
    return problems


def main() -> int:
    problems = [problem for file in app_files(ROOT) for problem in too_big(file, ROOT)]
    fine = f"check_sizes: no module over {MODULE_LINES} lines, no function over {FUNCTION_LINES}"
    print("\n".join(problems) or fine)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
