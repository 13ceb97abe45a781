"""benchmarks/ab.py gives each run its own worktree of the baseline and removes it when the run ends:
two runs against the same baseline at once (two engineers on one machine) must not share, or remove,
each other's checkout. The scenario runs are replaced by a stub that records which tree it ran in."""

from __future__ import annotations

import importlib.util
import subprocess
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import kbatch

ROOT = Path(kbatch.__file__).resolve().parents[1]


def _ab() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kbatch_ab_under_test", ROOT / "benchmarks" / "ab.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def test_two_runs_against_one_baseline_use_their_own_worktrees_and_remove_them() -> None:
    ab = _ab()
    both_inside = threading.Barrier(2, timeout=120)
    seen: list[Path] = []
    lock = threading.Lock()

    def run_side(tree: Path, scenario: str, extra: list[str]) -> dict[str, float]:
        if tree != ab.ROOT:  # the baseline's side: wait until the other run holds its checkout too
            assert (tree / "kbatch").is_dir()
            with lock:
                seen.append(tree)
            both_inside.wait()
        return {"rate": 1.0}

    ab.run_side = run_side
    errors: list[BaseException] = []

    def one_run() -> None:
        try:
            ab.compare("cluster", [], baseline="HEAD")
        except BaseException as err:  # reported by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=one_run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    assert len(seen) == 2 and seen[0] != seen[1], seen
    listed = _worktrees()
    for tree in seen:
        assert not tree.exists(), tree
        assert str(tree) not in listed


def test_the_worktree_is_removed_when_the_run_fails() -> None:
    ab = _ab()
    held: list[Path] = []

    def run_side(tree: Path, scenario: str, extra: list[str]) -> Any:
        held.append(tree)
        raise RuntimeError("scenario failed")

    ab.run_side = run_side
    with pytest.raises(RuntimeError, match="scenario failed"):
        ab.compare("cluster", [], baseline="HEAD")
    assert held and not held[0].exists()
    assert str(held[0]) not in _worktrees()
