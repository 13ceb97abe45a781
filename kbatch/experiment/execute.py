"""Running every point of a plan: in this process, or in a pool of worker processes.

Points are independent (each builds its own control plane from its own spec and seed), so running
them in parallel changes only when they finish, never what they give: the results are put back in
sweep order, and a test checks that one worker and several give byte-identical outputs. Workers are
forked where the platform can (no second import of kbatch); progress ticks come back through a
queue. The first point that fails cancels the points not yet started and its error is raised.
"""

from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, Future, ProcessPoolExecutor, wait
from typing import Any

from kbatch.experiment.plan import Plan, PlannedPoint
from kbatch.experiment.runner import PointRun, Tick, run_point_record

__all__ = ["default_jobs", "execute"]

_POLL = 0.1  # how often the parent drains the progress queue while points run (display only)


def default_jobs(points: int) -> int:
    """One worker per point, at most one per CPU this process may use."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(points, cpus))


def _worker(planned: PlannedPoint, plots: bool, ticks: Any) -> PointRun:
    return run_point_record(planned, plots, ticks.put if ticks is not None else None)


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else methods[0])


def _drain(ticks: Any, progress: Callable[[Tick], None]) -> None:
    while True:
        try:
            progress(ticks.get_nowait())
        except queue_module.Empty:
            return


def _pool(plan: Plan, jobs: int, plots: bool, progress: Callable[[Tick], None] | None) -> list[PointRun]:
    ctx = _context()
    manager = ctx.Manager() if progress is not None else None
    try:
        ticks = manager.Queue() if manager is not None else None
        with ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
            futures: list[Future[PointRun]] = [pool.submit(_worker, p, plots, ticks) for p in plan.points]
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=_POLL if ticks is not None else None,
                                     return_when=FIRST_EXCEPTION)
                if ticks is not None and progress is not None:
                    _drain(ticks, progress)
                failed = [f for f in done if f.exception() is not None]
                if failed:
                    for f in pending:
                        f.cancel()
                    raise min(failed, key=futures.index).exception()  # type: ignore[misc]
            return [f.result() for f in futures]
    finally:
        if manager is not None:
            manager.shutdown()


def execute(plan: Plan, *, jobs: int | None = None, plots: bool = True,
            progress: Callable[[Tick], None] | None = None) -> list[PointRun]:
    """Every point's :class:`PointRun`, in sweep order; ``jobs`` worker processes (default
    :func:`default_jobs`; 1 runs in this process)."""
    jobs = min(jobs or default_jobs(len(plan.points)), len(plan.points))
    if jobs <= 1:
        return [run_point_record(p, plots, progress) for p in plan.points]
    return _pool(plan, jobs, plots, progress)
