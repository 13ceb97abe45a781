"""The sweep: named parameters, their values, and ``${name}`` substitution into the experiment.

``spec.sweep`` maps each parameter to a list of values or an inclusive range::

    sweep:
      interval: [17, 18, 19, 20]            # values (numbers, strings, booleans)
      borrowingLimit: {from: 0, to: 16, step: 8}

The points are the cartesian product, in the order the parameters are written, the last one varying
fastest (so the same file always gives the same points in the same order). Anywhere in the spec,
``${name}`` stands for the parameter's value: a string that is exactly ``${name}`` becomes the value
itself (a number stays a number), else the value is written into the string. Mapping keys take
parameters too (``featureGates: {"${gate}": true}``, ``labels: {"${key}": x}``): a key is always text,
and two keys that become one are an error. ``${i}`` and ``${name}`` are reserved for workload
templates (:mod:`kbatch.experiment.generators`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.experiment.errors import ExperimentError

__all__ = ["MAX_POINTS", "PLACEHOLDER", "RESERVED", "Point", "Value", "substitute", "sweep_points", "text_of"]

Value = str | int | float | bool
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
RESERVED = ("i", "name")  # filled per workload by the generators
MAX_POINTS = 10_000
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True, slots=True)
class Point:
    """One point of the sweep: its index and its parameters, in the file's order."""

    index: int
    params: tuple[tuple[str, Value], ...]

    @property
    def label(self) -> str:
        """``interval=17,borrowingLimit=0`` (``default`` without a sweep)."""
        return ",".join(f"{k}={text_of(v)}" for k, v in self.params) or "default"

    def directory(self, points: int) -> str:
        """A file-system-safe name that sorts in sweep order: ``03-interval=20``."""
        safe = re.sub(r"[^A-Za-z0-9._=,-]", "_", self.label)
        return f"{self.index:0{len(str(max(points - 1, 0)))}d}-{safe}"


def text_of(value: Value) -> str:
    """A value as it is written into a string: ``17`` (not ``17.0``), ``true``, ``2.5``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _range(spec: Mapping[str, Any], path: str) -> list[Value]:
    unknown = set(spec) - {"from", "to", "step"}
    if unknown:
        raise ExperimentError(f"{path}.{sorted(unknown)[0]}", "unknown field (a range has from, to, step)")
    for key in ("from", "to", "step"):
        value = spec.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ExperimentError(f"{path}.{key}", "required number" if value is None else "must be a number")
    start, stop, step = spec["from"], spec["to"], spec["step"]
    if step <= 0:
        raise ExperimentError(f"{path}.step", "must be greater than 0")
    if stop < start:
        raise ExperimentError(f"{path}.to", "must not be less than from")
    count = math.floor((stop - start) / step + 1e-9) + 1
    if count > MAX_POINTS:
        raise ExperimentError(path, f"more than {MAX_POINTS} values")
    values = [start + k * step for k in range(count)]
    if all(isinstance(v, int) for v in (start, step)):
        return [int(v) for v in values]
    return [round(float(v), 12) for v in values]


def _values(name: str, spec: Any, path: str) -> list[Value]:
    if isinstance(spec, Mapping):
        return _range(spec, path)
    if not isinstance(spec, list) or not spec:
        raise ExperimentError(path, "must be a non-empty list of values or a range {from, to, step}")
    for k, value in enumerate(spec):
        if not isinstance(value, str | int | float | bool):
            raise ExperimentError(f"{path}[{k}]", "must be a number, string or boolean")
    return list(spec)


def sweep_points(sweep: Any, path: str = "spec.sweep") -> list[Point]:
    """The points of ``spec.sweep`` (``None``: the one point without parameters)."""
    if sweep is None:
        return [Point(0, ())]
    if not isinstance(sweep, Mapping):
        raise ExperimentError(path, "must be a mapping of parameter names to values")
    axes: list[tuple[str, list[Value]]] = []
    for name, spec in sweep.items():
        where = f"{path}.{name}"
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ExperimentError(where, "a parameter name is letters, digits and _, not a digit first")
        if name in RESERVED:
            raise ExperimentError(where, f'"{name}" is reserved for workload templates')
        axes.append((name, _values(name, spec, where)))
    total = math.prod(len(v) for _, v in axes)
    if total > MAX_POINTS:
        raise ExperimentError(path, f"{total} points: at most {MAX_POINTS}")
    names = [n for n, _ in axes]
    return [Point(k, tuple(zip(names, combo, strict=True)))
            for k, combo in enumerate(itertools.product(*(v for _, v in axes)))]


def substitute(value: Any, params: Mapping[str, Any], path: str = "", *,
               keep: tuple[str, ...] = RESERVED) -> Any:
    """``value`` with every ``${name}`` of ``params`` filled in (a copy); ``${…}`` of ``keep`` stay.
    An unknown name raises :class:`ExperimentError` at its field path."""
    if isinstance(value, dict):
        return _substitute_mapping(value, params, path, keep)
    if isinstance(value, list):
        return [substitute(v, params, f"{path}[{k}]", keep=keep) for k, v in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value
    whole = PLACEHOLDER.fullmatch(value)
    if whole and whole.group(1) in params:
        return params[whole.group(1)]

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in params:
            return text_of(params[name])
        if name in keep:
            return match.group(0)
        known = ", ".join(n for n in params if n not in RESERVED) or "none"
        raise ExperimentError(path, f'unknown parameter "${{{name}}}" (the sweep defines: {known})')

    return PLACEHOLDER.sub(fill, value)


def _substitute_mapping(value: Mapping[Any, Any], params: Mapping[str, Any], path: str,
                        keep: tuple[str, ...]) -> dict[Any, Any]:
    """A mapping with its keys and values filled in. A key is always text (``{"${gate}": true}`` with
    ``gate: JobPodReplacementPolicy`` is ``{"JobPodReplacementPolicy": true}``, a number written as in
    a string); two keys that become one are refused at the mapping's path, as a YAML file repeating a
    key would be."""
    out: dict[Any, Any] = {}
    for k, v in value.items():
        where = f"{path}.{k}" if path else str(k)
        key = _substitute_key(k, params, where, keep)
        if key in out:
            raise ExperimentError(path or "spec", f'duplicate key "{key}" after substituting "{k}"')
        out[key] = substitute(v, params, f"{path}.{key}" if path else str(key), keep=keep)
    return out


def _substitute_key(key: Any, params: Mapping[str, Any], path: str, keep: tuple[str, ...]) -> Any:
    if not isinstance(key, str) or "${" not in key:
        return key
    whole = PLACEHOLDER.fullmatch(key)
    if whole and whole.group(1) in params:
        return text_of(params[whole.group(1)])
    filled = substitute(key, params, path, keep=keep)
    return filled if isinstance(filled, str) else text_of(filled)
