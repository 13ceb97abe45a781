"""Upstream's Configuration tables for ``waitForPodsReady``: defaulting (both versions) and validation.

Sources (kubernetes-sigs/kueue v0.19.2; case names quoted per test):
``apis/config/v1beta2/defaults_test.go`` and ``apis/config/v1beta1/defaults_test.go``
``TestSetDefaults_Configuration`` (the waitForPodsReady rows) against ``defaults.go`` and
``v1beta1/configuration_conversion.go``; ``pkg/config/validation_test.go`` ``TestValidate`` (the
waitForPodsReady rows) against ``validation.go`` ``validateWaitForPodsReady``. Upstream defaults
and validates Go values; here each row is a Configuration document given to kbatch's loader (what
``--kueue-config`` and ``ControlPlane(kueue_config=...)`` read), which defaults, converts and
validates it as Kueue's manager loads its file (``pkg/config/config.go`` ``Load``: decoding applies
the file version's defaults).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import StatusError
from kbatch.api.kueue_config import load

V1BETA2 = "config.kueue.x-k8s.io/v1beta2"
V1BETA1 = "config.kueue.x-k8s.io/v1beta1"


def _load(wait: dict[str, Any] | None, version: str = V1BETA2) -> Any:
    doc: dict[str, Any] = {"apiVersion": version, "kind": "Configuration"}
    if wait is not None:
        doc["waitForPodsReady"] = wait
    return load(doc).wait_for_pods_ready


def _fields(wait: Any) -> tuple[Any, ...]:
    return (wait.timeout, wait.recovery_timeout, wait.block_admission, wait.requeuing_timestamp,
            wait.backoff_limit_count, wait.backoff_base_seconds, wait.backoff_max_seconds)


# --- v1beta2 defaults.go ---------------------------------------------------------------------------

@pytest.mark.parametrize("wait", [None, {}])
def test_v1beta2_defaulting_wait_for_pods_ready_values(wait: dict[str, Any] | None) -> None:
    """"defaulting waitForPodsReady values" (and "defaulting namespace" etc., whose Configuration
    has none: v1beta2 always has one)."""
    assert _fields(_load(wait)) == (1800.0, 1800.0, False, "Eviction", None, 60, 3600)


def test_v1beta2_an_explicit_zero_timeout_is_defaulted() -> None:
    """``SetDefaults_Configuration`` defaults a zero ``timeout`` (a plain Duration, so "0s" and
    absent are the same value) to 30 minutes; upstream's ``validation_test.go`` "invalid an empty
    waitForPodsReady.timeout" validates an undefaulted value, which a loaded file never is."""
    assert _fields(_load({"timeout": "0s"}))[:2] == (1800.0, 1800.0)


def test_v1beta2_defaulting_wait_for_pods_ready_recovery_timeout_to_timeout() -> None:
    """"defaulting waitForPodsReady recoveryTimeout to timeout"."""
    assert _fields(_load({"timeout": "5m"}))[:3] == (300.0, 300.0, False)


def test_v1beta2_respecting_provided_wait_for_pods_ready_values() -> None:
    """"respecting provided waitForPodsReady values"."""
    got = _load({"timeout": "1m", "recoveryTimeout": "1m", "requeuingStrategy": {
        "timestamp": "Creation", "backoffBaseSeconds": 63, "backoffMaxSeconds": 1800}})
    assert _fields(got) == (60.0, 60.0, False, "Creation", None, 63, 1800)


def test_v1beta2_disabling_wait_for_pods_ready_recovery_timeout_with_zero_value() -> None:
    """"disabling waitForPodsReady recoveryTimeout with zero value"."""
    got = _load({"timeout": "5m", "recoveryTimeout": "0s"})
    assert (got.timeout, got.recovery_timeout) == (300.0, None)


# --- v1beta1 defaults.go and conversion ----------------------------------------------------------

