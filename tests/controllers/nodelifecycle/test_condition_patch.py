"""``condition_patch``: upstream ``UpdatePodCondition`` (``pkg/api/v1/pod/util.go``) as the taint
manager's ``addConditionAndDeletePod`` uses it: no write when nothing would change; an unchanged
status keeps its ``lastTransitionTime``."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.nodelifecycle.pods import condition_patch

T0, T1 = "2025-01-01T00:00:00Z", "2025-01-01T00:01:00Z"


def _pod(conditions: list[dict[str, Any]]) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "namespace": "default"},
                               "spec": {"containers": [{"name": "c", "image": "busybox"}]},
                               "status": {"conditions": conditions}})


def _target(status: str, reason: str, at: str, generation: int | None = None) -> dict[str, Any]:
    out = {"type": "DisruptionTarget", "status": status, "reason": reason, "message": "m",
           "lastTransitionTime": at}
    if generation is not None:
        out["observedGeneration"] = generation
    return out


def test_a_new_condition_is_added() -> None:
    wanted = _target("True", "DeletionByTaintManager", T1)
    assert condition_patch(_pod([]), wanted) == {"status": {"conditions": [wanted]}}


def test_the_same_condition_is_not_written_again() -> None:
    assert condition_patch(_pod([_target("True", "DeletionByTaintManager", T0)]),
                           _target("True", "DeletionByTaintManager", T1)) is None


def test_a_new_reason_with_the_same_status_keeps_the_transition_time() -> None:
    patch = condition_patch(_pod([_target("True", "PreemptionByScheduler", T0)]),
                            _target("True", "DeletionByTaintManager", T1))
    assert patch == {"status": {"conditions": [_target("True", "DeletionByTaintManager", T0)]}}


def test_a_new_status_moves_the_transition_time() -> None:
    patch = condition_patch(_pod([_target("False", "DeletionByTaintManager", T0)]),
                            _target("True", "DeletionByTaintManager", T1))
    assert patch == {"status": {"conditions": [_target("True", "DeletionByTaintManager", T1)]}}


@given(status=st.sampled_from(["True", "False"]), reason=st.sampled_from(["a", "b"]),
       generation=st.sampled_from([None, 1, 2]), old=st.booleans())
def test_writing_the_patched_condition_leaves_nothing_to_patch(status: str, reason: str,
                                                               generation: int | None, old: bool) -> None:
    """Property: once the patch's condition is on the pod, the same wish patches nothing."""
    start = [_target("True", "a", T0, 1)] if old else []
    wanted = _target(status, reason, T1, generation)
    patch = condition_patch(_pod(start), wanted)
    written = patch["status"]["conditions"] if patch is not None else start
    assert condition_patch(_pod(written), wanted) is None
