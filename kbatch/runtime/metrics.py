"""A small, deterministic metrics registry: labelled counters and histograms, rendered in the
Prometheus text exposition format (version 0.0.4), as kube-controller-manager serves on ``/metrics``.

One :class:`MetricsRegistry` belongs to one ``ControlPlane`` (``cp.metrics``): no process globals, so
two control planes in one process never share counts. Controllers register their families once
(registering the same name again with the same shape returns the existing family, like
component-base's ``MustRegister`` guarded by a ``sync.Once``)::

    syncs = registry.counter("job_controller_job_syncs_total", "The number of job syncs",
                             ("completion_mode", "result", "action"))
    syncs.labels("Indexed", "success", "tracking").inc()
    registry.render()   # '# HELP job_controller_job_syncs_total The number of job syncs\\n# TYPE ...'

A :class:`Gauge` is set rather than counted; a family whose values are cheaper to read at scrape time
than to keep current on every event has a *collector* (``registry.add_collector(fn)``): ``fn()``
runs before each render and sets the gauges from the state it reads (Kueue's queue sizes and quotas,
:mod:`kbatch.controllers.kueue.metrics`), as a client_golang ``Collector`` does in ``Collect``.

Rendering is deterministic: families by name, series by label values. Values print as Go's
client does (``1`` rather than ``1.0``, ``+Inf``). As in client_golang, a counter never decreases
(``inc`` of a negative amount raises) and a series exists from its first ``labels(...)`` call,
even if only ``inc(0)`` was called.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

__all__ = ["Counter", "Gauge", "Histogram", "MetricsRegistry", "exponential_buckets", "format_value"]

_INF_LE = 'le="+Inf"'
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)  # prometheus.DefBuckets


def exponential_buckets(start: float, factor: float, count: int) -> tuple[float, ...]:
    """``count`` upper bounds ``start * factor**i`` (client_golang ``ExponentialBuckets``)."""
    if count < 1 or start <= 0 or factor <= 1:
        raise ValueError("exponential buckets need count >= 1, start > 0 and factor > 1")
    return tuple(start * factor ** i for i in range(count))


def format_value(value: float) -> str:
    """A sample value as the Go client writes it: integral values without a fraction."""
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _series(names: Sequence[str], values: Sequence[str], extra: str = "") -> str:
    pairs = [f'{n}="{_escape_label(v)}"' for n, v in zip(names, values, strict=True)]
    if extra:
        pairs.append(extra)
    return "{" + ",".join(pairs) + "}" if pairs else ""


class _Family:
    kind = ""
    _children: MutableMapping[tuple[str, ...], Any]  # each kind's series, by label values

    def __init__(self, name: str, help_: str, label_names: Sequence[str]) -> None:
        self.name = name
        self.help = help_
        self.label_names = tuple(label_names)

    def _key(self, values: Sequence[str]) -> tuple[str, ...]:
        if len(values) != len(self.label_names):
            raise ValueError(f"{self.name}: expected {len(self.label_names)} label values "
                             f"{self.label_names}, got {len(values)}")
        return tuple(str(v) for v in values)

    def header(self) -> list[str]:
        return [f"# HELP {self.name} {_escape_help(self.help)}", f"# TYPE {self.name} {self.kind}"]

    def delete_partial_match(self, **labels: str) -> int:
        """client_golang ``DeletePartialMatch``: drop every series whose labels include ``labels``;
        how many went."""
        children = self._children
        where = [(self.label_names.index(name), value) for name, value in sorted(labels.items())]
        doomed = [key for key in children if all(key[i] == value for i, value in where)]
        for key in doomed:
            del children[key]
        return len(doomed)


class _CounterChild:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        if amount < 0:
            raise ValueError("a counter cannot decrease")
        self.value += amount


class Counter(_Family):
    """A counter vector (client_golang ``CounterVec``)."""

    kind = "counter"

    def __init__(self, name: str, help_: str, label_names: Sequence[str] = ()) -> None:
        super().__init__(name, help_, label_names)
        self._children: dict[tuple[str, ...], _CounterChild] = {}

    def labels(self, *values: str) -> _CounterChild:
        key = self._key(values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = _CounterChild()
        return child

    def inc(self, amount: float = 1.0) -> None:
        """For a family without labels."""
        self.labels().inc(amount)

    def value(self, *values: str) -> float:
        """The current value of one series (0 if it does not exist yet)."""
        child = self._children.get(self._key(values))
        return child.value if child is not None else 0.0

    def samples(self) -> list[str]:
        return [f"{self.name}{_series(self.label_names, key)} {format_value(child.value)}"
                for key, child in sorted(self._children.items())]


class _GaugeChild:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def set(self, value: float) -> None:
        self.value = value

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class Gauge(_Family):
    """A gauge vector (client_golang ``GaugeVec``): a value that goes up and down; ``clear()`` drops
    every series (``Reset``), what a collector does before setting the current ones."""

    kind = "gauge"

    def __init__(self, name: str, help_: str, label_names: Sequence[str] = ()) -> None:
        super().__init__(name, help_, label_names)
        self._children: dict[tuple[str, ...], _GaugeChild] = {}

    def labels(self, *values: str) -> _GaugeChild:
        key = self._key(values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = _GaugeChild()
        return child

    def set(self, value: float) -> None:
        """For a family without labels."""
        self.labels().set(value)

    def clear(self) -> None:
        self._children.clear()

    def value(self, *values: str) -> float | None:
        """The current value of one series (``None`` if it does not exist)."""
        child = self._children.get(self._key(values))
        return child.value if child is not None else None

    def samples(self) -> list[str]:
        return [f"{self.name}{_series(self.label_names, key)} {format_value(child.value)}"
                for key, child in sorted(self._children.items())]


class _HistogramChild:
    __slots__ = ("bounds", "count", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * len(bounds)
        self.count = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        ix = bisect_left(self.bounds, value)  # first bucket whose upper bound is >= value
        if ix < len(self.counts):
            self.counts[ix] += 1
        self.count += 1
        self.sum += value


class Histogram(_Family):
    """A histogram vector with cumulative ``le`` buckets (client_golang ``HistogramVec``)."""

    kind = "histogram"

    def __init__(self, name: str, help_: str, label_names: Sequence[str] = (),
                 buckets: Sequence[float] = DEFAULT_BUCKETS) -> None:
        super().__init__(name, help_, label_names)
        if "le" in self.label_names:
            raise ValueError(f"{name}: 'le' is reserved for histogram buckets")
        bounds = tuple(sorted(float(b) for b in buckets if not math.isinf(b)))
        if not bounds:
            raise ValueError(f"{name}: a histogram needs at least one finite bucket")
        self.buckets = bounds
        self._children: dict[tuple[str, ...], _HistogramChild] = {}

    def labels(self, *values: str) -> _HistogramChild:
        key = self._key(values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = _HistogramChild(self.buckets)
        return child

    def count(self, *values: str) -> int:
        child = self._children.get(self._key(values))
        return child.count if child is not None else 0

    def sum(self, *values: str) -> float:
        child = self._children.get(self._key(values))
        return child.sum if child is not None else 0.0

    def samples(self) -> list[str]:
        out = []
        for key, child in sorted(self._children.items()):
            running = 0
            for bound, n in zip(child.bounds, child.counts, strict=True):
                running += n
                le = f'le="{format_value(bound)}"'
                out.append(f"{self.name}_bucket{_series(self.label_names, key, le)} {running}")
            inf = _series(self.label_names, key, _INF_LE)
            out.append(f"{self.name}_bucket{inf} {child.count}")
            out.append(f"{self.name}_sum{_series(self.label_names, key)} {format_value(child.sum)}")
            out.append(f"{self.name}_count{_series(self.label_names, key)} {child.count}")
        return out


class MetricsRegistry:
    """The metric families of one control plane, by name."""

    def __init__(self) -> None:
        self._families: dict[str, Counter | Gauge | Histogram] = {}
        self._collectors: list[Callable[[], None]] = []
        # what a family's owner keeps with this registry (Kueue's custom labels): it lives, is saved
        # in an image and goes with the registry, where a module's table would outlive it
        self.extensions: dict[str, Any] = {}

    def counter(self, name: str, help_: str, label_names: Sequence[str] = ()) -> Counter:
        family = self._register(Counter(name, help_, label_names))
        assert isinstance(family, Counter)
        return family

    def gauge(self, name: str, help_: str, label_names: Sequence[str] = ()) -> Gauge:
        family = self._register(Gauge(name, help_, label_names))
        assert isinstance(family, Gauge)
        return family

    def add_collector(self, collect: Callable[[], None]) -> None:
        """Run ``collect()`` before every :meth:`render` (and :meth:`collect`)."""
        self._collectors.append(collect)

    def collect(self) -> None:
        """Bring the collected gauges up to date (what :meth:`render` does first)."""
        for collect in self._collectors:
            collect()

    def histogram(self, name: str, help_: str, label_names: Sequence[str] = (),
                  buckets: Sequence[float] = DEFAULT_BUCKETS) -> Histogram:
        family = self._register(Histogram(name, help_, label_names, buckets))
        assert isinstance(family, Histogram)
        return family

    def _register(self, family: Counter | Gauge | Histogram) -> Counter | Gauge | Histogram:
        existing = self._families.get(family.name)
        if existing is None:
            self._families[family.name] = family
            return family
        same = (type(existing) is type(family) and existing.label_names == family.label_names
                and getattr(existing, "buckets", None) == getattr(family, "buckets", None))
        if not same:
            raise ValueError(f"metric {family.name!r} is already registered with another shape")
        return existing

    def get(self, name: str) -> Counter | Gauge | Histogram | None:
        return self._families.get(name)

    def names(self) -> list[str]:
        return sorted(self._families)

    def render(self) -> str:
        """Every family in the Prometheus text format. A family with no series yet is left out, as
        client_golang's ``Gather`` leaves out a vector with no children."""
        self.collect()
        lines: list[str] = []
        for name in sorted(self._families):
            family = self._families[name]
            samples = family.samples()
            if not samples:
                continue
            lines.extend(family.header())
            lines.extend(samples)
        return "\n".join(lines) + "\n" if lines else ""
