"""Every third-party package the code imports is declared in pyproject.toml: the app's modules only
from ``[project] dependencies`` (what a production install has), the tests and scripts also from the
``dev`` group. Each top-level import is mapped to its distribution through
``importlib.metadata.packages_distributions()``; a transitive dependency that happens to be installed
does not count as declared."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from django.conf import settings

BASE = Path(settings.BASE_DIR)
# our packages, and the scripts' own modules (a script imports its siblings from scripts/)
APP = ("config", "web", "ops", "arena", "stories", "products", "flags", "core")
OURS = {*APP, "tests", "scripts", "manage"} | {p.stem for p in (BASE / "scripts").glob("*.py")}


def _name(requirement: str) -> str:
    # a requirement's distribution name, normalised (PEP 503): "celery[redis]>=5.7" -> "celery"
    bare = re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", bare).lower()


def _declared() -> tuple[set[str], set[str]]:
    project = tomllib.loads((BASE / "pyproject.toml").read_text())
    runtime = {_name(r) for r in project["project"]["dependencies"]}
    dev = {_name(r) for r in project["dependency-groups"]["dev"] if isinstance(r, str)}
    return runtime, dev


def _imports(files: list[Path]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        # imports under `if TYPE_CHECKING:` are for mypy only: they never run
        typing_only = {
            id(inner)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
            for stmt in block.body
            for inner in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in OURS:
                    found.setdefault(top, path)
    return found


def _undeclared(files: list[Path], allowed: set[str]) -> dict[str, str]:
    owners = packages_distributions()
    missing = {}
    for module, path in _imports(files).items():
        dists = {_name(d) for d in owners.get(module, [])}
        if not dists & allowed:
            missing[module] = (
                f"{path.relative_to(BASE)} (installed by {sorted(dists) or 'nothing'})"
            )
    return missing


def _python_files(*folders: str) -> list[Path]:
    return [f for folder in folders for f in (BASE / folder).rglob("*.py")]


def test_the_apps_import_only_runtime_dependencies():
    runtime, _ = _declared()
    files = _python_files(*APP) + [BASE / "manage.py", BASE / "gunicorn.conf.py"]
    assert len(files) > 100
    assert _undeclared(files, runtime) == {}


def test_tests_and_scripts_import_only_declared_dependencies():
    runtime, dev = _declared()
    assert _undeclared(_python_files("tests", "scripts"), runtime | dev) == {}


def test_an_undeclared_import_is_reported(tmp_path):
    # the walk finds a third-party import that pyproject.toml does not name (so the tests can fail)
    module = tmp_path / "m.py"
    module.write_text(
        "import os\nimport hypothesis\nfrom django import forms\n"
        "if TYPE_CHECKING:\n    from django_stubs_ext import StrOrPromise\n"
    )
    assert set(_imports([module])) == {"hypothesis", "django"}
    runtime, _ = _declared()
    owners = packages_distributions()
    assert not {_name(d) for d in owners["hypothesis"]} & runtime
    assert {_name(d) for d in owners["django"]} & runtime
