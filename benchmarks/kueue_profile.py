"""Where the Kueue run of ``kueue_bench.py`` spends its CPU, sampled rather than traced.

    python benchmarks/kueue_profile.py --only baseline --scale 0.3
    python benchmarks/kueue_profile.py --only large --scale 0.01 --top 80 --under scheduler.py:_admit

cProfile charges every call its own bookkeeping, so deep, call-heavy paths (the CRD schema walk, the
API server's write path) look three to four times dearer than they are (docs/performance.md, Kueue,
seventh pass). This samples instead: a ``SIGPROF`` interval timer fires every ``--interval`` seconds
of the process's CPU time, and each sample is charged to every function on the stack (inclusive) and
to the innermost one (self); no call is slowed. With 1 ms and a Kueue run of a few seconds, a share
is good to about a tenth of a percent. The warm-up and the floor are not sampled, only the Kueue run
(the same ``run`` as the bench's, trace on, CPython's GC). ``--under NAME`` breaks one function's
inclusive share down by the callee it went into next.

A function is named ``path:function`` (the path relative to the repository for kbatch's own code,
the file name otherwise). This measures; it decides nothing.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
Stack = tuple[str, ...]  # outermost first


def _name(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    shown = os.path.relpath(path, ROOT) if path.startswith(str(ROOT)) else os.path.basename(path)
    return f"{shown}:{code.co_name}"


@dataclass
class Samples:
    """Every sampled stack, with how many samples it took."""

    stacks: Counter[Stack] = field(default_factory=Counter)

    def take(self, frame: FrameType | None) -> None:
        names: list[str] = []
        while frame is not None:
            names.append(_name(frame))
            frame = frame.f_back
        self.stacks[tuple(reversed(names))] += 1

    @property
    def total(self) -> int:
        return sum(self.stacks.values())

    def inclusive(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for stack, n in self.stacks.items():
            for name in set(stack):
                out[name] += n
        return out

    def self_time(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for stack, n in self.stacks.items():
            if stack:
                out[stack[-1]] += n
        return out

    def under(self, name: str) -> Counter[str]:
        """``name``'s samples by the callee they were in next (``<self>``: in ``name`` itself), from
        its outermost frame on the stack."""
        out: Counter[str] = Counter()
        for stack, n in self.stacks.items():
            where = next((i for i, s in enumerate(stack) if s.endswith(name)), None)
            if where is not None:
                out[stack[where + 1] if where + 1 < len(stack) else "<self>"] += n
        return out


def sample(fn: Callable[[], object], interval: float) -> Samples:
    """Run ``fn()`` with the CPU-time sampler on; the samples it took."""
    samples = Samples()
    previous = signal.signal(signal.SIGPROF, lambda _sig, frame: samples.take(frame))
    signal.setitimer(signal.ITIMER_PROF, interval, interval)
    try:
        fn()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, previous)
    return samples


def report(samples: Samples, top: int, under: str | None) -> str:
    total = samples.total or 1
    lines = [f"{samples.total} samples"]
    sections = [("inclusive", samples.inclusive()), ("self", samples.self_time())]
    if under:
        sections.append((f"under {under}", samples.under(under)))
    for title, counts in sections:
        lines.append(f"== {title}")
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        lines += [f"{100 * n / total:6.1f}% {name}" for name, n in ranked]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import kueue_bench

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=sorted(kueue_bench.CONFIGS), default="baseline")
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--interval", type=float, default=0.001, help="seconds of CPU time between samples")
    ap.add_argument("--top", type=int, default=60, help="functions listed per section")
    ap.add_argument("--under", default=None, help="break this function's share down by callee")
    args = ap.parse_args(argv)
    kueue_bench.run(args.only, min(args.scale, 0.01), False, floor=True)  # imports, first-use caches
    result: dict[str, object] = {}
    samples = sample(lambda: result.update(kueue_bench.run(args.only, args.scale, True)), args.interval)
    print(f"== {args.only}, scale {args.scale:g}: {result['workloads']} workloads, "
          f"Kueue run cpu {result['cpu']:.2f} s (sampled)")
    print(report(samples, args.top, args.under))
    return 0


if __name__ == "__main__":
    sys.exit(main())
