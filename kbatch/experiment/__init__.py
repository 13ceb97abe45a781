"""Simulation experiments: sweeps of workloads over a simulated cluster, in virtual time, reported.

``kbatch experiment run FILE [--out DIR]`` and :func:`run` read an experiment file
(:mod:`~kbatch.experiment.spec`: nodes, workload generators with arrival processes, the control
plane's configuration, a horizon, a sweep), run every point on its own in-process control plane
(:mod:`~kbatch.experiment.runner`, in parallel processes: :mod:`~kbatch.experiment.execute`) and
summarise them (:mod:`~kbatch.experiment.summary`, :mod:`~kbatch.experiment.result`).
:mod:`~kbatch.experiment.fifo` holds the closed-form FIFO queue the examples are checked against.
See docs/experiment.md.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbatch.experiment.errors import ExperimentError
from kbatch.experiment.execute import default_jobs, execute
from kbatch.experiment.fifo import FifoJob, fifo_jobs, fixed_interval_start
from kbatch.experiment.plan import Plan, PlannedPoint, load_plan
from kbatch.experiment.result import ExperimentResult
from kbatch.experiment.runner import PointRun, Tick, run_point
from kbatch.experiment.spec import Experiment, ExperimentSpec
from kbatch.experiment.sweep import Point

__all__ = [
    "Experiment",
    "ExperimentError",
    "ExperimentResult",
    "ExperimentSpec",
    "FifoJob",
    "Plan",
    "PlannedPoint",
    "Point",
    "PointRun",
    "Tick",
    "default_jobs",
    "execute",
    "fifo_jobs",
    "fixed_interval_start",
    "load_plan",
    "run",
    "run_point",
]


def run(source: str | Path | dict[str, Any], *, out: str | Path | None = None, jobs: int | None = None,
        plots: bool = True, progress: Callable[[Tick], None] | None = None,
        summary: dict[str, Any] | None = None, stop_when_finished: bool = False) -> ExperimentResult:
    """Run the experiment ``source`` (a file path, YAML text or a mapping): every point, in virtual
    time, ``jobs`` at once (default: one per CPU, at most one per point). With ``out`` the reports,
    plots and summary are written there (docs/experiment.md); ``summary`` sets fields of
    ``spec.summary`` (``{"by": "label=team", "group": "t0"}``), ``stop_when_finished`` stops each point
    once every workload finished (``spec.stopWhenFinished``). Raises :class:`ExperimentError`."""
    plan = load_plan(source, summary=summary, stop_when_finished=stop_when_finished)
    result = ExperimentResult(plan, tuple(execute(plan, jobs=jobs, plots=plots and out is not None,
                                                  progress=progress)))
    if out is not None:
        result.write(out, plots=plots)
    return result
