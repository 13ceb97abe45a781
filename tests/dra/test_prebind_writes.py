"""PreBind's claim writes (upstream ``bindClaim``, ``dynamicresources.go``): the first attempt writes
over the claim the scheduler knows, without reading it; a resourceVersion conflict reads the claim and
tries again; a claim replaced by another of the same name is not found; a claim being deleted or
allocated elsewhere, and a write the API server refuses, fail PreBind with upstream's wording."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.errors import NotFound
from kbatch.api.resource_v1 import FINALIZER, ResourceClaim
from kbatch.controllers.dra.dynamicresources import DynamicResources
from kbatch.controllers.dra.dynamicresources.plugin import BindError
from kbatch.controllers.scheduler.profiles import Handle

from .builders import DRIVER, make_claim


class _CountingClient:
    """The control plane's client, counting reads of claims."""

    def __init__(self, client: Any) -> None:
        self.client, self.gets = client, 0

    def get(self, kind: Any, name: str, namespace: str | None = None) -> Any:
        self.gets += 1
        return self.client.get(kind, name, namespace)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


class _Pod:
    name, uid = "p", "uid-p"


def _plugin(cp: ControlPlane) -> tuple[DynamicResources, _CountingClient]:
    client = _CountingClient(cp.client)
    return DynamicResources(Handle(client=client)), client


def _allocation() -> Any:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": "x", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {"request": "gpu", "driver": DRIVER, "pool": "node-0", "device": "gpu-0"}
                        ]
                    }
                }
            },
        }
    ).status.allocation


def _created(cp: ControlPlane) -> ResourceClaim:
    claim = make_claim("c", {"name": "gpu", "exactly": {"deviceClassName": "gpu"}})
    claim.metadata.uid = None
    return cp.client.create(claim)


def test_the_first_attempt_writes_over_the_known_claim_without_reading() -> None:
    cp = ControlPlane(controllers=[])
    claim = _created(cp)
    plugin, client = _plugin(cp)
    plugin.world.set_claim(claim)
    plugin._write(client, claim, _allocation(), _Pod())
    stored = cp.client.get(ResourceClaim, "c", "default")
    assert client.gets == 0
    assert FINALIZER in stored.metadata.finalizers
    assert [(r.name, r.uid) for r in stored.status.reserved_for] == [("p", "uid-p")]
    assert stored.status.allocation.devices.results[0].device == "gpu-0"
    assert plugin.world.claim("default", "c").metadata.resource_version == stored.metadata.resource_version


def test_a_conflict_reads_the_claim_and_tries_again() -> None:
    cp = ControlPlane(controllers=[])
    claim = _created(cp)
    plugin, client = _plugin(cp)
    plugin.world.set_claim(claim)  # what the scheduler knows; then someone else writes the claim
    changed = edit(cp.client.get(ResourceClaim, "c", "default"))
    changed.metadata.labels = {"touched": "yes"}
    cp.client.update(changed)
    plugin._write(client, claim, _allocation(), _Pod())
    stored = cp.client.get(ResourceClaim, "c", "default")
    assert client.gets == 1
    assert stored.metadata.labels == {"touched": "yes"}, "the other writer's change is kept"
    assert FINALIZER in stored.metadata.finalizers and stored.status.reserved_for[0].uid == "uid-p"


def test_a_replaced_claim_is_not_found() -> None:
    cp = ControlPlane(controllers=[])
    claim = _created(cp)
    plugin, client = _plugin(cp)
    plugin.world.set_claim(claim)
    cp.client.delete(ResourceClaim, "c", "default")
    _created(cp)  # same name, another uid
    with pytest.raises(BindError) as info:
        plugin._write(client, claim, _allocation(), _Pod())
    assert isinstance(info.value.cause, NotFound)
    assert info.value.message == (
        'get updated claim default/c after conflict: resourceclaims.resource.k8s.io "c" not found'
    )
    replaced = cp.client.get(ResourceClaim, "c", "default")
    assert not replaced.metadata.finalizers and not replaced.status.reserved_for
    assert replaced.status.allocation is None


def test_a_claim_being_deleted_is_not_bound() -> None:
    # bindClaim: "claim %s got deleted in the meantime"
    cp = ControlPlane(controllers=[])
    claim = edit(_created(cp))
    claim.metadata.finalizers = ["example.com/keep"]
    claim = cp.client.update(claim)
    cp.client.delete(ResourceClaim, "c", "default")
    deleting = cp.client.get(ResourceClaim, "c", "default")
    plugin, client = _plugin(cp)
    plugin.world.set_claim(deleting)
    with pytest.raises(BindError, match=r"^claim default/c got deleted in the meantime$"):
        plugin._write(client, claim, _allocation(), _Pod())
    assert not cp.client.get(ResourceClaim, "c", "default").status.reserved_for


def test_a_claim_allocated_elsewhere_keeps_its_allocation() -> None:
    # bindClaim: "claim %s got allocated elsewhere in the meantime" (the allocation is not replaced)
    cp = ControlPlane(controllers=[])
    claim = _created(cp)
    other = edit(claim)
    allocation = _allocation().model_dump(by_alias=True)
    other.status = ResourceClaim.model_validate(
        {"metadata": {"name": "x"}, "spec": {}, "status": {"allocation": allocation}}
    ).status
    other.status.allocation.devices.results[0].device = "gpu-1"
    elsewhere = cp.client.update_status(other)
    plugin, client = _plugin(cp)
    plugin.world.set_claim(elsewhere)
    with pytest.raises(BindError, match=r"^claim default/c got allocated elsewhere in the meantime$"):
        plugin._write(client, claim, _allocation(), _Pod())
    stored = cp.client.get(ResourceClaim, "c", "default")
    assert stored.status.allocation.devices.results[0].device == "gpu-1"
    assert not stored.status.reserved_for


def test_a_refused_reservation_is_an_error_status() -> None:
    # bindClaim: a non-conflict error of UpdateStatus is "add reservation to claim %s: %w", and
    # PreBind returns it as an error status (upstream statusError), not an exception
    cp = ControlPlane(controllers=[])
    claim = _created(cp)
    full = edit(claim)
    full.status = ResourceClaim.model_validate(
        {
            "metadata": {"name": "x"},
            "spec": {},
            "status": {
                "allocation": _allocation().model_dump(by_alias=True),
                "reservedFor": [{"resource": "pods", "name": f"p{i}", "uid": f"u{i}"} for i in range(256)],
            },
        }
    ).status
    full = cp.client.update_status(full)
    plugin, client = _plugin(cp)
    plugin.world.set_claim(full)
    with pytest.raises(BindError) as info:
        plugin._write(client, full, None, _Pod())
    assert info.value.message.startswith("add reservation to claim default/c: ")
    assert "status.reservedFor" in info.value.message
