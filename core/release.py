"""Which code is running: ``RELEASE``, else a digest of the code's files. Cache keys carry it, so a
deploy never serves what the code before it drew or read."""

import hashlib
from pathlib import Path

from django.conf import settings

SUFFIXES = (".py", ".html", ".css", ".js", ".txt", ".md", ".svg", ".json")


def code_digest(folders: tuple[str, ...], suffixes: tuple[str, ...] = SUFFIXES) -> str:
    """``RELEASE``, else a digest of the files of ``folders`` (under BASE_DIR) with ``suffixes``."""
    if settings.RELEASE:
        return settings.RELEASE
    digest = hashlib.blake2b(digest_size=6)
    base = Path(settings.BASE_DIR)
    for folder in folders:
        for path in sorted((base / folder).rglob("*")):
            if path.suffix in suffixes and path.is_file():
                digest.update(str(path.relative_to(base)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()
