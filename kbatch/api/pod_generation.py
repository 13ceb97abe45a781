"""What a writer of a pod condition records as the pod generation it acted on (KEP-5067, Pod
Generation; ``PodObservedGenerationTracking``: beta and on by default since 1.34).

Upstream's writers of pod conditions (the scheduler's ``PodScheduled=False`` and preemption
``DisruptionTarget``, the taint manager, pod GC, the disruption controller's stale-condition reset) fill
``observedGeneration`` through ``podutil.GetPodObservedGenerationIfEnabledOnCondition``
(``pkg/api/v1/pod/util.go``), which with the feature on is the pod's ``metadata.generation``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["with_observed_generation"]


def with_observed_generation(condition: dict[str, Any], generation: int | None) -> dict[str, Any]:
    """``condition`` (its wire form) with ``observedGeneration`` = ``generation``; unchanged when the pod
    has no generation (Go's zero value, ``omitempty``)."""
    if generation:
        condition["observedGeneration"] = generation
    return condition
