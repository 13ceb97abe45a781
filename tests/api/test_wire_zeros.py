"""Unset fields are written as Go writes them on the wire (kbatch.api.wire_zeros): structs as ``{}``,
metav1.Time as null, scalars without ``omitempty`` as their zeros.

Go's encoding/json does not omit a struct under ``omitempty``, and ``metav1.Time.MarshalJSON`` writes a
zero time as ``null`` (k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``); k8s.io/api 1.37 declares
``PodCondition.LastProbeTime`` and friends by value with ``omitempty`` only, so a 1.37 API server
answers ``"lastProbeTime":null``. ``ObjectMeta.CreationTimestamp`` has ``omitzero`` too: absent.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.wire_zeros import with_wire_zeros

READY = {"type": "Ready", "observedGeneration": 1, "status": "True",
         "lastTransitionTime": "2025-01-01T00:00:00Z"}


def test_pod_condition_gets_null_probe_time_in_go_field_order() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "status": {"conditions": [READY]}}
    out = with_wire_zeros(pod)
    # Go's field order: type, observedGeneration, status, lastProbeTime, lastTransitionTime
    assert json.dumps(out["status"]["conditions"][0], separators=(",", ":")) == (
        '{"type":"Ready","observedGeneration":1,"status":"True","lastProbeTime":null,'
        '"lastTransitionTime":"2025-01-01T00:00:00Z"}')
    assert pod["status"]["conditions"][0] is READY and "lastProbeTime" not in READY  # input untouched


def test_set_times_are_kept_and_nothing_to_add_returns_the_same_object() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {
        "metadata": {}, "spec": {"containers": [{"name": "c", "image": "i", "resources": {}}]}}},
        "status": {"conditions": [
        {"type": "Complete", "status": "True", "lastProbeTime": "2025-01-01T00:01:00Z",
         "lastTransitionTime": "2025-01-01T00:01:00Z"}]}}
    assert with_wire_zeros(job) is job


def test_unknown_container_status_writes_null_start_and_finish() -> None:
    # what the kubelet reports for ContainerStatusUnknown: no times, printed as null upstream
    pod = {"apiVersion": "v1", "kind": "Pod", "status": {"containerStatuses": [{"name": "c", "lastState": {
        "terminated": {"exitCode": 137, "reason": "ContainerStatusUnknown", "message": "gone"}}}]}}
    term = with_wire_zeros(pod)["status"]["containerStatuses"][0]["lastState"]["terminated"]
    assert list(term) == ["exitCode", "reason", "message", "startedAt", "finishedAt"]
    assert term["startedAt"] is None and term["finishedAt"] is None


def test_lists_nodes_namespaces_events() -> None:
    listed = {"apiVersion": "v1", "kind": "NodeList", "items": [
        {"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "t"}]}}]}
    cond = with_wire_zeros(listed)["items"][0]["status"]["conditions"][0]
    assert list(cond) == ["type", "status", "lastHeartbeatTime", "lastTransitionTime"]
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "involvedObject": {},
             "reason": "Scheduled", "eventTime": "2025-01-01T00:00:00.000000Z", "reportingComponent": "s"}
    out = with_wire_zeros(event)
    # reportingInstance has no omitempty (core/v1 types.go): Go writes it empty
    assert list(out) == ["apiVersion", "kind", "metadata", "involvedObject", "reason", "source",
                         "firstTimestamp", "lastTimestamp", "eventTime", "reportingComponent",
                         "reportingInstance"]
    assert out["reportingInstance"] == ""
    # a kubectl List of mixed kinds: each item by its own kind
    mixed = {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "status": {
        "conditions": [{"type": "Ready", "status": "True"}]}}, {"apiVersion": "v1", "kind": "ConfigMap"}]}
    assert with_wire_zeros(mixed)["items"][0]["status"]["conditions"][0]["lastProbeTime"] is None
    # a template's metadata gets no creationTimestamp: it is omitzero in 1.37
    tmpl = {"apiVersion": "batch/v1", "kind": "Job", "spec": {"template": {"metadata": {}}}}
    assert with_wire_zeros(tmpl)["spec"]["template"]["metadata"] == {}


_keys = st.sampled_from(["type", "observedGeneration", "status", "lastProbeTime", "lastTransitionTime",
                         "reason", "message", "extra"])
_conditions = st.lists(st.dictionaries(_keys, st.text(max_size=3), max_size=6), max_size=4)


@given(_conditions, st.sampled_from([("v1", "Pod"), ("batch/v1", "Job"), ("v1", "Node"),
                                     ("v1", "Namespace"), ("v1", "ConfigMap")]))
def test_only_adds_go_zeros_keeps_order_and_is_idempotent(conds: list[dict[str, Any]],
                                                           kind: tuple[str, str]) -> None:
    obj = {"apiVersion": kind[0], "kind": kind[1], "status": {"conditions": conds}}
    before = copy.deepcopy(obj)
    out = with_wire_zeros(obj)
    assert obj == before  # never changes its input
    assert with_wire_zeros(out) == out
    for old, new in zip(conds, out["status"]["conditions"], strict=True):
        assert [k for k in new if k in old] == list(old)  # present keys keep their order
        assert all(new[k] == v for k, v in old.items())
        # times are null, the strings without omitempty (type, status; metav1's reason, message) ""
        assert all(new[k] is None if "Time" in k else new[k] == "" for k in new.keys() - old.keys())
    assert out["metadata"] == {} and (kind[1] == "ConfigMap") == ("spec" not in out)
