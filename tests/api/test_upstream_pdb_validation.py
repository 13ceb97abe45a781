"""Translated cases of upstream ``pkg/apis/policy/validation/validation_test.go`` (kubernetes/kubernetes,
the stored version with ``PodDisruptionBudgetValidationOptions``) and of the PDB strategy
(``pkg/registry/policy/poddisruptionbudget/strategy.go`` / ``strategy_test.go``: status reset on create,
generation on spec change, spec kept on status writes). Each PDB goes through an :class:`APIServer` as a
user's object goes; a rejection is read back as the 422's causes.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from kbatch.api.errors import Invalid
from kbatch.api.frozen import edit
from kbatch.api.policy_v1 import PodDisruptionBudget, PodDisruptionBudgetStatus
from kbatch.apiserver import APIServer
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(0))


def _pdb(spec: dict[str, Any], name: str = "foo") -> PodDisruptionBudget:
    return PodDisruptionBudget.model_validate({"metadata": {"name": name, "namespace": "default"},
                                               "spec": spec})


def _causes(server: APIServer, spec: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(Invalid) as err:
        server.create(_pdb(spec))
    assert err.value.status.code == 422
    return [(c["field"], c["reason"]) for c in err.value.status.to_dict()["details"]["causes"]]


# -- TestValidatePodDisruptionBudgetSpec / ...MinAvailableAndMaxUnavailable ------------------------

@pytest.mark.parametrize(("case", "min_available", "max_unavailable"), [
    ("TestValidatePodDisruptionBudgetSpec", "0%", "10%"),
    ("TestValidateMinAvailablePodAndMaxUnavailableDisruptionBudgetSpec", "10%", 1),
])
def test_min_available_and_max_unavailable_are_exclusive(case: str, min_available: Any,
                                                         max_unavailable: Any) -> None:
    fields = _causes(_server(), {"minAvailable": min_available, "maxUnavailable": max_unavailable})
    assert fields == [("spec", "FieldValueInvalid")]


# -- TestValidateMinAvailablePodDisruptionBudgetSpec -----------------------------------------------

@pytest.mark.parametrize("value", ["0%", "1%", "100%", 0, 1, 100])
@pytest.mark.parametrize("field", ["minAvailable", "maxUnavailable"])
def test_int_or_percent_success_cases(field: str, value: Any) -> None:
    created = _server().create(_pdb({field: value}))
    assert getattr(created.spec, "min_available" if field == "minAvailable" else "max_unavailable") == value


@pytest.mark.parametrize("value", ["1.1%", "nope", "-1%", "101%", -1])
@pytest.mark.parametrize("field", ["minAvailable", "maxUnavailable"])
def test_int_or_percent_failure_cases(field: str, value: Any) -> None:
    assert _causes(_server(), {field: value}) == [(f"spec.{field}", "FieldValueInvalid")]


# -- TestValidateUnhealthyPodEvictionPolicyDisruptionBudgetSpec ------------------------------------

@pytest.mark.parametrize(("case", "policy", "ok"), [
    ("valid nil UnhealthyPodEvictionPolicy", None, True),
    ("valid UnhealthyPodEvictionPolicy", "AlwaysAllow", True),
    ("valid IfHealthyBudget", "IfHealthyBudget", True),
    ("empty UnhealthyPodEvictionPolicy", "", False),
    ("invalid UnhealthyPodEvictionPolicy", "Invalid", False),
])
def test_unhealthy_pod_eviction_policy(case: str, policy: str | None, ok: bool) -> None:
    spec: dict[str, Any] = {"minAvailable": "10%"}
    if policy is not None:
        spec["unhealthyPodEvictionPolicy"] = policy
    if ok:
        assert _server().create(_pdb(spec)).spec.unhealthy_pod_eviction_policy == policy
    else:
        assert _causes(_server(), spec) == [("spec.unhealthyPodEvictionPolicy", "FieldValueNotSupported")]


# -- selector (ValidatePodDisruptionBudgetSpec → ValidateLabelSelector, AllowInvalidLabelValue false) -

@pytest.mark.parametrize(("selector", "field"), [
    ({"matchLabels": {"a": "-bad-"}}, "spec.selector.matchLabels"),
    ({"matchExpressions": [{"key": "a", "operator": "In", "values": ["-bad-"]}]},
     "spec.selector.matchExpressions[0].values[0]"),
    ({"matchExpressions": [{"key": "a", "operator": "In"}]}, "spec.selector.matchExpressions[0].values"),
    ({"matchExpressions": [{"key": "a", "operator": "Exists", "values": ["x"]}]},
     "spec.selector.matchExpressions[0].values"),
    ({"matchExpressions": [{"key": "a", "operator": "Bogus"}]},
     "spec.selector.matchExpressions[0].operator"),
])
def test_invalid_selector_is_rejected_on_create(selector: dict[str, Any], field: str) -> None:
    assert field in [f for f, _ in _causes(_server(), {"minAvailable": 1, "selector": selector})]


def test_empty_spec_is_valid() -> None:
    """policy/v1 has no defaulting: neither field set is valid (upstream validation has no such error)."""
    assert _server().create(_pdb({})).spec.min_available is None


# -- TestValidatePodDisruptionBudgetStatus (policy/v1 column) --------------------------------------

def _created(server: APIServer) -> PodDisruptionBudget:
    return server.create(_pdb({"minAvailable": 1}))


def _write_status(server: APIServer, status: dict[str, Any]) -> PodDisruptionBudget:
    pdb = edit(_created(server))
    pdb.status = PodDisruptionBudgetStatus.model_validate(status)
    return server.update_status(pdb)


VALID_CONDITION = {"type": "DisruptionAllowed", "status": "True",
                   "lastTransitionTime": "2025-12-31T23:55:00Z", "reason": "SufficientPods",
                   "message": "message", "observedGeneration": 3}


@pytest.mark.parametrize(("case", "status"), [
    ("DisruptionsAllowed: 10", {"disruptionsAllowed": 10}),
    ("CurrentHealthy: 5", {"currentHealthy": 5}),
    ("DesiredHealthy: 3", {"desiredHealthy": 3}),
    ("ExpectedPods: 2", {"expectedPods": 2}),
    ("Conditions valid", {"conditions": [VALID_CONDITION]}),
])
def test_status_success_cases(case: str, status: dict[str, Any]) -> None:
    written = _write_status(_server(), status).status.to_dict()
    assert {k: written[k] for k in status} == status


@pytest.mark.parametrize(("case", "status", "field"), [
    ("DisruptionsAllowed: -10", {"disruptionsAllowed": -10}, "status.disruptionsAllowed"),
    ("CurrentHealthy: -5", {"currentHealthy": -5}, "status.currentHealthy"),
    ("DesiredHealthy: -3", {"desiredHealthy": -3}, "status.desiredHealthy"),
    ("ExpectedPods: -2", {"expectedPods": -2}, "status.expectedPods"),
])
def test_status_failure_cases(case: str, status: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as err:
        _write_status(_server(), status)
    assert [c["field"] for c in err.value.status.to_dict()["details"]["causes"]] == [field]


def test_status_conditions_not_valid() -> None:
    """Conditions not valid: the same type twice, without reason or lastTransitionTime."""
    with pytest.raises(Invalid) as err:
        _write_status(_server(), {"conditions": [{"type": "DisruptionAllowed", "status": "True"},
                                                 {"type": "DisruptionAllowed", "status": "False"}]})
    causes = {(c["field"], c["reason"]) for c in err.value.status.to_dict()["details"]["causes"]}
    assert ("status.conditions[1].type", "FieldValueDuplicate") in causes
    assert ("status.conditions[0].reason", "FieldValueRequired") in causes
    assert ("status.conditions[0].lastTransitionTime", "FieldValueRequired") in causes


# -- the strategy (strategy.go) --------------------------------------------------------------------

def test_create_resets_status_and_sets_generation_1() -> None:
    """PrepareForCreate: the status a user sends is dropped; generation starts at 1."""
    pdb = _pdb({"minAvailable": 1})
    pdb = edit(pdb)
    pdb.status = PodDisruptionBudgetStatus.model_validate({"disruptionsAllowed": 5, "currentHealthy": 5})
    created = _server().create(pdb)
    assert created.metadata.generation == 1
    assert (created.status or PodDisruptionBudgetStatus()).disruptions_allowed == 0


def test_update_keeps_status_and_bumps_generation_only_on_spec_change() -> None:
    """PrepareForUpdate: status comes from the old object; generation moves only when the spec does."""
    server = _server()
    stored = _write_status(server, {"disruptionsAllowed": 2})
    relabelled = edit(stored)
    relabelled.metadata.labels = {"x": "y"}
    relabelled.status = PodDisruptionBudgetStatus.model_validate({"disruptionsAllowed": 9})
    after = server.update(relabelled)
    assert (after.metadata.generation, after.status.disruptions_allowed) == (1, 2)
    respec = edit(after)
    respec.spec.min_available = 2
    after = server.update(respec)
    assert (after.metadata.generation, after.spec.min_available) == (2, 2)


def test_status_update_keeps_spec() -> None:
    """PrepareForUpdate of the status strategy: the spec comes from the old object."""
    server = _server()
    pdb = edit(_created(server))
    pdb.spec.min_available = 7
    pdb.status = PodDisruptionBudgetStatus.model_validate({"currentHealthy": 1})
    written = server.update_status(pdb)
    assert (written.spec.min_available, written.status.current_healthy, written.metadata.generation) == \
        (1, 1, 1)


def test_update_validates_the_new_spec() -> None:
    """ValidateUpdate runs ValidatePodDisruptionBudget on the new object."""
    server = _server()
    pdb = edit(_created(server))
    pdb.spec.max_unavailable = 1
    with pytest.raises(Invalid) as err:
        server.update(pdb)
    assert [c["field"] for c in err.value.status.to_dict()["details"]["causes"]] == ["spec"]


@pytest.mark.parametrize("status", [False, True])
def test_an_update_must_name_a_resource_version(status: bool) -> None:
    """strategy.go ``AllowUnconditionalUpdate`` is false for PodDisruptionBudgets (main resource and
    status): the generic store's Update answers an update without ``metadata.resourceVersion`` with
    422 ``metadata.resourceVersion: Invalid value: 0: must be specified for an update``
    (k8s.io/apiserver ``pkg/registry/generic/registry/store.go``)."""
    server = _server()
    pdb = edit(_created(server))
    pdb.metadata.resource_version = None
    pdb.spec.min_available = 2
    with pytest.raises(Invalid) as err:
        (server.update_status if status else server.update)(pdb)
    assert err.value.message == ('poddisruptionbudgets.policy "foo" is invalid: metadata.resourceVersion: '
                                 "Invalid value: 0: must be specified for an update")
    assert server.get(PodDisruptionBudget, "foo", "default").spec.min_available == 1
