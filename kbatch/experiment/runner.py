"""One sweep point, run: a fresh in-process control plane in virtual time, then its report.

The steps: build the ``ControlPlane`` the spec configures (seed, controllers, feature gates, Kueue
and scheduler configuration; no trace: the report reads objects, and a
:class:`~kbatch.reporting.claim_history.ClaimRecorder` keeps the claims' allocated versions);
create the node groups as ``kbatch nodes add`` does (:func:`kbatch.server.actions.node_template`);
apply ``setup`` at ``t = 0``; then for each arrival in order, advance the clock to it and apply the
workload's manifests; then advance to the horizon (in hundredths, each a tick of progress) and build
the report. With ``stopWhenFinished``, every tick after the last arrival checks whether every
workload of the report has finished; the first that finds so stops the point, and its report ends
at the last finish (:func:`finished_report`). Nothing here reads the wall clock or an unseeded
random source, so a point gives the same report in any process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.experiment.errors import ExperimentError
from kbatch.experiment.generators import render
from kbatch.experiment.plan import PlannedPoint
from kbatch.experiment.spec import ExperimentSpec

__all__ = ["PointRun", "Tick", "build_control_plane", "finished_report", "run_point"]

TICKS = 100  # progress ticks over the horizon


@dataclass(frozen=True, slots=True)
class Tick:
    """Progress of one point: virtual seconds reached of the horizon, objects stored, store writes."""

    point: int
    reached: float
    horizon: float
    objects: int
    writes: int


@dataclass(frozen=True, slots=True)
class PointRun:
    """What a point leaves: its report (``Report.to_dict()``) and, if asked, its plots as PNG bytes."""

    index: int
    label: str
    params: tuple[tuple[str, Any], ...]
    report: dict[str, Any]
    plots: tuple[tuple[str, bytes], ...] = ()
    stopped_early: bool = False  # spec.stopWhenFinished: every workload finished before the horizon


def _config_path(err: Exception) -> str:
    kind = type(err).__name__
    if kind == "FeatureGateError":
        return "spec.featureGates"
    if kind == "SelectionError":
        return "spec.controllers"
    if kind == "SchedulerConfigError":
        return "spec.schedulerConfig"
    if "Kueue" in str(err):
        return "spec.kueueConfig"
    return "spec"


def build_control_plane(spec: ExperimentSpec) -> Any:
    """The point's control plane, with its nodes; a configuration it refuses is an ExperimentError."""
    from kbatch.api.errors import StatusError
    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.server.actions import node_template
    from kbatch.sim import create_nodes

    try:
        cp = ControlPlane(seed=spec.seed, controllers=spec.controllers, feature_gates=spec.feature_gates,
                          scheduler_config=spec.scheduler_config, kueue_config=spec.kueue_config, trace=False)
    except (StatusError, ValueError, TypeError) as err:
        raise ExperimentError(_config_path(err), str(err)) from None
    for k, group in enumerate(spec.nodes):
        try:
            template = node_template(group.action_args())
        except StatusError as err:
            field = "taints" if "taint" in str(err) else "gpuDriver"
            raise ExperimentError(f"spec.nodes[{k}].{field}", str(err)) from None
        try:
            create_nodes(cp, group.count, template, prefix=f"{group.prefix}-")
        except StatusError as err:  # e.g. a label the API server refuses: the field it came from
            raise ExperimentError(f"spec.nodes[{k}]", str(err)) from None
    return cp


def _apply(cp: Any, manifests: list[dict[str, Any]], path: str) -> None:
    from kbatch.api.errors import StatusError

    try:
        cp.apply(manifests)
    except (StatusError, ValueError) as err:
        raise ExperimentError(path, str(err)) from None


def _objects(cp: Any) -> int:
    return int(cp.store.range(b"/", b"0", count_only=True).count)


@dataclass(frozen=True, slots=True)
class _Outcome:
    report: Any  # kbatch.reporting.Report
    stopped_early: bool


