"""The ``multiKueue`` section of Kueue's Configuration, settled.

Upstream: kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go`` (``MultiKueue``),
``defaults.go`` and ``pkg/controller/admissionchecks/multikueue/controllers.go``: ``gcInterval`` 1m
(``0`` turns the garbage collector off), ``origin`` ``multikueue``, ``workerLostTimeout`` 5m,
``dispatcherName`` ``kueue.x-k8s.io/multikueue-dispatcher-all-at-once``. Values were validated when the
Configuration was loaded (:func:`kbatch.api.kueue_config_checks.multikueue_errors`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kbatch.api.cron import go_duration_seconds

__all__ = ["ALL_AT_ONCE", "INCREMENTAL", "MultiKueueOptions", "options_from"]

ALL_AT_ONCE = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
INCREMENTAL = "kueue.x-k8s.io/multikueue-dispatcher-incremental"


@dataclass(frozen=True)
class MultiKueueOptions:
    gc_interval: float = 60.0
    origin: str = "multikueue"
    worker_lost_timeout: float = 300.0
    dispatcher_name: str = ALL_AT_ONCE
    events_batch_period: float = 1.0  # constants.UpdatesBatchPeriod
    step_size: int | None = None  # incrementalDispatcherConfig.stepSize


def _seconds(raw: Mapping[str, Any], key: str, default: float) -> float:
    value = raw.get(key)
    return go_duration_seconds(value) if isinstance(value, str) and value else default


def options_from(raw: Mapping[str, Any]) -> MultiKueueOptions:
    return MultiKueueOptions(
        gc_interval=_seconds(raw, "gcInterval", 60.0),
        origin=str(raw.get("origin") or "multikueue"),
        worker_lost_timeout=_seconds(raw, "workerLostTimeout", 300.0),
        dispatcher_name=str(raw.get("dispatcherName") or ALL_AT_ONCE),
        step_size=_step_size(raw.get("incrementalDispatcherConfig")),
    )


def _step_size(idc: Any) -> int | None:
    step = idc.get("stepSize") if isinstance(idc, Mapping) else None
    return step if isinstance(step, int) and not isinstance(step, bool) else None
