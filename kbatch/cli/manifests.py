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

__all__ = ["ManifestError", "read_manifests"]

SUFFIXES = (".yaml", ".yml", ".json")


def read_manifests(paths: list[str]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for name in paths:
        if name == "-":
            objects += load_manifests(sys.stdin.read(), "STDIN")
            continue
        path = Path(name)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
        elif path.exists():
            files = [path]
        else:
            raise ManifestError(f'the path "{name}" does not exist')
        for file in files:
            try:
                text = file.read_text()
            except (OSError, UnicodeDecodeError) as err:
                reason = getattr(err, "strerror", None) or err
                raise ManifestError(f"error reading {file}: {reason}") from None
            objects += load_manifests(text, str(file))
    if not objects:
        raise ManifestError("no objects passed to apply")
    return objects
