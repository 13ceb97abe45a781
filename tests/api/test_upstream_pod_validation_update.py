"""Upstream's ``TestValidatePodUpdate`` table (the gated-pod and activeDeadlineSeconds cases),
through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go`` (stored copy at commit
000f2605, 1.35+), ``ValidatePodUpdate`` / ``validateNodeSelectorMutation`` /
``validateNodeAffinityMutation`` in ``validation.go``. Each case creates the old pod, then updates it
to the new one with ``APIServer.update``; upstream checks that the first error contains ``err``, these
tests check the (field, reason) kube-apiserver reports. Not translated: the mirror-pod annotation
cases (kbatch has no static pods), the pod OS cases (kbatch does not validate ``spec.os`` against the
security context).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from tests.api.upstream_pod import FORBIDDEN, INVALID, pod, server

GATE = {"schedulingGates": [{"name": "baz"}]}
NA = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
EXPR = {"key": "expr", "operator": "In", "values": ["foo"]}
EXPR2 = {"key": "expr2", "operator": "In", "values": ["foo2"]}
FIELD = {"key": "metadata.name", "operator": "In", "values": ["foo"]}


def _required(*terms: dict[str, Any]) -> dict[str, Any]:
    required = {"nodeSelectorTerms": list(terms)}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": required}}


OLD_AFFINITY = _required({"matchExpressions": [EXPR]})
GROWN_AFFINITY = _required({"matchExpressions": [EXPR, EXPR2], "matchFields": [FIELD]})


def _update(old: dict[str, Any], new: dict[str, Any]) -> Pod:
    api = server()
    stored = api.create(pod(old))
    updated = Pod.model_validate(copy.deepcopy(pod(new).to_dict()))
    updated.metadata = stored.metadata
    return api.update(updated)


def _rejected(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, str]:
    with pytest.raises(Invalid) as err:
        _update(old, new)
    first = err.value.status.to_dict()["details"]["causes"][0]
    return first["field"], first["reason"]


# (upstream case name, old spec, new spec, first (field, reason) or None when accepted)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], tuple[str, str] | None]] = [
    ("activeDeadlineSeconds change to positive from nil", {}, {"activeDeadlineSeconds": 30}, None),
    ("activeDeadlineSeconds change to smaller positive", {"activeDeadlineSeconds": 60},
     {"activeDeadlineSeconds": 30}, None),
    ("activeDeadlineSeconds change to larger positive", {"activeDeadlineSeconds": 30},
     {"activeDeadlineSeconds": 60}, ("spec.activeDeadlineSeconds", INVALID)),
    ("activeDeadlineSeconds change to nil from positive", {"activeDeadlineSeconds": 30}, {},
     ("spec.activeDeadlineSeconds", INVALID)),
    ("update pod spec schedulingGates: legal deletion", {"schedulingGates": [{"name": "foo"}]}, {}, None),
    ("update pod spec schedulingGates: add new scheduling gate", {}, {"schedulingGates": [{"name": "foo"}]},
     ("spec.schedulingGates[0].name", FORBIDDEN)),
    ("adding node selector is allowed for gated pods", GATE, {**GATE, "nodeSelector": {"foo": "bar"}}, None),
    ("adding node selector is not allowed for non-gated pods", {"nodeSelector": {"foo": "bar"}},
     {"nodeSelector": {"foo": "bar", "foo2": "bar2"}}, ("spec", FORBIDDEN)),
    ("removing node selector is not allowed for gated pods", {**GATE, "nodeSelector": {"foo": "bar"}}, GATE,
     ("spec.nodeSelector", INVALID)),
    ("old pod spec has scheduling gate, new pod spec does not, and node selector is added",
     {**GATE, "nodeSelector": {"foo": "bar"}}, {"nodeSelector": {"foo": "bar", "foo2": "bar2"}}, None),
    ("modifying value of existing node selector is not allowed", {**GATE, "nodeSelector": {"foo": "bar"}},
     {**GATE, "nodeSelector": {"foo": "new value"}}, ("spec.nodeSelector", INVALID)),
    ("addition to nodeAffinity is allowed for gated pods", {**GATE, "affinity": OLD_AFFINITY},
     {**GATE, "affinity": GROWN_AFFINITY}, None),
    ("old RequiredDuringSchedulingIgnoredDuringExecution is non-nil, "
     "new RequiredDuringSchedulingIgnoredDuringExecution is nil, pod is gated",
     {**GATE, "affinity": OLD_AFFINITY}, {**GATE, "affinity": {"nodeAffinity": {}}}, (NA, INVALID)),
    ("addition to nodeAffinity is not allowed for non-gated pods", {"affinity": OLD_AFFINITY},
     {"affinity": GROWN_AFFINITY}, ("spec", FORBIDDEN)),
    ("old pod spec has scheduling gate, new pod spec does not, and node affinity addition occurs",
     {**GATE, "affinity": OLD_AFFINITY}, {"affinity": GROWN_AFFINITY}, None),
    ("nodeAffinity deletion of matchExpressions is not allowed (upstream: MatchExpressions -> MatchFields)",
     {**GATE, "affinity": OLD_AFFINITY}, {**GATE, "affinity": _required({"matchFields": [FIELD]})},
     (f"{NA}[0]", INVALID)),
    ("adding a NodeSelectorTerm to a non-empty list is not allowed",
     {**GATE, "affinity": OLD_AFFINITY},
     {**GATE, "affinity": _required({"matchExpressions": [EXPR]}, {"matchExpressions": [EXPR2]})},
     (NA, INVALID)),
    ("pod affinity may not change on a gated pod", GATE, {**GATE, "affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone", "labelSelector": {}}]}}},
     ("spec", FORBIDDEN)),
]


@pytest.mark.parametrize(("old", "new", "expected"), [(o, n, e) for _, o, n, e in CASES],
                         ids=[c[0] for c in CASES])
def test_pod_update(old: dict[str, Any], new: dict[str, Any], expected: tuple[str, str] | None) -> None:
    if expected is None:
        assert _update(old, new).metadata.uid
    else:
        assert _rejected(old, new) == expected


def test_node_selector_mutation_message() -> None:
    """``validateNodeSelectorMutation``: the whole new selector is the bad value."""
    with pytest.raises(Invalid) as err:
        _update({**GATE, "nodeSelector": {"foo": "bar"}}, {**GATE, "nodeSelector": {"foo": "other"}})
    assert err.value.status.to_dict()["details"]["causes"][0]["message"] == (
        'Invalid value: {"foo":"other"}: only additions to spec.nodeSelector are allowed '
        "(no mutations or deletions)")


# TestValidatePodUpdate's toleration cases (old pod scheduled to node1 unless noted)
NODE1 = {"nodeName": "node1"}
TOL1 = {"key": "key1", "value": "value1", "operator": "Equal", "effect": "NoExecute"}
TOLERATIONS: list[tuple[str, dict[str, Any], dict[str, Any], tuple[str, str] | None]] = [
    ("existing toleration value modified in pod spec updates",
     {**NODE1, "tolerations": [{"key": "key1", "value": "value1"}]},
     {**NODE1, "tolerations": [{"key": "key1", "value": "value2"}]}, ("spec.tolerations", FORBIDDEN)),
    ("existing toleration value modified in pod spec updates with modified tolerationSeconds",
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 10}]},
     {**NODE1, "tolerations": [{**TOL1, "value": "value2"}]}, ("spec.tolerations", FORBIDDEN)),
    ("modified tolerationSeconds in existing toleration value in pod spec updates",
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 20}]},
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 10}]}, None),
    ("toleration modified in updates to an unscheduled pod",
     {"tolerations": [{"key": "key1", "value": "value1"}]},
     {"tolerations": [{"key": "key1", "value": "value2"}]}, ("spec.tolerations", FORBIDDEN)),
    ("tolerations unmodified in updates to a scheduled pod",
     {**NODE1, "tolerations": [{"key": "key1", "value": "value1"}]},
     {**NODE1, "tolerations": [{"key": "key1", "value": "value1"}]}, None),
    ("added valid new toleration to existing tolerations in pod spec updates",
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 10}]},
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 20},
                               {**TOL1, "key": "key2", "value": "value2", "tolerationSeconds": 30}]}, None),
    ("added invalid new toleration to existing tolerations in pod spec updates",
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 10}]},
     {**NODE1, "tolerations": [{**TOL1, "tolerationSeconds": 20},
                               {**TOL1, "key": "key2", "effect": "NoSchedule", "tolerationSeconds": 30}]},
     ("spec.tolerations[1].effect", INVALID)),
]


@pytest.mark.parametrize(("old", "new", "expected"), [(o, n, e) for _, o, n, e in TOLERATIONS],
                         ids=[c[0] for c in TOLERATIONS])
def test_toleration_update(old: dict[str, Any], new: dict[str, Any],
                           expected: tuple[str, str] | None) -> None:
    """Note: upstream's "toleration modified ..." cases for a scheduled pod apply as well to kbatch,
    which sets ``nodeName`` at creation as a user may."""
    if expected is None:
        assert _update(old, new).metadata.uid
    else:
        assert _rejected(old, new) == expected


def test_exists_toleration_with_value_names_the_value() -> None:
    """``ValidateTolerations``: an ``Exists`` toleration with a value reports the value itself."""
    from tests.api.upstream_pod import causes

    (field, _, message), *_ = causes(pod({"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}))
    assert (field, message) == ("spec.tolerations[0].operator",
                                "Invalid value: \"v\": value must be empty when `operator` is 'Exists'")
