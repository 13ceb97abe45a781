"""Architecture boundaries, checked by reading the source (kopf's import-linter contracts, in spirit).

* Layers: store < api < families < apiserver < runtime < sim < controllers < cli/server (authz, the
  pure authorization decisions, sits on api alone and is used by server and above). A module may
  import only from its own layer or below (ARCHITECTURE.md, "Layers"); families declare what lies
  above them by lazy ``"module:attribute"`` references only.
* Determinism: the wall clock is read only in ``kbatch/runtime/clock.py``; no module-level use of
  the ``random`` module's global generator anywhere (a seeded ``random.Random`` is fine).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "kbatch"

# package -> packages it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "store": set(),
    "api": set(),
    "families": {"api"},
    "authz": {"api"},
    "apiserver": {"api", "store", "families", "authz"},
    "runtime": {"api", "store", "families", "apiserver"},
    "controllers": {"api", "store", "families", "apiserver", "runtime", "sim", "controllers"},
    "sim": {"api", "store", "families", "apiserver", "runtime"},
    "testing": {"api", "store", "families", "apiserver", "runtime", "controllers", "sim"},
    "server": {"api", "store", "families", "apiserver", "runtime", "controllers", "sim", "authz"},
    "reporting": {"api", "store", "families", "apiserver", "runtime", "controllers", "sim", "server",
                  "authz"},
    "experiment": {"api", "store", "families", "apiserver", "runtime", "controllers", "sim", "server",
                   "reporting", "authz"},
    "cli": {"api", "store", "families", "apiserver", "runtime", "controllers", "sim", "server", "testing",
            "reporting", "experiment", "authz"},
}


def _modules() -> list[Path]:
    return sorted(p for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


def _kbatch_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [n for n in names if n == "kbatch" or n.startswith("kbatch.")]
    return found


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_module_imports_respect_layers(path: Path) -> None:
    rel = path.relative_to(ROOT)
    if len(rel.parts) == 1:
        return  # kbatch/__init__.py and top-level modules may re-export anything
    layer = rel.parts[0]
    allowed = ALLOWED.get(layer)
    assert allowed is not None, f"package kbatch/{layer} has no layer rule in tests/test_boundaries.py"
    for name in _kbatch_imports(path):
        parts = name.split(".")
        if len(parts) < 2:
            continue
        target = parts[1]
        assert target == layer or target in allowed, f"{rel} imports {name}: {layer} may not import {target}"


WALL_CLOCK = re.compile(r"\btime\.(time|monotonic|perf_counter|sleep)\(|datetime\.(now|utcnow|today)\(")
GLOBAL_RANDOM = re.compile(
    r"\brandom\.(random|choice|choices|randint|randrange|shuffle|sample|uniform|seed)\("
)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_wall_clock_outside_clock_module(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    if rel == "runtime/clock.py":
        return
    hits = [line for line in path.read_text().splitlines() if WALL_CLOCK.search(line)]
    assert not hits, f"{rel} reads the wall clock: {hits}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_global_random(path: Path) -> None:
    hits = [line for line in path.read_text().splitlines() if GLOBAL_RANDOM.search(line)]
    assert not hits, f"{path.relative_to(ROOT)} uses the global random generator: {hits}"
