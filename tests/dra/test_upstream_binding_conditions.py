"""Device binding conditions (KEP-5007, ``DRADeviceBindingConditions``), upstream's cases translated.

* Allocator rows: ``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/
  allocator_testing.go`` (kubernetes/dynamic-resource-allocation v0.37.0-alpha.2, ``TestAllocator``),
  the binding-condition cases not already in ``test_upstream_allocator_table.py`` (which has
  "binding-conditions-with-and-without" and "node-restriction" with conditions).
* Scheduler rows: the branches of ``isClaimReadyForBinding``, ``isClaimTimeout``,
  ``hasBindingConditions`` and ``PreBind`` in ``pkg/scheduler/framework/plugins/dynamicresources/
  dynamicresources.go`` (the stored version with ``pl.fts`` and a configurable ``bindingTimeout``,
  1.35+). Upstream's ``dynamicresources_test.go`` of that version was not readable here (the stored
  copies are of the v1alpha2/v1alpha3 era), so each row names the function branch it follows.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.resource_v1 import ResourceClaim
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.dra.dynamicresources.binding import (
    claim_ready,
    claim_timed_out,
    has_binding_conditions,
)
from kbatch.controllers.dra.dynamicresources.plugin import KEY, _PodState, new
from kbatch.controllers.dra.structured import Features
from kbatch.controllers.scheduler.framework import Code
from kbatch.controllers.scheduler.profiles import Handle

from .builders import allocate, exactly, make_claim, make_class, make_slice

DRIVER_A = "driver-a"
CLASSES = [make_class("class-a", f'device.driver == "{DRIVER_A}"')]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def dev(name: str, conditions: list[str] | None = None, failures: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if conditions is not None:
        body["bindingConditions"] = conditions
        body["bindingFailureConditions"] = failures
    return body


def run(claim: Any, devices: list[dict[str, Any]], **features: bool) -> Any:
    slices = [make_slice("slice-1", devices, node="node-1", pool="pool-1", driver=DRIVER_A)]
    return allocate([claim], slices, CLASSES, node="node-1", features=Features(**features))


def results(allocation: Any) -> list[tuple[str, str, Any, Any]]:
    return [(r.request, r.device, r.binding_conditions, r.binding_failure_conditions)
            for r in allocation.devices.results]


# -- allocator ------------------------------------------------------------------------------------
def test_device_binding_conditions() -> None:
    # "device-binding-conditions"
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    [got] = run(claim, [dev("device-1", ["IsPrepare"], ["BindingFailed"])])
    assert results(got) == [("req-0", "device-1", ["IsPrepare"], ["BindingFailed"])]
    [term] = got.node_selector.node_selector_terms
    assert (term.match_fields[0].key, term.match_fields[0].values) == ("metadata.name", ["node-1"])


def test_binding_conditions_multiple_devices() -> None:
    # "binding-conditions-multiple-devices"
    claim = make_claim("claim-0", exactly("req-0", "class-a", 2), exactly("req-1", "class-a"))
    devices = [
        dev("device-1", ["IsPrepare"], ["BindingFailed"]),
        dev("device-2", ["IsPrepare2"], ["BindingFailed2"]),
        dev("device-3", ["IsPrepare3"], ["BindingFailed3"]),
    ]
    [got] = run(claim, devices)
    assert results(got) == [
        ("req-0", "device-1", ["IsPrepare"], ["BindingFailed"]),
        ("req-0", "device-2", ["IsPrepare2"], ["BindingFailed2"]),
        ("req-1", "device-3", ["IsPrepare3"], ["BindingFailed3"]),
    ]


def test_binding_conditions_without_feature_gate() -> None:
    # "binding-conditions-without-feature-gate": such a device is not allocated
    claim = make_claim("claim-0", exactly("req-0", "class-a"))
    assert run(claim, [dev("device-1", ["IsPrepare"], ["BindingFailed"])], binding_conditions=False) is None


# -- scheduler: the claim's readiness ---------------------------------------------------------------
def claim_with(results_: list[dict[str, Any]], devices: list[dict[str, Any]] | None = None,
               stamp: datetime | None = T0) -> ResourceClaim:
    allocation: dict[str, Any] = {"devices": {"results": results_}}
    if stamp is not None:
        allocation["allocationTimestamp"] = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    return ResourceClaim.model_validate({
        "metadata": {"name": "my-claim", "namespace": "default", "uid": "uid-c"},
        "spec": {"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": "class-a"}}]}},
        "status": {"allocation": allocation, "devices": devices},
    })


def result(device: str = "device-1", conditions: list[str] | None = None,
           failures: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"request": "req-0", "driver": DRIVER_A, "pool": "pool-1", "device": device}
    if conditions is not None:
        body["bindingConditions"] = conditions
    if failures is not None:
        body["bindingFailureConditions"] = failures
    return body


def status(device: str = "device-1", **conditions: str) -> dict[str, Any]:
    return {
        "driver": DRIVER_A, "pool": "pool-1", "device": device,
        "conditions": [
            {"type": t, "status": s, "reason": "R", "message": "m \"q\"",
             "lastTransitionTime": "2026-01-01T00:00:00Z"}
            for t, s in conditions.items()
        ],
    }


READY_CASES = [
    # (isClaimReadyForBinding branch, results, status.devices, ready, error)
    ("no binding conditions: ready", [result()], None, True, ""),
    ("conditions, no device status: not ready", [result(conditions=["A"], failures=["F"])], None, False, ""),
    ("status of another device does not count", [result(conditions=["A"], failures=["F"])],
     [status("device-2", A="True")], False, ""),
    ("condition False: not ready", [result(conditions=["A"], failures=["F"])],
     [status(A="False")], False, ""),
    ("condition missing: not ready", [result(conditions=["A", "B"], failures=["F"])],
     [status(A="True")], False, ""),
    ("every condition True: ready", [result(conditions=["A", "B"], failures=["F"])],
     [status(A="True", B="True")], True, ""),
    ("failure True: error, even with the conditions True", [result(conditions=["A"], failures=["F"])],
     [status(A="True", F="True")], False, 'claim my-claim binding failed: reason=R, message="m \\"q\\""'),
    ("failure False: no error", [result(conditions=["A"], failures=["F"])],
     [status(A="True", F="False")], True, ""),
    ("one device of two not ready", [result(conditions=["A"], failures=["F"]),
                                     result("device-2", conditions=["A"], failures=["F"])],
     [status(A="True")], False, ""),
]


@pytest.mark.parametrize(("case", "results_", "devices", "ready", "error"), READY_CASES,
                         ids=[c[0] for c in READY_CASES])
def test_is_claim_ready_for_binding(case: str, results_: Any, devices: Any, ready: bool, error: str) -> None:
    assert claim_ready(claim_with(results_, devices)) == (ready, error), case


def test_an_unallocated_claim_is_not_ready() -> None:
    claim = claim_with([result()])
    claim.status.allocation = None
    assert claim_ready(claim) == (False, "")


WAITS = [result(conditions=["A"], failures=["F"])]
TIMEOUT_CASES = [
    # (isClaimTimeout branch, results, stamp, now, timed out)
    ("no allocationTimestamp", WAITS, None, T0 + timedelta(hours=1), False),
    ("no binding conditions", [result()], T0, T0 + timedelta(hours=1), False),
    ("within the timeout", WAITS, T0, T0 + timedelta(seconds=599), False),
    ("exactly at the timeout: not before now", WAITS, T0, T0 + timedelta(seconds=600), False),
    ("past the timeout", WAITS, T0, T0 + timedelta(seconds=601), True),
]


@pytest.mark.parametrize(("case", "results_", "stamp", "now", "expired"), TIMEOUT_CASES,
                         ids=[c[0] for c in TIMEOUT_CASES])
def test_is_claim_timeout(case: str, results_: Any, stamp: Any, now: datetime, expired: bool) -> None:
    assert claim_timed_out(claim_with(results_, stamp=stamp), 600, now) is expired, case


def test_has_binding_conditions() -> None:
    assert not has_binding_conditions([claim_with([result()])])
    assert has_binding_conditions([claim_with([result()]), claim_with(WAITS)])
    unallocated = claim_with([result(conditions=["A"])])
    unallocated.status.allocation = None
    assert not has_binding_conditions([unallocated])


# -- scheduler: PreBind's wait -----------------------------------------------------------------------
class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def now_datetime(self) -> datetime:
        return T0 + timedelta(seconds=self.t)


def _waiting(claim: ResourceClaim, timeout: float = 600.0) -> tuple[DynamicResources, _Clock, dict[str, Any]]:
    """A plugin whose PreBind already wrote ``claim`` and waits (deadline = now + timeout)."""
    clock = _Clock()
    plugin = DynamicResources(Handle(clock=clock), binding_timeout=timeout)
    plugin.world.set_claim(claim)
    data = _PodState([claim])
    data.deadline = timeout
    return plugin, clock, {KEY: data}


def test_prebind_poll_waits_then_allows() -> None:
    pending = claim_with([result(conditions=["A"], failures=["F"])])
    plugin, clock, state = _waiting(pending)
    status_ = plugin.pre_bind_poll(state, None, "node-1")
    assert status_ is not None and status_.code == Code.WAIT and status_.timeout == 5.0
    plugin.world.set_claim(claim_with([result(conditions=["A"], failures=["F"])], [status(A="True")]))
    clock.t = 5
    assert plugin.pre_bind_poll(state, None, "node-1") is None


def test_prebind_poll_fails_on_a_failure_condition() -> None:
    failed = claim_with([result(conditions=["A"], failures=["F"])], [status(F="True")])
    plugin, _, state = _waiting(failed)
    status_ = plugin.pre_bind_poll(state, None, "node-1")
    assert status_ is not None and status_.code == Code.ERROR
    assert status_.message == 'claim my-claim binding failed: reason=R, message="m \\"q\\""'


def test_prebind_poll_deadline_is_device_binding_timeout() -> None:
    plugin, clock, state = _waiting(claim_with([result(conditions=["A"], failures=["F"])], stamp=None))
    clock.t = 600
    status_ = plugin.pre_bind_poll(state, None, "node-1")
    assert status_ is not None and (status_.code, status_.message) == (Code.ERROR, "device binding timeout")


def test_prebind_poll_claim_timeout_from_its_allocation_timestamp() -> None:
    # the claim was allocated long before this attempt's poll began: isClaimTimeout fires first
    stale = claim_with([result(conditions=["A"], failures=["F"])], stamp=T0 - timedelta(seconds=700))
    plugin, _, state = _waiting(stale)
    status_ = plugin.pre_bind_poll(state, None, "node-1")
    assert status_ is not None and status_.message == "claim my-claim binding timeout"


def test_prebind_poll_claim_gone() -> None:
    plugin, _, state = _waiting(claim_with([result(conditions=["A"], failures=["F"])]))
    plugin.world.remove_claim(state[KEY].claims[0])
    status_ = plugin.pre_bind_poll(state, None, "node-1")
    assert status_ is not None and status_.code == Code.ERROR and "not found" in status_.message


# -- DynamicResourcesArgs.bindingTimeout -------------------------------------------------------------
def test_binding_timeout_argument() -> None:
    assert new({}, Handle()).binding_timeout == 600.0  # BindingTimeoutDefaultSeconds
    assert new({"bindingTimeout": "30s"}, Handle()).binding_timeout == 30.0
    assert new({"bindingTimeout": "10m"}, Handle()).binding_timeout == 600.0
    with pytest.raises(ValueError, match="bindingTimeout"):
        new({"bindingTimeout": "0s"}, Handle())


# -- property: readiness is exactly "every binding condition True, no failure condition True" -------
_STATUS = st.sampled_from(["True", "False", "Unknown", None])  # None: the condition is not reported


@settings(max_examples=200, deadline=None)
@given(conditions=st.lists(_STATUS, min_size=1, max_size=4), failures=st.lists(_STATUS, max_size=4))
def test_readiness_property(conditions: list[str | None], failures: list[str | None]) -> None:
    names = [f"c{i}" for i in range(len(conditions))]
    failure_names = [f"f{i}" for i in range(len(failures))]
    reported = {n: s for n, s in zip(names + failure_names, conditions + failures, strict=True) if s}
    claim = claim_with([result(conditions=names, failures=failure_names or None)], [status(**reported)])
    ready, error = claim_ready(claim)
    failed = any(s == "True" for s in failures)
    assert bool(error) is failed
    assert ready is (not failed and all(s == "True" for s in conditions))
