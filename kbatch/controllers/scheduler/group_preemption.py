"""Workload-aware preemption for a pod group that did not fit (KEP-5710; placeholder until the
algorithm lands: no preemption)."""

from __future__ import annotations

from typing import Any

__all__ = ["preempt_for_group"]


def preempt_for_group(cycle: Any, group: Any, pods: Any, result: Any, now: float) -> bool:
    return False
