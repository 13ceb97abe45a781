"""The Workload webhook's ``validateAdmissionUpdate`` (``webhooks/kinds.py`` ``_admission_changed``)
answers an unchanged admission without building the "topology fields moved over" copy: every status
write after the admission's (finish, conditions, requeue state) carries the admission unchanged. The
answer is the general one for every pair (kueue ``pkg/webhooks/workload_webhook.go``, v0.19.2: with
TopologyAwareScheduling only the pod sets' ``topologyAssignment`` and ``delayedTopologyRequest`` may
change)."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Admission
from kbatch.controllers.kueue.webhooks import kinds


def _admission(cq: str, flavor: str, count: int, delayed: str | None) -> Admission:
    psa: dict[str, Any] = {"name": "main", "flavors": {"cpu": flavor}, "resourceUsage": {"cpu": "1"},
                           "count": count}
    if delayed is not None:
        psa["delayedTopologyRequest"] = delayed
    return Admission.model_validate({"clusterQueue": cq, "podSetAssignments": [psa]})


ADMISSION = st.builds(_admission, st.sampled_from(["cq", "other"]), st.sampled_from(["a", "b"]),
                      st.integers(1, 2), st.sampled_from([None, "Pending", "Ready"]))


def _reference(new: Admission, old: Admission, tas: bool) -> bool:
    """The general answer: without TAS any difference; with it, a difference once the topology
    fields are taken from the new admission."""
    if not tas or len(new.pod_set_assignments or ()) != len(old.pod_set_assignments or ()):
        return new != old
    moved = [o.model_copy(update={"topology_assignment": n.topology_assignment,
                                  "delayed_topology_request": n.delayed_topology_request})
             for o, n in zip(old.pod_set_assignments or (), new.pod_set_assignments or (), strict=True)]
    return new != old.model_copy(update={"pod_set_assignments": moved})


@settings(max_examples=200, deadline=None)
@given(ADMISSION, ADMISSION, st.booleans())
def test_the_answer_is_the_general_one(new: Admission, old: Admission, tas: bool) -> None:
    assert kinds._admission_changed(new, old, tas) == _reference(new, old, tas)
    assert kinds._admission_changed(new, new.model_copy(deep=True), tas) is False


def test_an_unchanged_admission_is_not_copied() -> None:
    old = _admission("cq", "a", 1, "Pending")
    new = old.model_copy(deep=True)
    with mock.patch.object(Admission, "model_copy", side_effect=AssertionError("copied")):
        assert kinds._admission_changed(new, old, True) is False
