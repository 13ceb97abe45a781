"""Upstream's LimitRange validation table, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/core/validation/validation_test.go``
``TestValidateLimitRange`` (the stored copy; ``ValidateLimitRange`` is unchanged in 1.37 apart from
the ephemeral-storage gate, locked on). Each success case is created and updated unchanged; each
error case is refused with a 422 whose every cause's detail contains upstream's expected text, as
upstream's loop checks. The metadata rows (zero-length name/namespace, invalid name/namespace) are
the server's generic checks, covered elsewhere; one is kept here.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.core_v1 import LimitRange
from tests.api.upstream_batch import rejected, server


def res(cpu: str = "", memory: str = "") -> dict[str, str]:
    """upstream ``getResourceList``."""
    return {**({"cpu": cpu} if cpu else {}), **({"memory": memory} if memory else {})}


def storage(value: str) -> dict[str, str]:
    """upstream ``getStorageResourceList``."""
    return {"storage": value} if value else {}


def limit_range(limits: list[dict[str, Any]], name: str = "abc") -> LimitRange:
    return LimitRange.model_validate({"metadata": {"name": name, "namespace": "default"},
                                      "spec": {"limits": limits}})


SUCCESS: dict[str, list[dict[str, Any]]] = {
    "all-fields-valid": [
        {"type": "Pod", "max": res("100m", "10000Mi"), "min": res("5m", "100Mi"),
         "maxLimitRequestRatio": res("10")},
        {"type": "Container", "max": res("100m", "10000Mi"), "min": res("5m", "100Mi"),
         "default": res("50m", "500Mi"), "defaultRequest": res("10m", "200Mi"),
         "maxLimitRequestRatio": res("10")},
        {"type": "PersistentVolumeClaim", "max": storage("10Gi"), "min": storage("5Gi")},
    ],
    "pvc-min-only": [{"type": "PersistentVolumeClaim", "min": storage("5Gi")}],
    "pvc-max-only": [{"type": "PersistentVolumeClaim", "max": storage("10Gi")}],
    "all-fields-valid-big-numbers": [
        {"type": "Container", "max": res("100m", "10000T"), "min": res("5m", "100Mi"),
         "default": res("50m", "500Mi"), "defaultRequest": res("10m", "200Mi"),
         "maxLimitRequestRatio": res("10")}],
    "thirdparty-fields-all-valid-standard-container-resources": [
        {"type": "thirdparty.com/foo", "max": res("100m", "10000T"), "min": res("5m", "100Mi"),
         "default": res("50m", "500Mi"), "defaultRequest": res("10m", "200Mi"),
         "maxLimitRequestRatio": res("10")}],
    "thirdparty-fields-all-valid-storage-resources": [
        {"type": "thirdparty.com/foo", "max": storage("10000T"), "min": storage("100Mi"),
         "default": storage("500Mi"), "defaultRequest": storage("200Mi")}],
}


@pytest.mark.parametrize("limits", SUCCESS.values(), ids=SUCCESS.keys())
def test_success_cases_are_created_and_updated(limits: list[dict[str, Any]]) -> None:
    srv = server()
    srv.update(srv.create(limit_range(limits)))


NOT_FOR_POD = "may not be specified when `type` is 'Pod'"
ERRORS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "duplicate-limit-type": ([{"type": "Pod", "max": res("100m", "10000m"), "min": res("0m", "100m")},
                              {"type": "Pod", "min": res("0m", "100m")}], ""),
    "default-limit-type-pod": ([{"type": "Pod", "max": res("100m", "10000m"), "min": res("0m", "100m"),
                                 "default": res("10m", "100m")}], NOT_FOR_POD),
    "default-request-limit-type-pod": ([{"type": "Pod", "max": res("100m", "10000m"),
                                         "min": res("0m", "100m"), "defaultRequest": res("10m", "100m")}],
                                       NOT_FOR_POD),
    "min value 100m is greater than max value 10m": ([{"type": "Pod", "max": res("10m"), "min": res("100m")}],
                                                     "min value 100m is greater than max value 10m"),
    "invalid spec default outside range": ([{"type": "Container", "max": res("1"), "min": res("100m"),
                                             "default": res("2000m")}],
                                           "default value 2 is greater than max value 1"),
    "invalid spec default request outside range": ([{"type": "Container", "max": res("1"),
                                                      "min": res("100m"), "defaultRequest": res("2000m")}],
                                                   "default request value 2 is greater than max value 1"),
    "invalid spec default request more than default": (
        [{"type": "Container", "max": res("2"), "min": res("100m"), "default": res("500m"),
          "defaultRequest": res("800m")}],
        "default request value 800m is greater than default limit value 500m"),
    "invalid spec maxLimitRequestRatio less than 1": ([{"type": "Pod", "maxLimitRequestRatio": res("800m")}],
                                                      "ratio 800m is less than 1"),
    "invalid spec maxLimitRequestRatio greater than max/min": (
        [{"type": "Container", "max": res("", "2Gi"), "min": res("", "512Mi"),
          "maxLimitRequestRatio": res("", "10")}],
        "ratio 10 is greater than max/min = 4.000000"),
    "invalid non standard limit type": ([{"type": "foo", "max": storage("10000T"), "min": storage("100Mi"),
                                          "default": storage("500Mi"), "defaultRequest": storage("200Mi")}],
                                        "must be a standard limit type or fully qualified"),
    "min and max values missing, one required": (
        [{"type": "PersistentVolumeClaim"}],
        "either minimum or maximum storage value is required, but neither was provided"),
    "invalid min greater than max": ([{"type": "PersistentVolumeClaim", "min": storage("10Gi"),
                                       "max": storage("1Gi")}],
                                     "min value 10Gi is greater than max value 1Gi"),
}


# Upstream's table calls ValidateLimitRange on the object as written; through an API server the
# Container item is defaulted first (SetDefaults_LimitRangeItem: defaultRequest from default), which
# adds one more cause to these two rows (a real kube-apiserver answers the same).
DEFAULTED = {"invalid spec default outside range": "default request value 2 is greater than max value 1",
             "invalid spec default request outside range": "default request value 2 is greater than default "
                                                           "limit value 1"}


@pytest.mark.parametrize(("case", "limits", "detail"), [(k, *v) for k, v in ERRORS.items()],
                         ids=ERRORS.keys())
def test_error_cases_are_refused(case: str, limits: list[dict[str, Any]], detail: str) -> None:
    causes = rejected(server().create, limit_range(limits))
    assert causes
    extra = DEFAULTED.get(case)
    assert all(detail in message or (extra and extra in message) for _, _, message in causes), causes
    assert any(detail in message for _, _, message in causes), causes


def test_duplicate_type_is_reported_at_its_field() -> None:
    causes = rejected(server().create, limit_range(ERRORS["duplicate-limit-type"][0]))
    assert [(c[0], c[1]) for c in causes] == [("spec.limits[1].type", "FieldValueDuplicate")], causes


def test_invalid_name_is_refused() -> None:
    causes = rejected(server().create, limit_range([], name="^Invalid"))
    assert [c[0] for c in causes] == ["metadata.name"], causes
