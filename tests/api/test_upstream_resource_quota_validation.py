"""Upstream's ResourceQuota validation table, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go``
``TestValidateResourceQuota`` (the stored copy is an older one, without the scope-selector rows;
the rules are the same in 1.37's ``validation.go``). Each success case is created; each error case
is refused with a 422 whose every cause's detail contains upstream's expected text, as upstream's
loop checks. The scope-selector rows below are kbatch's, from 1.37 ``validation.go``
``validateScopedResourceSelectorRequirement`` (each cites the message it checks).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import ResourceQuota
from tests.api.upstream_batch import rejected, server

SPEC = {"cpu": "100", "memory": "10000", "requests.cpu": "100", "requests.memory": "10000",
        "limits.cpu": "100", "limits.memory": "10000", "pods": "10", "services": "0",
        "replicationcontrollers": "10", "resourcequotas": "10", "configmaps": "10", "secrets": "10"}


def quota(spec: dict[str, Any], name: str = "abc", namespace: str = "default") -> ResourceQuota:
    return ResourceQuota.model_validate({"metadata": {"name": name, "namespace": namespace}, "spec": spec})


SUCCESS = {
    "spec": {"hard": SPEC},
    "fractionalComputeSpec": {"hard": {"cpu": "100m"}},
    "terminatingSpec": {"hard": {"cpu": "100", "limits.cpu": "200"}, "scopes": ["Terminating"]},
    "nonTerminatingSpec": {"hard": {"cpu": "100"}, "scopes": ["NotTerminating"]},
    "bestEffortSpec": {"hard": {"pods": "100"}, "scopes": ["BestEffort"]},
    "nonBestEffortSpec": {"hard": {"cpu": "100"}, "scopes": ["NotBestEffort"]},
    # kbatch rows: a PriorityClass scope selector and an object count
    "scopeSelector PriorityClass In": {"hard": {"pods": "10"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}},
    "count/jobs.batch": {"hard": {"count/jobs.batch": "3"}},
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_success_cases_are_created(spec: dict[str, Any]) -> None:
    srv = server()
    created = srv.create(quota(spec))
    srv.update(created)


ERRORS: dict[str, tuple[dict[str, Any], str]] = {
    "negative-limits": ({"hard": {"cpu": "-100", "memory": "-10000", "pods": "-10", "services": "-10",
                                  "replicationcontrollers": "-10", "resourcequotas": "-10",
                                  "configmaps": "-10", "secrets": "-10"}},
                        "must be greater than or equal to 0"),
    "fractional-api-resource": ({"hard": {"pods": ".1", "services": ".5", "replicationcontrollers": "1.25",
                                          "resourcequotas": "2.5"}}, "must be an integer"),
    "invalid-quota-resource": ({"hard": {"storage": "10"}}, "must be a standard resource for quota"),
    "invalid-quota-terminating-pair": ({"hard": {"cpu": "100"}, "scopes": ["Terminating", "NotTerminating"]},
                                       "conflicting scopes"),
    "invalid-quota-besteffort-pair": ({"hard": {"pods": "100"}, "scopes": ["BestEffort", "NotBestEffort"]},
                                      "conflicting scopes"),
    "invalid-quota-scope-name": ({"hard": {"cpu": "100"}, "scopes": ["foo"]}, "unsupported scope"),
    # kbatch rows (1.37 validation.go)
    "besteffort scope on cpu": ({"hard": {"cpu": "1"}, "scopes": ["BestEffort"]},
                                "unsupported scope applied to resource"),
    "fractional count/jobs.batch": ({"hard": {"count/jobs.batch": "1.5"}}, "must be an integer"),
    "selector In without values": ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In"}]}}, "must be at least one value"),
    "selector Exists with values": ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "Exists", "values": ["x"]}]}}, "must be no value"),
    "selector bad operator": ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "Foo"}]}}, "not a valid selector operator"),
    "selector Terminating In": ({"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "Terminating", "operator": "In", "values": ["x"]}]}}, ""),
}


@pytest.mark.parametrize(("spec", "detail"), ERRORS.values(), ids=ERRORS.keys())
def test_error_cases_are_refused(spec: dict[str, Any], detail: str) -> None:
    causes = rejected(server().create, quota(spec))
    assert causes
    assert all(detail in message for _, _, message in causes), causes


def test_invalid_name_is_refused() -> None:
    causes = rejected(server().create, quota({"hard": SPEC}, name="^Invalid"))
    assert [c[0] for c in causes] == ["metadata.name"], causes


def test_scopes_are_immutable() -> None:
    """1.37 ``ValidateResourceQuotaUpdate``: a change of ``spec.scopes`` is ``field is immutable``."""
    srv = server()
    created = srv.create(quota({"hard": {"pods": "1"}, "scopes": ["BestEffort"]}))
    changed = ResourceQuota.model_validate({**created.model_dump(by_alias=True, exclude_none=True),
                                            "spec": {"hard": {"pods": "1"}, "scopes": ["NotBestEffort"]}})
    causes = rejected(srv.update, changed)
    got = [(c[0], c[2].rsplit(": ", 1)[-1]) for c in causes]
    assert got == [("spec.scopes", "field is immutable")], causes
