"""``-f FILE|DIR|-``: which files a command reads; the reading itself is the API layer's one loader.

As ``kubectl apply -f``: a directory contributes its ``.yaml``, ``.yml`` and ``.json`` files in name
order (not recursively); ``-`` reads standard input (named ``STDIN`` in errors, as kubectl does).
Each file's documents go through :func:`kbatch.apiserver.manifests.load_manifests` (multi-document
YAML or JSON, ``List`` kinds expanded, kubectl's client-side checks); every file is read and checked
before anything is sent, so a bad document leaves the state untouched.

Each object keeps the name of the file it came from, for kubectl's client-side mapping error: a kind
or version the server does not serve is refused before the object is sent, naming the document's
own name and namespace and its file (k8s.io/cli-runtime ``pkg/resource/mapper.go`` ``infoForData``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kbatch.apiserver.manifests import ManifestError, load_manifests

__all__ = ["ManifestError", "manifest_files", "no_kind_match", "read_manifests", "read_sourced_manifests"]

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


def read_sourced_manifests(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Every object of ``paths`` with the name of its source (a file's path as given, or ``STDIN``)."""
    objects: list[tuple[str, dict[str, Any]]] = []
    for name in paths:
        if name == "-":
            objects += [("STDIN", obj) for obj in load_manifests(sys.stdin.read(), "STDIN")]
            continue
        for file in manifest_files(name):
            objects += [(str(file), obj) for obj in load_manifests(read_file(file), str(file))]
    if not objects:
        raise ManifestError("no objects passed to apply")
    return objects


def read_manifests(paths: list[str]) -> list[dict[str, Any]]:
    return [obj for _, obj in read_sourced_manifests(paths)]


def no_kind_match(obj: dict[str, Any], source: str, reason: str) -> ManifestError:
    """kubectl's error for a document whose kind the server does not serve (``NoKindMatchError``):
    the document's name and namespace as written (before ``-n``), Go-quoted, then the file."""
    meta = obj.get("metadata") or {}

    def quoted(value: Any) -> str:
        return json.dumps(value if isinstance(value, str) else "", ensure_ascii=False)

    return ManifestError(f"resource mapping not found for name: {quoted(meta.get('name'))} namespace: "
                         f"{quoted(meta.get('namespace'))} from {quoted(source)}: {reason}\n"
                         "ensure CRDs are installed first")
