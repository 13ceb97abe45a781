"""Tolerations, scheduling gates and pod (anti-)affinity terms as kube-apiserver validates them,
through kbatch's API server.

Source: kubernetes ``pkg/apis/core/validation/validation.go`` at 1.3x (``validateTolerations``,
``validateTaintEffect``, ``validateSchedulingGates``, ``validatePodAffinityTerm``,
``validateMatchLabelKeysAndMismatchLabelKeys``; read in stored copies of those functions — the
``TestValidateTolerations`` / ``TestValidateAffinity`` tables themselves were not found in the time
this audit had). One case per branch; kbatch agreed with every one when this file was written.
Not translated: the Lt/Gt toleration operators (TaintTolerationComparisonOperators, alpha and off
by default in 1.35+, so NotSupported as below).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import (
    DUPLICATE,
    FORBIDDEN,
    INVALID,
    NOT_SUPPORTED,
    REQUIRED,
    created,
    fields,
    pod,
)

T0 = "spec.tolerations[0]"
PA0 = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def _tol(**toleration: Any) -> dict[str, Any]:
    return {"tolerations": [toleration]}


def _pod_affinity(**term: Any) -> dict[str, Any]:
    base = {"topologyKey": "zone", "labelSelector": {"matchLabels": {"app": "x"}}}
    terms = [{**base, **term}]
    return {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}}


SUCCESS: dict[str, dict[str, Any]] = {
    "empty key with Exists tolerates everything": _tol(operator="Exists"),
    "Equal with a label value": _tol(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
    "empty operator means Equal": _tol(key="foo", value="bar"),
    "tolerationSeconds with NoExecute": _tol(key="foo", operator="Exists", effect="NoExecute",
                                             tolerationSeconds=60),
    "scheduling gates with qualified names":
        {"schedulingGates": [{"name": "foo"}, {"name": "example.com/bar"}]},
    "pod affinity with namespaces, namespaceSelector and matchLabelKeys": _pod_affinity(
        namespaces=["ns1"], namespaceSelector={"matchLabels": {"team": "a"}},
        matchLabelKeys=["pod-template-hash"]),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_specs_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("toleration key not a label name", _tol(key="nospecialchars^=@", operator="Equal", value="bar"),
     [(f"{T0}.key", INVALID)]),
    ("empty key needs Exists", _tol(operator="Equal", value="bar"), [(f"{T0}.operator", INVALID)]),
    ("Exists with a value", _tol(key="foo", operator="Exists", value="bar"), [(f"{T0}.operator", INVALID)]),
    ("value not a label value (reported on operator)", _tol(key="foo", operator="Equal", value="bad value!"),
     [(f"{T0}.operator", INVALID)]),
    ("unsupported operator", _tol(key="foo", operator="In", value="bar"),
     [(f"{T0}.operator", NOT_SUPPORTED)]),
    ("Lt operator without its feature gate", _tol(key="foo", operator="Lt", value="5"),
     [(f"{T0}.operator", NOT_SUPPORTED)]),
    ("tolerationSeconds with NoSchedule", _tol(key="foo", operator="Exists", effect="NoSchedule",
                                               tolerationSeconds=20), [(f"{T0}.effect", INVALID)]),
    ("tolerationSeconds without effect", _tol(key="foo", operator="Exists", tolerationSeconds=20),
     [(f"{T0}.effect", INVALID)]),
    ("unsupported effect", _tol(key="foo", operator="Exists", effect="Bogus"),
     [(f"{T0}.effect", NOT_SUPPORTED)]),
    ("scheduling gate not a qualified name", {"schedulingGates": [{"name": "foo/bar/baz"}]},
     [("spec.schedulingGates[0]", INVALID)]),
    ("duplicate scheduling gate", {"schedulingGates": [{"name": "foo"}, {"name": "foo"}]},
     [("spec.schedulingGates[1]", DUPLICATE)]),
    ("pod affinity without topologyKey", _pod_affinity(topologyKey=""), [(f"{PA0}.topologyKey", REQUIRED)]),
    ("pod affinity topologyKey not a label name", _pod_affinity(topologyKey="invalid key ___@#"),
     [(f"{PA0}.topologyKey", INVALID)]),
    ("pod affinity namespace not a DNS label", _pod_affinity(namespaces=["INVALID_NS"]),
     [(f"{PA0}.namespace", INVALID)]),
    ("pod affinity namespaceSelector Exists with values",
     _pod_affinity(namespaceSelector={"matchExpressions": [
         {"key": "k", "operator": "Exists", "values": ["a"]}]}),
     [(f"{PA0}.namespaceSelector.matchExpressions[0].values", FORBIDDEN)]),
    ("matchLabelKeys without labelSelector", _pod_affinity(labelSelector=None, matchLabelKeys=["k"]),
     [(f"{PA0}.matchLabelKeys", FORBIDDEN)]),
    ("matchLabelKeys key not a label name", _pod_affinity(matchLabelKeys=["/simple"]),
     [(f"{PA0}.matchLabelKeys[0]", INVALID)]),
    ("mismatchLabelKeys key not a label name", _pod_affinity(mismatchLabelKeys=["/simple"]),
     [(f"{PA0}.mismatchLabelKeys[0]", INVALID)]),
    ("key in both matchLabelKeys and mismatchLabelKeys",
     _pod_affinity(matchLabelKeys=["k"], mismatchLabelKeys=["k"]),
     [(f"{PA0}.matchLabelKeys[0]", INVALID)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_specs_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected
