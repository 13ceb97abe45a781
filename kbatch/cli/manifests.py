"""Reading manifests for ``-f FILE|DIR|-``: multi-document YAML or JSON, ``List`` kinds expanded.

As ``kubectl apply -f``: a directory contributes its ``.yaml``, ``.yml`` and ``.json`` files in name
order (not recursively); ``-`` reads standard input; empty documents are skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

__all__ = ["ManifestError", "load_manifests", "parse_documents"]

SUFFIXES = (".yaml", ".yml", ".json")


class ManifestError(ValueError):
    """A manifest that cannot be read; the message names the file."""


def parse_documents(text: str, source: str = "<stdin>") -> list[dict[str, Any]]:
    yaml = YAML(typ="safe", pure=True)
    try:
        docs = [d for d in yaml.load_all(text) if d is not None]
    except YAMLError as err:
        raise ManifestError(f"error parsing {source}: {str(err).splitlines()[0]}") from None
    out: list[dict[str, Any]] = []
    for doc in docs:
        if not isinstance(doc, dict):
            raise ManifestError(f"error parsing {source}: a document is not an object")
        if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
            out.extend(doc["items"])
        else:
            out.append(doc)
    for doc in out:
        if not doc.get("apiVersion") or not doc.get("kind"):
            raise ManifestError(f"error validating {source}: apiVersion and kind are required")
    return out


def load_manifests(paths: list[str]) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for name in paths:
        if name == "-":
            objects += parse_documents(sys.stdin.read())
            continue
        path = Path(name)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
        elif path.exists():
            files = [path]
        else:
            raise ManifestError(f'the path "{name}" does not exist')
        for file in files:
            objects += parse_documents(file.read_text(), str(file))
    if not objects:
        raise ManifestError("no objects passed to apply")
    return objects
