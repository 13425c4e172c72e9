"""Every module of ours sits in a layer of the import contract (``make check``).

import-linter checks the direction between the layers ``.importlinter`` names; a module no layer
names is checked against nothing. This fails (one line per module) on any module of the root
packages that no layer names, itself or through a package above it; a package's ``__init__`` may
stay unnamed while it imports nothing of ours (then it is just the folder's name and docstring).
"""

from __future__ import annotations

import ast
import configparser
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def contract_layers(path: Path) -> tuple[list[str], set[str]]:
    """The root packages and every module or package a layer of the layers contract names."""
    config = configparser.ConfigParser()
    config.read(path)
    roots = config["importlinter"]["root_packages"].split()
    named: set[str] = set()
    for section in config.sections():
        if config[section].get("type") != "layers":
            continue
        for line in config[section]["layers"].splitlines():
            for entry in re.split(r"[:|]", line):
                name = entry.strip().strip("()").strip()
                if name:
                    named.add(name)
    return roots, named


def modules(roots: list[str]) -> dict[str, Path]:
    """Each module of the root packages by its dotted name (migrations left out: they are history)."""
    found: dict[str, Path] = {}
    for root in roots:
        for file in sorted((ROOT / root).rglob("*.py")):
            parts = file.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = file
    return found


def imports_ours(file: Path, roots: list[str]) -> bool:
    tree = ast.parse(file.read_text(), str(file))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if node.level == 0 else ["."]
        else:
            continue
        if any(name == "." or name.split(".")[0] in roots for name in names):
            return True
    return False


def unplaced(contract: Path) -> list[str]:
    roots, named = contract_layers(contract)
    problems = []
    for name, file in modules(roots).items():
        prefixes = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 2)}
        if prefixes & named:
            continue
        if file.name == "__init__.py" and not imports_ours(file, roots):
            continue
        problems.append(f"{file.relative_to(ROOT)}: {name} is in no layer of {contract.name}")
    return problems


def main() -> int:
    problems = unplaced(ROOT / ".importlinter")
    print("\n".join(problems) or "check_layers: every module is in a layer")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
