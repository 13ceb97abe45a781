"""Where one CLI command's peak memory is reached: its peak RSS phase by phase (Linux).

    python benchmarks/cli_phases.py --state DIR advance 30s      # any kbatch command line
    python benchmarks/cli_phases.py --save-detail --state DIR advance 30s

Runs the command in this process through the CLI's own entry point (``kbatch.cli.main``) and prints,
on stderr, the resident set and the peak of each phase of its session (``kbatch/cli/session.py``):
the imports, the image's load (unpickling), the settle before the command, the command with the
settle after it, and the image's save. The peak of a phase is the kernel's ``VmHWM``, reset at the
start of each phase by writing ``5`` to ``/proc/self/clear_refs`` (proc(5)), so each figure is that
phase's own high-water mark, not the process's so far. ``--save-detail`` also traces the save with
``tracemalloc`` (slower) and prints the allocations it holds at its end, by source line, and the
pickler's memo entries by type: what the save adds to what the command already holds (the pickler
keeps every object it wrote, and every argument tuple a reducer made for it, until the save ends),
and the objects whose states it wrote as columns (``kbatch/runtime/pickling.py``).

The state directory is changed as the command changes it: work on a copy to repeat a measurement.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

MiB = 2**20
_START = time.process_time()


def memory() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process, in bytes."""
    found: dict[str, int] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) * 1024
    return found["VmRSS"], found["VmHWM"]


def mark(phase: str) -> None:
    """Print the phase that just ended (its resident set now, its peak) and start the next one."""
    rss, peak = memory()
    print(f"[phase] {phase:<34} rss {rss / MiB:7,.0f} MiB   peak {peak / MiB:7,.0f} MiB   "
          f"cpu {time.process_time() - _START:7.1f} s", file=sys.stderr, flush=True)
    Path("/proc/self/clear_refs").write_text("5")  # the next phase's VmHWM starts from its VmRSS


def _wrapped(name: str, call: Callable[..., Any], before: str | None = None) -> Callable[..., Any]:
    def phase(*args: Any, **kwargs: Any) -> Any:
        if before is not None:
            mark(before)
        out = call(*args, **kwargs)
        mark(name)
        return out

    return phase


def save_detail(save: Callable[..., Any]) -> Callable[..., Any]:
    """``save_image`` traced: what its pickler holds at its end, by line and by memo entry type."""
    import pickle
    import tracemalloc

    from kbatch.runtime import pickling

    pickler_class = pickling.ImagePickler
    picklers: list[pickle.Pickler] = []

    class Kept(pickler_class):  # type: ignore[valid-type, misc]  # remembers itself for the report
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            picklers.append(self)

    def traced(*args: Any, **kwargs: Any) -> Any:
        import kbatch.runtime.image as image

        image.ImagePickler = Kept  # type: ignore[misc]
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        try:
            return save(*args, **kwargs)
        finally:
            now, peak = tracemalloc.get_traced_memory()
            snapshot = tracemalloc.take_snapshot()
            tracemalloc.stop()
            image.ImagePickler = pickler_class  # type: ignore[misc]
            print(f"[save] traced: peak {(peak - before) / MiB:,.0f} MiB over the command's, "
                  f"{(now - before) / MiB:,.0f} MiB held at the end", file=sys.stderr)
            for stat in snapshot.statistics("lineno")[:8]:
                print(f"[save]   {stat}", file=sys.stderr)
            if picklers:
                kinds = Counter(type(obj).__name__ for _, obj in picklers[-1].memo.copy().values())
                total = sum(kinds.values())
                print(f"[save] memo entries {total:,}: {kinds.most_common(12)}", file=sys.stderr)
                deferred = Counter(type(obj).__name__ for obj in picklers[-1].deferred)
                print(f"[save] deferred objects (state in columns) {sum(deferred.values()):,}: "
                      f"{deferred.most_common(8)}", file=sys.stderr)

    return traced


def main(argv: list[str]) -> int:
    detail = "--save-detail" in argv
    argv = [a for a in argv if a != "--save-detail"]
    import kbatch.runtime.image as image
    from kbatch.server.facade import ControlPlaneBackend

    mark("imports")
    image.load_image = _wrapped("load image (unpickle)", image.load_image)  # type: ignore[assignment]
    save = save_detail(image.save_image) if detail else image.save_image
    image.save_image = _wrapped("save image", save, before="command, settle")  # type: ignore[assignment]
    settle = ControlPlaneBackend.settle

    def first_settle(backend: ControlPlaneBackend) -> None:  # the session's settle before the command
        ControlPlaneBackend.settle = settle  # type: ignore[method-assign]
        settle(backend)
        mark("settle before the command")

    ControlPlaneBackend.settle = first_settle  # type: ignore[method-assign, assignment]
    from kbatch.cli import main as kbatch

    try:
        kbatch(argv)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else int(done.code is not None)
    finally:
        ControlPlaneBackend.settle = settle  # type: ignore[method-assign]
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
