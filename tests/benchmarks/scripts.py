"""Loading a benchmark script (``benchmarks/*.py``, not a package) as a module, for its tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]


def load(name: str) -> Any:
    """``benchmarks/<name>.py`` as the module ``name`` (registered first: its dataclasses look their
    module up)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module
