"""``pod_info`` with a shared memo (one per sync) builds the same views as without one, and pods with
equal conditions/containers share one tuple."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.job.adapt import pod_info

_times = st.sampled_from([None, datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, 0, 1, tzinfo=UTC)])
_condition = st.fixed_dictionaries({
    "type": st.sampled_from(["Ready", "PodScheduled", "DisruptionTarget"]),
    "status": st.sampled_from(["True", "False"]),
    "lastTransitionTime": _times.map(lambda t: t and t.isoformat().replace("+00:00", "Z"))})
_state = st.one_of(st.just({"running": {}}), st.builds(lambda code: {"terminated": {
    "exitCode": code, "finishedAt": "2025-01-01T00:01:00Z"}}, st.integers(0, 3)))
_container = st.fixed_dictionaries({"name": st.sampled_from(["a", "b"]), "image": st.just("x"),
                                    "ready": st.booleans(), "restartCount": st.integers(0, 2),
                                    "state": _state})


def _pod(i: int, conditions: list, containers: list, phase: str | None) -> Pod:
    status = None if phase is None else {"phase": phase, "conditions": conditions,
                                          "containerStatuses": containers}
    return Pod.model_validate({"metadata": {"name": f"p{i}", "uid": f"u{i}"},
                               "spec": {"containers": [{"name": "a", "image": "x"}]}, "status": status})


@given(st.lists(st.tuples(st.lists(_condition, max_size=3), st.lists(_container, max_size=2),
                          st.sampled_from([None, "Running", "Succeeded", "Failed"])), max_size=8))
def test_shared_memo_builds_the_same_views(specs: list) -> None:
    pods = [_pod(i, c, k, ph) for i, (c, k, ph) in enumerate(specs)]
    memo: dict = {}
    assert [pod_info(p, memo) for p in pods] == [pod_info(p) for p in pods]


def test_equal_conditions_share_one_tuple() -> None:
    conds = [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-01-01T00:00:00Z"}]
    a, b = _pod(1, conds, [], "Running"), _pod(2, conds, [], "Running")
    memo: dict = {}
    va, vb = pod_info(a, memo), pod_info(b, memo)
    assert va.conditions is vb.conditions and va.ready and vb.ready
    assert pod_info(_pod(3, [], [], "Running"), memo).conditions == ()
