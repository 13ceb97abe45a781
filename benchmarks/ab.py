"""A/B: one scenario of :mod:`scenarios` on this tree and on another commit, in the same run.

Each side runs in a fresh process (``python benchmarks/scenarios.py …``) with ``PYTHONPATH`` pointing
at its tree, so both pay the same imports and their peak RSS is their own; the other commit is
checked out into a git worktree of its own in the system's temporary directory for the run, and
removed when the run ends (nothing is committed or left behind; runs at once do not share one).
Sides alternate when ``--repeat`` is above 1, and each figure is the best
(the highest rate, the lowest time) of its repeats, so one noisy moment of a shared machine does
not decide the ratio.

    python benchmarks/ab.py cluster --baseline cd83ab2 --nodes 100 --pods 10000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = Path(__file__).resolve().parent / "scenarios.py"
BASE_COMMIT = "cd83ab2"  # main when issue 16 was taken up: the commit its targets are measured against
LOWER_IS_BETTER = ("wall_s", "_ms", "_mib")  # every other figure is a rate


@contextlib.contextmanager
def checkout(ref: str) -> Iterator[Path]:
    """A worktree of ``ref`` for this run alone (its own fresh directory, so runs against the same
    commit at once never share one), removed with its git bookkeeping when the run ends, however it
    ends."""
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip()
    where = Path(tempfile.mkdtemp(prefix=f"kbatch-ab-{sha[:12]}-"))
    try:
        subprocess.run(["git", "worktree", "add", "--detach", "--force", str(where), sha], cwd=ROOT,
                       check=True, capture_output=True)
        yield where
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)
        shutil.rmtree(where, ignore_errors=True)  # when the add itself failed: the bare directory


def side_env(tree: Path) -> dict[str, str]:
    """The environment of one side's process: its tree first on the path, strict mode off (as a
    user runs), and bytecode allowed even where the machine sets ``PYTHONDONTWRITEBYTECODE``: without
    cached bytecode every process recompiles its tree, and the tree with more modules pays more
    (up to ~0.3 s a process on this VM), which is not what either side's code costs."""
    env = {**os.environ, "PYTHONPATH": str(tree), "KBATCH_STRICT": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def precompile(tree: Path) -> None:
    """Write both trees' bytecode before any timed run, so a first run does not pay compilation."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(tree / "kbatch"),
                    str(tree / "benchmarks")], env=side_env(tree), check=True, capture_output=True)


def run_side(tree: Path, scenario: str, extra: list[str]) -> dict[str, float]:
    env = side_env(tree)
    out = subprocess.run([sys.executable, str(SCENARIOS), scenario, *extra], cwd=tree, env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _best(values: list[float], name: str) -> float:
    return min(values) if name.endswith(LOWER_IS_BETTER) else max(values)


def compare(scenario: str, extra: list[str], baseline: str = BASE_COMMIT, repeat: int = 1
            ) -> tuple[dict[str, float], dict[str, float]]:
    """(this tree's figures, the baseline's), each the best of ``repeat`` alternating runs."""
    runs: dict[str, list[dict[str, float]]] = {"new": [], "base": []}
    with checkout(baseline) as base_tree:
        precompile(base_tree)
        precompile(ROOT)
        for _ in range(repeat):
            runs["base"].append(run_side(base_tree, scenario, extra))
            runs["new"].append(run_side(ROOT, scenario, extra))
    best = {side: {k: _best([r[k] for r in rs], k) for k in rs[0]} for side, rs in runs.items()}
    return best["new"], best["base"]


def report(title: str, new: dict[str, float], base: dict[str, float], baseline: str,
           targets: dict[str, str] | None = None) -> str:
    """A table: each figure on this tree, on the baseline, the ratio (>1 is better) and any target."""
    rows = [f"{title} (A/B against {baseline}, same run)",
            f"  {'figure':<22}{'this tree':>14}{'baseline':>14}{'better by':>11}  target"]
    for name, value in new.items():
        old = base.get(name)
        if old:
            better = old / value if name.endswith(LOWER_IS_BETTER) else value / old
            ratio = f"{better:.2f}x"
        else:
            ratio = "-"
        rows.append(f"  {name:<22}{value:>14,.1f}{(old or 0):>14,.1f}{ratio:>11}  "
                    f"{(targets or {}).get(name, '')}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("--baseline", default=BASE_COMMIT)
    ap.add_argument("--repeat", type=int, default=1)
    args, extra = ap.parse_known_args(argv)
    new, base = compare(args.scenario, extra, args.baseline, args.repeat)
    print(report(args.scenario, new, base, args.baseline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
