"""``-f FILE|DIR|-``: which files a command reads; the reading itself is the API layer's one loader.

As ``kubectl apply -f``: a directory contributes its ``.yaml``, ``.yml`` and ``.json`` files in name
order (not recursively); ``-`` reads standard input (named ``STDIN`` in errors, as kubectl does).
Each file's documents go through :func:`kbatch.apiserver.manifests.load_manifests` (multi-document
YAML or JSON, ``List`` kinds expanded, kubectl's client-side checks); every file is read and checked
before anything is sent, so a bad document leaves the state untouched.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kbatch.apiserver.manifests import ManifestError, load_manifests

__all__ = ["ManifestError", "manifest_files", "read_manifests"]

SUFFIXES = (".yaml", ".yml", ".json")


def manifest_files(name: str) -> list[Path]:
    """The files ``-f NAME`` stands for: NAME itself, or a directory's manifest files in name order
    (cli-runtime's ``FileVisitor`` / ``ExpandPathsToFileVisitors``, not recursive)."""
    path = Path(name)
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
    if path.exists():
        return [path]
    raise ManifestError(f'the path "{name}" does not exist')


def read_file(file: Path) -> str:
    try:
        return file.read_text()
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or err
        raise ManifestError(f"error reading {file}: {reason}") from None


def read_manifests(paths: list[str]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for name in paths:
        if name == "-":
            objects += load_manifests(sys.stdin.read(), "STDIN")
            continue
        for file in manifest_files(name):
            objects += load_manifests(read_file(file), str(file))
    if not objects:
        raise ManifestError("no objects passed to apply")
    return objects
