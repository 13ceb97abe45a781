"""An experiment file read and checked as a whole: the sweep's points, each point's validated spec.

:func:`load_plan` reads YAML text or a file, expands ``spec.sweep``, substitutes each point's
parameters and validates the result (:mod:`kbatch.experiment.spec`), checks the templates' names and
every arrival process (a trace file is read here). Any problem raises one
:class:`~kbatch.experiment.errors.ExperimentError`, before anything runs or is written.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbatch.experiment.errors import ExperimentError
from kbatch.experiment.generators import Arrival, check_names, schedule
from kbatch.experiment.spec import Experiment, validate_point
from kbatch.experiment.sweep import Point, substitute, sweep_points

__all__ = ["Plan", "PlannedPoint", "load_plan"]


@dataclass(frozen=True, slots=True)
class PlannedPoint:
    point: Point
    experiment: Experiment
    arrivals: tuple[Arrival, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    name: str
    source: str  # the file (or "<text>")
    base: Path | None  # where relative trace files are found
    points: tuple[PlannedPoint, ...]
    parameters: tuple[str, ...]


def _read(source: str | Path | dict[str, Any]) -> tuple[Any, str, Path | None]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    if isinstance(source, dict):
        return source, "<dict>", None
    path = Path(source) if isinstance(source, Path) or "\n" not in str(source) else None
    if path is not None:
        try:
            text = path.read_text()
        except OSError as err:
            raise ExperimentError("", f"cannot read {path}: {err.strerror or err}") from None
    else:
        text = str(source)
    try:
        docs = [d for d in YAML(typ="safe", pure=True).load_all(io.StringIO(text)) if d is not None]
    except YAMLError as err:
        raise ExperimentError("", f"invalid YAML: {' '.join(str(err).split())}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise ExperimentError("", "an experiment file holds one mapping (apiVersion, kind, metadata, spec)")
    return docs[0], str(path) if path else "<text>", path.resolve().parent if path else None


def _plan_point(doc: dict[str, Any], point: Point, base: Path | None) -> PlannedPoint:
    params = dict(point.params)
    body = {k: v for k, v in doc.items() if k != "spec"}
    spec = {k: v for k, v in (doc.get("spec") or {}).items() if k != "sweep"}
    resolved = substitute({**body, "spec": spec}, params)
    try:
        experiment = validate_point(resolved)
        for g, generator in enumerate(experiment.spec.workloads):
            check_names(generator, f"spec.workloads[{g}]")
        arrivals = schedule(experiment.spec, base)
    except ExperimentError as err:
        raise ExperimentError(err.path, err.message, point.label if point.params else None) from None
    x = experiment.spec.summary.x
    if x is not None and x not in params:
        raise ExperimentError("spec.summary.x", f'"{x}" is not a parameter of the sweep')
    return PlannedPoint(point, experiment, tuple(arrivals))


def load_plan(source: str | Path | dict[str, Any], *, summary: dict[str, Any] | None = None,
              stop_when_finished: bool = False) -> Plan:
    """The plan of an experiment file (a path, YAML text or a parsed mapping); ``summary`` sets fields
    of ``spec.summary`` over the file's (``kbatch experiment run --by … --group …``),
    ``stop_when_finished`` sets ``spec.stopWhenFinished`` (``--stop-when-finished``)."""
    doc, where, base = _read(source)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        validate_point(doc)  # names the missing or malformed spec
        raise ExperimentError("spec", "must be a mapping")
    if summary:
        given = spec.get("summary")
        spec = {**spec, "summary": {**(given if isinstance(given, dict) else {}), **summary}}
        doc = {**doc, "spec": spec}
    if stop_when_finished:
        spec = {**spec, "stopWhenFinished": True}
        doc = {**doc, "spec": spec}
    points = sweep_points(spec.get("sweep"))
    planned = tuple(_plan_point(doc, p, base) for p in points)
    return Plan(name=planned[0].experiment.metadata.name, source=where, base=base, points=planned,
                parameters=tuple(n for n, _ in points[0].params))
