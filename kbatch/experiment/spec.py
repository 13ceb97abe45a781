"""The experiment file's model: ``apiVersion: kbatch.dev/v1alpha1``, ``kind: Experiment``.

One sweep point's spec, fully resolved (no ``${param}`` left but a template's ``${i}``/``${name}``)::

    spec:
      seed: 0                        # the control plane's random seed
      controllers: "*"               # kube-controller-manager syntax, as --controllers
      featureGates: "A=true"         # as --feature-gates (or a mapping)
      kueueConfig: {...}             # Kueue's Configuration (as --kueue-config)
      schedulerConfig: {...}         # a KubeSchedulerConfiguration (as --scheduler-config)
      nodes:                         # node groups: what `kbatch nodes add` takes, by the same names
      - {count: 4, gpu: 8, cpu: "8", memory: 32Gi, labels: {...}, taints: ["k=v:NoSchedule"]}
      setup: [manifests...]          # applied once at t = 0, before any workload (queues, flavors)
      workloads:                     # generators
      - name: train
        count: 50
        arrival: {interval: 17s}     # or {poisson: {mean: 17s, seed: 1}} or {trace: {file: F | times: [...]}}
        template: {manifest} | [manifests]   # ${i} and ${name} (= NAME-i) are filled per workload
      horizon: 2h                    # virtual time each point runs for
      stopWhenFinished: false        # true: stop once every workload finished (the report ends there)
      summary: {x: interval, metrics: [completion_time, scheduling_latency], by: label=team, group: a}

The sweep (``spec.sweep``) is read apart, by :mod:`kbatch.experiment.sweep`, before this model sees
the spec. Pydantic validates; :func:`validate_point` turns its errors into one
:class:`~kbatch.experiment.errors.ExperimentError` with the field path.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from kbatch.api.base import wire_validate
from kbatch.api.quantity import parse_quantity
from kbatch.experiment.errors import ExperimentError, field_path
from kbatch.reporting.metrics import group_key
from kbatch.reporting.workloads import DURATIONS
from kbatch.runtime.duration import parse_duration

__all__ = ["API_VERSION", "KIND", "Arrival", "Experiment", "ExperimentSpec", "Generator", "NodeGroup",
           "Poisson", "SummarySpec", "Trace", "validate_point"]

API_VERSION = "kbatch.dev/v1alpha1"
KIND = "Experiment"
MAX_WORKLOADS = 1_000_000  # per generator: a typo such as 10**9 must not run for days
MAX_NODES = 100_000


def _seconds(value: Any) -> float:
    """A duration: seconds as a number, or Go's syntax (``17s``, ``1m30s``, ``2h``)."""
    try:
        return parse_duration(value)
    except ValueError as err:
        raise ValueError(str(err)) from None


