"""The code digest in every cache key: a deploy that changes what a page is drawn or read from
never serves what the code before it made."""

from pathlib import Path

from core.release import code_digest
from web.http import pagekeys


def write(base: Path, name: str, text: str) -> None:
    path = base / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_change_in_a_digested_folder_changes_the_digest_and_one_elsewhere_does_not(
    tmp_path, settings
):
    settings.BASE_DIR, settings.RELEASE = tmp_path, ""
    write(tmp_path, "app/rules.py", "LIMIT = 1\n")
    write(tmp_path, "app/page.html", "<p>one</p>\n")
    write(tmp_path, "other/rules.py", "LIMIT = 1\n")
    first = code_digest(("app",))
    write(tmp_path, "other/rules.py", "LIMIT = 2\n")
    assert code_digest(("app",)) == first
    write(tmp_path, "app/page.html", "<p>two</p>\n")
    assert code_digest(("app",)) != first
    assert code_digest(("app",), suffixes=(".py",)) == code_digest(("app",), suffixes=(".py",))


def test_release_names_the_code_when_set(settings):
    settings.RELEASE = "2026.12.07-abc"
    assert code_digest(("web",)) == "2026.12.07-abc"


def test_every_package_a_page_is_drawn_from_is_in_the_pages_digest():
    root = Path(__file__).resolve().parents[2]
    packages = {p.parent.name for p in root.glob("*/__init__.py")}
    # neither the tests nor ops (backups, purges, synthetic arenas) draw a page
    assert packages - {"tests", "ops"} <= set(pagekeys.SHAPING)