def test_v1beta1_defaulting_wait_for_pods_ready_values() -> None:
    """"defaulting waitForPodsReady values": ``enable: true`` alone gets v1beta1's 5-minute timeout
    (``defaultPodsReadyTimeout``), the recovery timeout equal to it and ``blockAdmission`` true."""
    got = _load({"enable": True}, V1BETA1)
    assert _fields(got) == (300.0, 300.0, True, "Eviction", None, 60, 3600)


def test_v1beta1_wait_for_pods_ready_is_off_when_enable_is_false() -> None:
    """"set waitForPodsReady.blockAdmission to false, and waitForPodsReady.recoveryTimeout to nil
    when enable is false": the v1beta2 Configuration it converts to has none (off)."""
    assert _load({"enable": False}, V1BETA1) is None
    assert _load(None, V1BETA1) is None


def test_v1beta1_respecting_provided_wait_for_pods_ready_values() -> None:
    """"respecting provided waitForPodsReady values"."""
    got = _load({"enable": True, "timeout": "1m", "recoveryTimeout": "1m", "requeuingStrategy": {
        "backoffBaseSeconds": 63, "backoffMaxSeconds": 1800}}, V1BETA1)
    assert _fields(got) == (60.0, 60.0, True, "Eviction", None, 63, 1800)


# --- validation.go ----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("case", "wait", "error"),
    [
        ("no supported waitForPodsReady.requeuingStrategy.timestamp",
         {"timeout": "5m", "requeuingStrategy": {"timestamp": "NoSupported"}},
         'waitForPodsReady.requeuingStrategy.timestamp: Unsupported value: "NoSupported"'),
        ("negative waitForPodsReady.timeout", {"timeout": "-1s"},
         "waitForPodsReady.timeout: Invalid value"),
        ("negative waitForPodsReady.recoveryTimeout", {"timeout": "5m", "recoveryTimeout": "-1s"},
         "waitForPodsReady.recoveryTimeout: Invalid value"),
        ("negative waitForPodsReady.requeuingStrategy.backoffLimitCount",
         {"timeout": "5m", "requeuingStrategy": {"backoffLimitCount": -1}},
         "waitForPodsReady.requeuingStrategy.backoffLimitCount: Invalid value: -1"),
        ("negative waitForPodsReady.requeuingStrategy.backoffBaseSeconds",
         {"timeout": "5m", "requeuingStrategy": {"backoffBaseSeconds": -1}},
         "waitForPodsReady.requeuingStrategy.backoffBaseSeconds: Invalid value: -1"),
        ("negative waitForPodsReady.requeuingStrategy.backoffMaxSeconds",
         {"timeout": "5m", "requeuingStrategy": {"backoffMaxSeconds": -1}},
         "waitForPodsReady.requeuingStrategy.backoffMaxSeconds: Invalid value: -1"),
    ],
)
def test_validation_refuses(case: str, wait: dict[str, Any], error: str) -> None:
    with pytest.raises(StatusError) as err:
        _load(wait)
    assert error in str(err.value), case


def test_valid_wait_for_pods_ready() -> None:
    """"valid waitForPodsReady" (upstream's 50 ns and 3 ns durations as 50 s and 3 s)."""
    strategy = {"timestamp": "Creation", "backoffLimitCount": 10, "backoffBaseSeconds": 30,
                "backoffMaxSeconds": 1800}
    got = _load({"timeout": "50s", "recoveryTimeout": "3s", "blockAdmission": False,
                 "requeuingStrategy": strategy})
    assert _fields(got) == (50.0, 3.0, False, "Creation", 10, 30, 1800)


def test_v1beta1_an_explicit_zero_timeout_is_refused() -> None:
    """v1beta1's timeout is a pointer: ``cmp.Or`` keeps an explicit "0s", the conversion keeps it,
    and ``validateWaitForPodsReady`` refuses the zero ("must be specified")."""
    with pytest.raises(StatusError) as err:
        _load({"enable": True, "timeout": "0s"}, V1BETA1)
    assert "waitForPodsReady.timeout: Required value: must be specified" in str(err.value)
