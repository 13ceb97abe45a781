"""Upstream's ``TestValidateTopologySpreadConstraints`` table and node field-selector rules, through
kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go`` (stored copy at commit
000f2605, 1.35+), ``TestValidateTopologySpreadConstraints``: each case's constraints go into a Pod's
``spec.topologySpreadConstraints`` (upstream's ``field`` path becomes that) and the Pod is created
through ``APIServer.create``; upstream compares the whole error list, here its fields and reasons.
The ``matchFields`` value cases come from ``ValidateNodeFieldSelectorRequirement`` /
``nodeFieldSelectorValidators`` (``metadata.name`` values are node names), read in the stored
``validation.go`` copies; ``TestValidateAffinity`` itself was not read.

Not translated: "key exists in both matchLabelKeys and labelSelector" (kube-apiserver merges
``matchLabelKeys`` into the selector before validating, MatchLabelKeysInPodTopologySpreadSelectorMerge;
kbatch's handling of that is tests/api/test_pod_match_label_keys.py's), and the two
AllowInvalidTopologySpreadConstraintLabelSelector cases (an update-only option: a new Pod is always
validated strictly, which the "false" case below checks).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_pod import DUPLICATE, INVALID, NOT_SUPPORTED, REQUIRED, causes, created, fields, pod

TS0 = "spec.topologySpreadConstraints[0]"
ZONE = "k8s.io/zone"


def _tsc(*constraints: dict[str, Any]) -> dict[str, Any]:
    return {"topologySpreadConstraints": list(constraints)}


def _c(**fields_: Any) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", **fields_}


SUCCESS: dict[str, dict[str, Any]] = {
    "all required fields ok": _tsc(_c(minDomains=3)),
    "can use MinDomains with ScheduleAnyway, when MinDomains = nil":
        _tsc(_c(whenUnsatisfiable="ScheduleAnyway")),
    "multiple constraints ok with all required fields": _tsc(
        _c(), _c(maxSkew=2, topologyKey="k8s.io/node", whenUnsatisfiable="ScheduleAnyway")),
    "supported policy name set on NodeAffinityPolicy and NodeTaintsPolicy": _tsc(
        _c(nodeAffinityPolicy="Honor", nodeTaintsPolicy="Ignore")),
    "ValidateTopologyKey: only presence is checked": _tsc(_c(topologyKey="invalid key ___@#")),
    "valid matchLabels set on labelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is false":
        _tsc(_c(labelSelector={"matchLabels": {"foo": "foo"}})),
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_valid_constraints_are_created(spec: dict[str, Any]) -> None:
    created(pod(spec))


def _match_fields(*values: str) -> dict[str, Any]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(values)}]}
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term]}}}}


MF0 = ("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
       ".matchFields[0]")

# (case, spec, expected (field, reason) list)
ERRORS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    ("missing MaxSkew", _tsc(_c(maxSkew=0)), [(f"{TS0}.maxSkew", INVALID)]),
    ("negative MaxSkew", _tsc(_c(maxSkew=-1)), [(f"{TS0}.maxSkew", INVALID)]),
    ("negative minDomains is invalid", _tsc(_c(minDomains=-1)), [(f"{TS0}.minDomains", INVALID)]),
    ("cannot use non-nil MinDomains with ScheduleAnyway",
     _tsc(_c(whenUnsatisfiable="ScheduleAnyway", minDomains=10)), [(f"{TS0}.minDomains", INVALID)]),
    ("use negative MinDomains with ScheduleAnyway(invalid)",
     _tsc(_c(whenUnsatisfiable="ScheduleAnyway", minDomains=-1)),
     [(f"{TS0}.minDomains", INVALID), (f"{TS0}.minDomains", INVALID)]),
    ("missing TopologyKey", _tsc(_c(topologyKey="")), [(f"{TS0}.topologyKey", REQUIRED)]),
    ("missing scheduling mode", _tsc(_c(whenUnsatisfiable="")),
     [(f"{TS0}.whenUnsatisfiable", NOT_SUPPORTED)]),
    ("unsupported scheduling mode", _tsc(_c(whenUnsatisfiable="N/A")),
     [(f"{TS0}.whenUnsatisfiable", NOT_SUPPORTED)]),
    ("multiple constraints missing TopologyKey on partial ones",
     _tsc(_c(topologyKey="", whenUnsatisfiable="ScheduleAnyway"), _c(maxSkew=2)),
     [(f"{TS0}.topologyKey", REQUIRED)]),
    ("duplicate constraints", _tsc(_c(), _c(maxSkew=2)),
     [(f"{TS0}.{{topologyKey, whenUnsatisfiable}}", DUPLICATE)]),
    ("unsupported policy name set on NodeAffinityPolicy",
     _tsc(_c(nodeAffinityPolicy="Unknown", nodeTaintsPolicy="Ignore")),
     [(f"{TS0}.nodeAffinityPolicy", NOT_SUPPORTED)]),
    ("unsupported policy name set on NodeTaintsPolicy",
     _tsc(_c(nodeAffinityPolicy="Honor", nodeTaintsPolicy="Unknown")),
     [(f"{TS0}.nodeTaintsPolicy", NOT_SUPPORTED)]),
    ("key in MatchLabelKeys isn't correctly defined", _tsc(_c(labelSelector={}, matchLabelKeys=["/simple"])),
     [(f"{TS0}.matchLabelKeys[0]", INVALID)]),
    ("key in MatchLabelKeys is forbidden to be specified when labelSelector is not set",
     _tsc(_c(matchLabelKeys=["foo"])), [(f"{TS0}.matchLabelKeys", "FieldValueForbidden")]),
    ("invalid matchLabels set on labelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is "
     "false",
     _tsc(_c(labelSelector={"matchLabels": {"NoUppercaseOrSpecialCharsLike=Equals": "foo"}})),
     [(f"{TS0}.labelSelector.matchLabels", INVALID)]),
    ("ValidateNodeFieldSelectorRequirement: metadata.name value is no node name",
     _match_fields("Bad_Name!"),
     [(f"{MF0}.values[0]", INVALID)]),
]


@pytest.mark.parametrize(("spec", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_invalid_constraints_are_rejected(spec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    assert fields(pod(spec)) == expected


def test_node_field_selector_accepts_a_node_name() -> None:
    created(pod(_match_fields("node-1.example.com")))


def test_repeated_constraint_is_reported_on_each_earlier_one() -> None:
    """ValidateSpreadConstraintNotRepeat compares each constraint with the ones after it: of three
    equal constraints, the first two are reported."""
    got = fields(pod(_tsc(_c(), _c(), _c())))
    assert got == [(f"spec.topologySpreadConstraints[{i}].{{topologyKey, whenUnsatisfiable}}", DUPLICATE)
                   for i in (0, 1)]


def test_min_domains_message_is_upstreams_is_not_positive() -> None:
    """``isNotPositiveErrorMsg`` is the message of both maxSkew and minDomains."""
    assert causes(pod(_tsc(_c(minDomains=0)))) == [
        (f"{TS0}.minDomains", INVALID, "Invalid value: 0: must be greater than zero")]
