"""The CSIDriver strategy against upstream's tables (kubernetes ``pkg/registry/storage/csidriver/
strategy_test.go``, 1.35+: ``TestCSIDriverPrepareForUpdate``, ``TestCSIDriverPrepareForCreate``,
``TestWarningsOnCreate``, ``TestWarningsOnUpdate``, the ``ServiceAccountTokenInSecrets`` rows of
``TestCSIDriverValidation``), translated: the gates are the family's, each row turning some off."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.features import FeatureGates
from kbatch.api.storage_v1 import CSIDriver
from kbatch.api.strategies.storage import CSIDriverStrategy
from kbatch.api.strategies.storage.csi_driver import TOKEN_IN_SECRETS_RECOMMENDED
from kbatch.families.storage import STORAGE

GCP = [{"audience": "gcp"}]
NO_TS = {"CSIServiceAccountTokenSecrets": False}


def _strategy(**off: bool) -> CSIDriverStrategy:
    gates = FeatureGates(STORAGE.feature_gates, {name: False for name in off})
    return CSIDriverStrategy().for_gates(gates)  # type: ignore[no-any-return]


def _driver(generation: int | None = None, **spec: Any) -> CSIDriver:
    meta: dict[str, Any] = {"name": "foo"}
    if generation is not None:
        meta["generation"] = generation
    return CSIDriver.model_validate({"metadata": meta, "spec": spec})


@pytest.mark.parametrize(("old", "new", "off", "want_generation", "want"), [
    ({}, {"podInfoOnMount": True}, {}, 1, {}),
    ({"podInfoOnMount": True}, {"podInfoOnMount": False}, {}, 1, {}),
    ({}, {"fsGroupPolicy": "None"}, {}, 1, {}),
    ({"fsGroupPolicy": "File"}, {"fsGroupPolicy": "ReadWriteOnceWithFSType"}, {}, 1, {}),
    ({}, {"storageCapacity": True}, {}, 1, {"storage_capacity": True}),
    ({}, {"tokenRequests": GCP, "requiresRepublish": True}, {}, 1, {"requires_republish": True}),
    ({}, {"seLinuxMount": True}, {}, 1, {"se_linux_mount": True}),
    ({"seLinuxMount": True}, {"seLinuxMount": False}, {}, 1, {"se_linux_mount": False}),
    ({}, {"nodeAllocatableUpdatePeriodSeconds": 30}, {}, 1, {"node_allocatable_update_period_seconds": 30}),
    ({"nodeAllocatableUpdatePeriodSeconds": 30}, {"nodeAllocatableUpdatePeriodSeconds": 60}, {}, 1,
     {"node_allocatable_update_period_seconds": 60}),
    ({}, {"nodeAllocatableUpdatePeriodSeconds": 30}, {"MutableCSINodeAllocatableCount": False}, None,
     {"node_allocatable_update_period_seconds": None}),
    ({}, {"tokenRequests": GCP, "serviceAccountTokenInSecrets": True}, {}, 1,
     {"service_account_token_in_secrets": True}),
    ({}, {"tokenRequests": GCP, "serviceAccountTokenInSecrets": True}, NO_TS,
     1, {"service_account_token_in_secrets": None}),
    ({"tokenRequests": GCP, "serviceAccountTokenInSecrets": True},
     {"tokenRequests": GCP, "serviceAccountTokenInSecrets": True}, NO_TS,
     None, {"service_account_token_in_secrets": True}),
    ({}, {"preventPodSchedulingIfMissing": True}, {"VolumeLimitScaling": False}, None,
     {"prevent_pod_scheduling_if_missing": None}),
])
def test_prepare_for_update(old: dict[str, Any], new: dict[str, Any], off: dict[str, bool],
                            want_generation: int | None, want: dict[str, Any]) -> None:
    """Generation: any spec change counts one more from the stored one (none stored: from 0); a gated
    field is dropped while its gate is off unless the stored driver already has it."""
    strategy = _strategy(**off)
    before, after = _driver(**old), _driver(**new)
    strategy.prepare_for_update(after, before)
    changed = strategy.spec_changed(after, before)
    assert ((before.metadata.generation or 0) + 1 if changed else None) == want_generation
    for attr, value in want.items():
        assert getattr(after.spec, attr) == value


@pytest.mark.parametrize(("off", "kept"), [({}, True), (NO_TS, None)])
def test_prepare_for_create(off: dict[str, bool], kept: bool | None) -> None:
    driver = _driver(tokenRequests=GCP, serviceAccountTokenInSecrets=True)
    _strategy(**off).prepare_for_create(driver)
    assert driver.spec.service_account_token_in_secrets is kept


@pytest.mark.parametrize(("spec", "off", "warned"), [
    ({"tokenRequests": [{"audience": "aud"}], "serviceAccountTokenInSecrets": True}, {}, False),
    ({"tokenRequests": [{"audience": "aud"}], "serviceAccountTokenInSecrets": False}, {}, False),
    ({"tokenRequests": [{"audience": "aud"}]}, {}, True),
    ({}, {}, False),
    ({"tokenRequests": [{"audience": "aud"}]}, NO_TS, False),
])
def test_warnings_on_create(spec: dict[str, Any], off: dict[str, bool], warned: bool) -> None:
    got = _strategy(**off).warnings_on_create(_driver(**spec))
    assert got == ([TOKEN_IN_SECRETS_RECOMMENDED] if warned else [])


AUD = [{"audience": "aud"}]


@pytest.mark.parametrize(("old", "new", "off", "warned"), [
    ({"tokenRequests": AUD, "serviceAccountTokenInSecrets": True},
     {"tokenRequests": AUD, "serviceAccountTokenInSecrets": True}, {}, False),
    ({"tokenRequests": AUD}, {"tokenRequests": AUD}, {}, False),
    ({}, {"tokenRequests": AUD}, {}, True),
    ({}, {"tokenRequests": AUD, "serviceAccountTokenInSecrets": False}, {}, False),
    ({"tokenRequests": [{"audience": "old-aud"}]}, {"tokenRequests": [{"audience": "new-aud"}]}, {}, True),
    ({"tokenRequests": AUD}, {}, {}, False),
    ({"tokenRequests": AUD, "podInfoOnMount": False}, {"tokenRequests": AUD, "podInfoOnMount": True}, {},
     False),
    ({}, {"tokenRequests": AUD}, NO_TS, False),
])
def test_warnings_on_update(old: dict[str, Any], new: dict[str, Any], off: dict[str, bool],
                            warned: bool) -> None:
    got = _strategy(**off).warnings_on_update(_driver(**new), _driver(**old))
    assert got == ([TOKEN_IN_SECRETS_RECOMMENDED] if warned else [])


def test_token_in_secrets_needs_token_requests() -> None:
    strategy = _strategy()
    valid = _driver(tokenRequests=GCP, serviceAccountTokenInSecrets=True)
    strategy.default(valid)
    assert strategy.validate(valid) == []
    bare = _driver(serviceAccountTokenInSecrets=True)
    strategy.default(bare)
    assert [str(e) for e in strategy.validate(bare)] == [
        "spec.serviceAccountTokenInSecrets: Invalid value: true: serviceAccountTokenInSecrets is set but no "
        "tokenRequests are specified"]


def test_a_control_plane_with_the_gate_off_drops_the_field() -> None:
    """``--feature-gates MutableCSINodeAllocatableCount=false``: the registry's strategy is bound to the
    control plane's gates (kbatch.families.composition), so a create drops the field."""
    from kbatch import ControlPlane

    spec = {"nodeAllocatableUpdatePeriodSeconds": 30, "tokenRequests": GCP,
            "serviceAccountTokenInSecrets": True}
    for gates, kept in (("", 30), ("MutableCSINodeAllocatableCount=false", None)):
        cp = ControlPlane(controllers="", feature_gates=gates)
        cp.client.create(_driver(**spec))
        got = cp.client.get(CSIDriver, "foo")
        assert got.spec.node_allocatable_update_period_seconds == kept
        assert got.metadata.generation is None
        cp.close()
