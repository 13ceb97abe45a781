"""Workload generators: the manifests of each workload and the merged schedule of arrivals.

Workload ``i`` of generator ``NAME`` is its template with ``${i}`` = ``i`` and ``${name}`` =
``NAME-i``; a manifest without ``metadata.name`` is named ``NAME-i``. With more than one workload,
every named manifest must use ``${i}`` or ``${name}`` in its name (else the second would update the
first). The schedule is every generator's arrivals merged by time; equal times keep the order of the
generators in the file, then the index: a pure, total order.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbatch.experiment.arrivals import arrival_times
from kbatch.experiment.errors import ExperimentError
from kbatch.experiment.spec import ExperimentSpec, Generator
from kbatch.experiment.sweep import substitute

__all__ = ["Arrival", "check_names", "render", "schedule"]


@dataclass(frozen=True, slots=True, order=True)
class Arrival:
    """Workload ``index`` of generator ``generator`` (its position in the file), at ``at`` seconds."""

    at: float
    generator: int
    index: int


def render(generator: Generator, index: int) -> list[dict[str, Any]]:
    """The manifests of one workload (copies; the template is not changed)."""
    name = f"{generator.name}-{index}"
    out = []
    for manifest in substitute(copy.deepcopy(generator.template), {"i": index, "name": name}, keep=()):
        meta = manifest.setdefault("metadata", {}) if isinstance(manifest, dict) else None
        if isinstance(meta, dict):
            meta.setdefault("name", name)
            meta.setdefault("namespace", generator.namespace)
        out.append(manifest)
    return out


def check_names(generator: Generator, path: str) -> None:
    """Refuse templates whose workloads would share a name."""
    for k, manifest in enumerate(generator.template):
        for key in ("apiVersion", "kind"):
            if not isinstance(manifest.get(key), str) or not manifest.get(key):
                raise ExperimentError(f"{path}.template[{k}].{key}", "required value")
        name = (manifest.get("metadata") or {}).get("name")
        if (generator.count or 0) > 1 and isinstance(name, str) and "${" not in name:
            raise ExperimentError(f"{path}.template[{k}].metadata.name",
                                  "must use ${i} or ${name} (each workload needs its own name)")


def schedule(spec: ExperimentSpec, base: Path | None = None) -> list[Arrival]:
    """Every workload's arrival within the horizon, in time order."""
    out = []
    for g, generator in enumerate(spec.workloads):
        times = arrival_times(generator.arrival, generator.count, base, f"spec.workloads[{g}].arrival")
        out += [Arrival(t, g, k) for k, t in enumerate(times) if t <= spec.horizon]
    return sorted(out)
