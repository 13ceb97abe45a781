"""A pending pod's update that leaves its spec (``metadata.generation``) and labels alone is derived
from the last PodInfo instead of converting the pod again, and the result equals a fresh
conversion (the DRA pods' ``resourceClaimStatuses`` write, the scheduler's own status writes)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.controllers.scheduler.controller import _pending_update
from kbatch.controllers.scheduler.convert import pod_info


def _pod(generation: int, labels: dict[str, str], status: dict[str, Any], deleting: bool) -> Pod:
    meta: dict[str, Any] = {"name": "p", "namespace": "default", "uid": "u1", "generation": generation,
                            "labels": labels}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return Pod.model_validate({
        "metadata": meta,
        "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]},
        "status": status})


STATUS = st.fixed_dictionaries({}, optional={
    "phase": st.sampled_from(["Pending", "Failed"]),
    "nominatedNodeName": st.sampled_from(["", "n1", "n2"]),
    "resourceClaimStatuses": st.lists(st.fixed_dictionaries(
        {"name": st.just("gpu")}, optional={"resourceClaimName": st.sampled_from(["p-gpu-1", "p-gpu-2"])}),
        max_size=1)})
LABELS = st.dictionaries(st.sampled_from(["a", "b"]), st.just("x"), max_size=2)


@settings(max_examples=150, deadline=None)
@given(STATUS, STATUS, LABELS, LABELS, st.integers(1, 2), st.booleans())
def test_a_derived_pending_update_equals_a_fresh_conversion(before, after, labels, new_labels, generation,
                                                             deleting) -> None:
    old = pod_info(_pod(1, labels, before, False), seq=7, creation=3.0)
    new = _pod(generation, new_labels, after, deleting)
    derived = _pending_update(old, new)
    fresh = pod_info(new, seq=7, creation=3.0)
    if generation != 1 or new_labels != labels:
        assert derived is None  # the spec or the labels may have changed: converted again
        return
    assert derived is not None and _fields(derived) == _fields(fresh)
    assert (derived is old) == (_fields(fresh) == _fields(old))  # unchanged: the very same info


def test_a_bound_or_unknown_pod_is_not_derived() -> None:
    pod = _pod(1, {}, {}, False)
    assert _pending_update(None, pod) is None
    bound = pod_info(pod).__class__(**{**_fields(pod_info(pod)), "node_name": "n1"})
    assert _pending_update(bound, pod) is None


def _fields(info: Any) -> dict[str, Any]:
    return {name: getattr(info, name) for name in info.__dataclass_fields__ if not name.startswith("_")}