def run_point(planned: PlannedPoint, progress: Callable[[Tick], None] | None = None) -> Any:
    """Run one point; returns its :class:`kbatch.reporting.Report`."""
    return _run(planned, progress).report


def _run(planned: PlannedPoint, progress: Callable[[Tick], None] | None) -> _Outcome:
    spec = planned.experiment.spec
    index = planned.point.index
    cp = build_control_plane(spec)
    from kbatch.reporting.claim_history import ClaimRecorder

    claims = ClaimRecorder(cp)  # the devices of pods whose claims are deleted before the report
    try:
        _apply(cp, spec.setup, "spec.setup")
        start = cp.clock.now()
        step = spec.horizon / TICKS
        next_tick = 0.0

        def tick(reached: float, last: bool = False) -> None:
            nonlocal next_tick
            if progress is not None and (last or reached >= next_tick):
                progress(Tick(index, reached, spec.horizon, _objects(cp), cp.store.revision))
                next_tick = reached + step

        for arrival in planned.arrivals:
            cp.advance(max(0.0, start + arrival.at - cp.clock.now()))
            generator = spec.workloads[arrival.generator]
            _apply(cp, render(generator, arrival.index), f"spec.workloads[{arrival.generator}].template")
            tick(arrival.at)
        checked: float | None = None
        for k in range(1, TICKS + 1):
            target = start + step * k if k < TICKS else start + spec.horizon
            if target > cp.clock.now():
                cp.advance(target - cp.clock.now())
            if spec.stop_when_finished and checked != cp.clock.now() and k < TICKS:
                checked = cp.clock.now()
                early = finished_report(cp, spec.summary.by, claims.claims())
                if early is not None:
                    tick(cp.clock.now() - start, last=True)
                    return _Outcome(early, True)
            tick(cp.clock.now() - start, last=k == TICKS)
        from kbatch.reporting import report

        return _Outcome(report(cp, by=spec.summary.by, history=claims.claims()), False)
    finally:
        cp.close()


def finished_report(cp: Any, by: str | None = None, history: list[Any] | None = None) -> Any | None:
    """The report of ``cp`` ending at its last workload's finish, once every workload has finished;
    ``None`` before (or while the report lists no workload at all). "Finished" is
    :attr:`WorkloadRecord.terminal`: the kind's own terminal state (a Job's ``Complete``/``Failed``
    condition, a JobSet's ``Completed``/``Failed``, a scheduler-plugins PodGroup's ``Finished``/
    ``Failed`` phase), or for a kind without one (a bare pod, a native PodGroup) every pod ended; a
    Job whose pods have all ended but whose condition is still to be written is not finished. So the
    early report is the report a run to the full horizon gives, cut at that instant
    (docs/experiment.md)."""
    from kbatch.reporting import report, sources

    objects, now = sources.from_control_plane(cp)
    current = report(objects, end=now, by=by, history=history)
    ends = [r.finished for r in current.workloads if r.terminal and r.finished is not None]
    if not ends or len(ends) < len(current.workloads):
        return None  # (a scheduler-plugins PodGroup's Finished phase has no time: it runs the horizon)
    return report(objects, end=max(max(ends), current.origin), by=by, history=history)


def run_point_record(planned: PlannedPoint, plots: bool,
                     progress: Callable[[Tick], None] | None = None) -> PointRun:
    """:func:`run_point` as plain, picklable data: the report's records and its PNGs."""
    outcome = _run(planned, progress)
    result = outcome.report
    pngs: tuple[tuple[str, bytes], ...] = ()
    if plots:
        from kbatch.reporting.plots import figures, png_bytes

        pngs = tuple((name, png_bytes(fig)) for name, fig in figures(result).items())
    point = planned.point
    return PointRun(point.index, point.label, point.params, result.to_dict(), pngs, outcome.stopped_early)
