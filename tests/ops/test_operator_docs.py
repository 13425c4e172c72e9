"""The commands the README and the docs give an operator or a developer run as written.

Every line of their ``sh`` blocks is read as a shell would split it. Each command must name what
exists: a ``make`` target of the Makefile, a program in ``.venv/bin``, a management command whose
parser takes the options given, a file of the repository, a unit of ``deploy/systemd``, a setting
of docs/settings.md's table. Those that can run here do, in the documented order, with the
walk-through's production settings (a scratch SQLite database for its PostgreSQL): the migration, loading the
bundled arena, ``check --deploy``, a backup and a restore over it, and varnishd compiling the VCL.
A command this test does not know fails it: a new kind of command needs a rule here.
"""

from __future__ import annotations

import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, get_commands, load_command_class

pytestmark = pytest.mark.long

ROOT = Path(settings.BASE_DIR)
DOCS = ("README.md", "docs/operations.md", "docs/development.md", "docs/moderating.md")
BLOCK = re.compile(r"^[ ]*```sh\n(.*?)^[ ]*```", re.S | re.M)
ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.S)
# Names an operator sets that are not the site's settings: varnishd's and the shell's own.
OTHER_VARIABLES = {"VARNISH_PURGE_TOKEN", "PATH"}
# Run for real, in this order of appearance; the rest are only checked.
RUNS = {"migrate", "load_bundled_arena", "check", "backup", "restore"}
SYSTEM_PROGRAMS = {"createuser", "createdb", "redis-server", "systemctl", "varnishd"}


@dataclass(frozen=True)
class Command:
    where: str
    env: dict[str, str]
    argv: list[str]

    def __str__(self) -> str:
        return f"{self.where}: {shlex.join(self.argv)}"


