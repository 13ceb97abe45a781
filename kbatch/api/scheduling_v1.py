"""scheduling.k8s.io/v1 PriorityClass (k8s.io/api ``scheduling/v1/types.go``).

A cluster-scoped mapping from a class name to an integer priority. Fields sit at the top level
(no spec). ``value`` is required upstream; it defaults to 0 here so that a missing value is reported
by validation rather than by decoding.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo
from kbatch.api.meta import Resource

__all__ = ["PriorityClass"]


class PriorityClass(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="scheduling.k8s.io", version="v1", kind="PriorityClass", plural="priorityclasses",
        namespaced=False, short_names=("pc",), singular="priorityclass", subresources=(),
    )

    value: int = 0
    global_default: bool | None = None
    description: str | None = None
    preemption_policy: str | None = None  # PreemptLowerPriority | Never