def _quantity(value: Any) -> str:
    """A capacity (``cpu: 8``, ``memory: 32Gi``): a quantity string or a number, as a Kubernetes
    manifest takes it (apimachinery ``Quantity.UnmarshalJSON`` reads a JSON number too)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"expected a quantity such as 8, 500m or 32Gi, got {type(value).__name__}")
    parse_quantity(value)  # QuantityError (a ValueError) in upstream's words
    return value


Quantity = Annotated[str, BeforeValidator(_quantity)]
Seconds = Annotated[float, BeforeValidator(_seconds)]
PositiveSeconds = Annotated[float, BeforeValidator(_seconds), Field(gt=0)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)


class NodeGroup(_Model):
    """Nodes from one template; the fields are ``kbatch nodes add``'s options."""

    count: int = Field(1, ge=1, le=MAX_NODES)
    cpu: Quantity = "8"
    memory: Quantity = "32Gi"
    gpu: int = Field(0, ge=0)
    pods: int = Field(110, ge=1)
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[str] = Field(default_factory=list)
    prefix: str = Field("node", pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    gpu_driver: str | None = None
    gpu_model: str = "A100"
    gpu_memory: Quantity = "80Gi"
    gpu_partitions: int = Field(0, ge=0)

    def action_args(self) -> dict[str, Any]:
        """The ``nodes-add`` action's arguments (kbatch.server.actions.node_template)."""
        args: dict[str, Any] = {"cpu": self.cpu, "memory": self.memory, "gpu": self.gpu, "pods": self.pods,
                                "labels": dict(self.labels), "taints": list(self.taints)}
        if self.gpu_driver:
            args["dra"] = {"driver": self.gpu_driver, "count": self.gpu or 8, "model": self.gpu_model,
                           "memory": self.gpu_memory, "partitions": self.gpu_partitions}
        return args


class Poisson(_Model):
    """Exponential gaps of mean ``mean`` from a generator seeded with ``seed``."""

    mean: PositiveSeconds
    seed: int = 0


class Trace(_Model):
    """Arrival times (seconds from the start, or durations): inline ``times`` or a ``file``, one a
    line (``#`` comments; relative to the experiment file)."""

    file: str | None = None
    times: list[Seconds] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Trace:
        if (self.file is None) == (self.times is None):
            raise ValueError("give exactly one of file, times")
        return self


class Arrival(_Model):
    """Exactly one process: a fixed ``interval``, ``poisson`` or a ``trace``; ``start`` offsets it."""

    interval: PositiveSeconds | None = None
    poisson: Poisson | None = None
    trace: Trace | None = None
    start: Seconds = 0.0

    @model_validator(mode="after")
    def _one_process(self) -> Arrival:
        given = [n for n in ("interval", "poisson", "trace") if getattr(self, n) is not None]
        if len(given) != 1:
            got = ", ".join(given) or "none"
            raise ValueError(f"give exactly one of interval, poisson, trace (got {got})")
        return self


class Generator(_Model):
    """``count`` workloads from ``template`` (one manifest or a list), arriving as ``arrival`` says."""

    name: str = Field(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", max_length=50)
    count: int | None = Field(None, ge=1, le=MAX_WORKLOADS)
    arrival: Arrival
    namespace: str = "default"
    template: list[dict[str, Any]] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _template_list(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("template"), dict):
            return {**data, "template": [data["template"]]}
        return data

    @model_validator(mode="after")
    def _count(self) -> Generator:
        if self.count is None and self.arrival.trace is None:
            raise ValueError("count is required (a trace's length may stand for it)")
        return self


class SummarySpec(_Model):
    """What the summary plot shows: ``metrics`` (mean per point) against the parameter ``x``; with
    ``by`` and ``group`` (``by: label=team``, ``group: t0``) the rows read that one group of each point's
    report (``kbatch report --by``) instead of all its workloads."""

    x: str | None = None
    metrics: list[Literal[DURATIONS]] = Field(  # type: ignore[valid-type]
        default_factory=lambda: ["completion_time", "scheduling_latency"], min_length=1)
    by: str | None = None
    group: str | None = None

    @model_validator(mode="after")
    def _group(self) -> SummarySpec:
        if self.by is not None:
            try:
                group_key(self.by)
            except ValueError as err:
                raise ValueError(str(err).replace("--by", "by")) from None
        if (self.by is None) != (self.group is None):
            raise ValueError("give by and group together (the group is one value of by)")
        return self


class ExperimentSpec(_Model):
    seed: int = 0
    controllers: str = "*"
    feature_gates: str | dict[str, bool] | None = None
    kueue_config: dict[str, Any] | None = None
    scheduler_config: dict[str, Any] | None = None
    nodes: list[NodeGroup] = Field(min_length=1)
    setup: list[dict[str, Any]] = Field(default_factory=list)
    workloads: list[Generator] = Field(min_length=1)
    horizon: PositiveSeconds
    stop_when_finished: bool = False  # stop at the first tick at which every workload has finished
    summary: SummarySpec = Field(default_factory=SummarySpec)

    @model_validator(mode="after")
    def _unique(self) -> ExperimentSpec:
        names = [g.name for g in self.workloads]
        if len(set(names)) != len(names):
            raise ValueError("workload generators need distinct names")
        prefixes = [n.prefix for n in self.nodes]
        if len(set(prefixes)) != len(prefixes):
            raise ValueError("node groups need distinct prefixes")
        return self


class Metadata(_Model):
    name: str = Field(min_length=1)


class Experiment(_Model):
    api_version: Literal["kbatch.dev/v1alpha1"]
    kind: Literal["Experiment"]
    metadata: Metadata
    spec: ExperimentSpec


def _first_error(err: ValidationError) -> ExperimentError:
    first = err.errors(include_url=False)[0]
    loc = [p for p in first["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "required value"
    return ExperimentError(field_path(loc), message)


def validate_point(doc: dict[str, Any]) -> Experiment:
    """The experiment of one point (sweep already resolved); raises :class:`ExperimentError`."""
    try:
        return wire_validate(Experiment, doc)
    except ValidationError as err:
        raise _first_error(err) from None