def documented_settings() -> set[str]:
    text = (ROOT / "docs/settings.md").read_text(encoding="utf-8")
    table = text.split("## Settings (environment)", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", table))


def shell_lines(text: str, name: str) -> Iterator[tuple[str, str]]:
    """Each command line of each ``sh`` block, continuation lines joined, with where it stands."""
    for block in BLOCK.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        # what the shell would fill in, as an operator's shell would here
        joined = block.group(1).replace("\\\n", " ").replace("$(date +%F)", "2026-12-01")
        joined = joined.replace("$PWD/", "")
        for offset, line in enumerate(joined.splitlines()):
            if line.strip() and not line.lstrip().startswith("#"):
                yield f"{name}:{first + offset}", line.strip()


def commands() -> list[Command]:
    found = []
    for name in DOCS:
        text = (ROOT / name).read_text(encoding="utf-8")
        for where, line in shell_lines(text, name):
            words = shlex.split(line, comments=True)
            part: list[str] = []
            for word in [*words, "&&"]:
                if word != "&&":
                    part.append(word)
                    continue
                env = {}
                while part and (m := ASSIGNMENT.match(part[0])):
                    env[m.group(1)] = m.group(2)
                    part = part[1:]
                found.append(Command(where, env, part))
                part = []
    return found


def makefile_targets() -> set[str]:
    """The targets the Makefile declares phony: every one an operator or developer runs."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    return {t for line in re.findall(r"^\.PHONY:(.*)$", makefile, re.M) for t in line.split()}


def check_manage(argv: list[str]) -> None:
    assert argv[0] == "manage.py", argv
    name, options = argv[1], argv[2:]
    assert name in get_commands(), f"no management command {name!r}"
    parser = load_command_class(get_commands()[name], name).create_parser("manage.py", name)
    parser.parse_args(options)  # exits (SystemExit) on an option the command does not take


def check(command: Command, known_settings: set[str]) -> None:
    """That everything the command names exists; raises AssertionError, or the command's parser its error."""
    for variable in command.env:
        assert variable in known_settings | OTHER_VARIABLES, f"{variable} is no documented setting"
    argv = command.argv
    if not argv:  # a line of settings, as /etc/arena/env holds them
        return
    program, args = argv[0], argv[1:]
    if program == "sudo":
        if args[:2] == ["-u", "postgres"]:
            args = args[2:]
        program, args = args[0], args[1:]
    if program == "export":
        for word in args:
            variable = word.split("=", 1)[0]
            assert variable in known_settings | OTHER_VARIABLES, f"{variable} is no setting"
    elif program == "make":
        for target in (a for a in args if "=" not in a):
            assert target in makefile_targets(), f"no make target {target!r}"
    elif program in (".venv/bin/python", "python"):
        check_manage(args)
    elif program.startswith(".venv/bin/") or program in ("honcho", "gunicorn"):
        tool = program.removeprefix(".venv/bin/")
        assert (ROOT / ".venv" / "bin" / tool).exists(), f"{tool} is not installed in .venv"
        paths = [a for a in args if a.startswith("tests/")]
        assert all((ROOT / p.split("::")[0]).exists() for p in paths), paths
    elif program == "cp":
        assert glob.glob(str(ROOT / args[0])), f"{args[0]} matches no file"
    elif program == "systemctl":
        units = {Path(p).stem for p in glob.glob(str(ROOT / "deploy/systemd/*"))}
        named = [a for a in args[1:] if not a.startswith("-") and a != "status"]
        assert all(u.removesuffix(".target") in units for u in named), named
    elif program in ("set", "."):
        pass
    elif program in SYSTEM_PROGRAMS:
        for path in (a for a in args if "deploy/" in a):
            assert (ROOT / path[path.index("deploy/") :]).exists(), path
    else:
        raise AssertionError(f"a command this test does not know: {program!r}")


def test_every_documented_command_names_what_exists():
    known = documented_settings()
    found = commands()
    assert len(found) > 30, "the documents' sh blocks were not found"
    problems = []
    for command in found:
        try:
            check(command, known)
        except (AssertionError, SystemExit, CommandError) as exc:
            problems.append(f"{command}: {exc}")
    assert problems == []


def test_a_command_that_names_nothing_real_is_caught():
    known = documented_settings()
    for wrong in (
        Command("x", {}, ["make", "no-such-target"]),
        Command("x", {}, [".venv/bin/python", "manage.py", "restore", "--no-such-option", "f"]),
        Command("x", {"NO_SUCH_SETTING": "1"}, [".venv/bin/python", "manage.py", "migrate"]),
        Command("x", {}, ["sudo", "systemctl", "enable", "arena-nothing"]),
        Command("x", {}, ["curl", "http://127.0.0.1/"]),
    ):
        with pytest.raises((AssertionError, SystemExit, CommandError)):
            check(wrong, known)


def walk_through_settings() -> dict[str, str]:
    """The settings step 4 of the walk-through writes into /etc/arena/env."""
    text = (ROOT / "docs/operations.md").read_text(encoding="utf-8")
    lines = [c for c in commands() if c.where.startswith("docs/") and c.env and not c.argv]
    assert lines, "the walk-through's settings block was not found"
    assert "A production walk-through" in text
    return {k: v for c in lines for k, v in c.env.items()}


@pytest.mark.skipif(sys.platform != "linux", reason="the operator's commands are Linux's")
def test_the_operator_commands_run_as_written(tmp_path):
    # an operator's shell: none of the test run's own variables (pytest's, Playwright's async flag)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
    env.update(walk_through_settings())
    # here, a scratch SQLite database stands for the walk-through's PostgreSQL
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    ran = []
    for command in commands():
        argv = command.argv
        if len(argv) < 3 or argv[:2] != [".venv/bin/python", "manage.py"] or argv[2] not in RUNS:
            continue
        args = [a.replace("/backups/", f"{tmp_path}/") for a in argv[2:]]
        if args[0] == "restore" and "--force" not in args:
            continue  # into an empty database: the restore test's; here the database is full
        done = subprocess.run(
            [str(ROOT / ".venv/bin/python"), "manage.py", *args],
            cwd=ROOT,
            env={**env, **command.env},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        ran.append(args[0])
    assert {"migrate", "load_bundled_arena", "check", "backup", "restore"} <= set(ran), ran


@pytest.mark.skipif(not shutil.which("varnishd"), reason="varnishd is not installed")
def test_the_documented_vcl_compiles(tmp_path):
    done = subprocess.run(
        [
            "varnishd",
            "-C",
            "-j",
            "none",
            "-n",
            str(tmp_path),
            "-f",
            str(ROOT / "deploy/varnish/default.vcl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
