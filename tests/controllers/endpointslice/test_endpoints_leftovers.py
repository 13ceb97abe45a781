"""Which Endpoints events the endpoint controller reacts to (kubernetes
``pkg/controller/endpoint/endpoints_controller.go``: the Endpoints informer has only ``DeleteFunc:
onEndpointsDelete``; ``checkLeftoverEndpoints`` queues every Endpoints but a leader-election lock once,
at the controller's start; ``syncService`` deletes the Endpoints of a Service that is gone), with the
``endpoints_controller_test.go`` rows TestCheckLeftoverEndpoints and
TestSyncEndpointsItemsPreserveNoSelector. An Endpoints written before its selector-less Service, the
usual order for hand-written endpoints, is kept."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Endpoints, Service
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.errors import NotFound
from kbatch.api.frozen import edit
from kbatch.controllers.endpoint import LEADER_ANNOTATION, leftover_requests
from kbatch.runtime.reconcile import Request


def _endpoints(name: str = "foo", namespace: str = "default", **annotations: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "namespace": namespace, "annotations": annotations or None},
            "subsets": [{"addresses": [{"ip": "6.7.8.9"}], "ports": [{"port": 1000, "protocol": "TCP"}]}]}


def _service(name: str = "foo", selector: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector, "ports": [{"port": 80}]}}


def _exists(cp: ControlPlane, name: str = "foo") -> bool:
    try:
        cp.client.get(Endpoints, name, "default")
    except NotFound:
        return False
    return True


def _model(body: dict[str, Any]) -> Endpoints:
    return Endpoints.model_validate(body)


def test_check_leftover_endpoints_queues_the_service_of_each() -> None:
    """TestCheckLeftoverEndpoints: one Endpoints ``default/foo`` → the key ``default/foo``."""
    assert leftover_requests([_model(_endpoints())]) == [Request("default", "foo")]


def test_check_leftover_endpoints_skips_leader_election_locks() -> None:
    """``checkLeftoverEndpoints`` skips an Endpoints carrying the leader-election record."""
    eps = [_model(_endpoints("b", "x")), _model(_endpoints("lock", **{LEADER_ANNOTATION: "{}"})),
           _model(_endpoints("a", "x"))]
    assert leftover_requests(eps) == [Request("x", "a"), Request("x", "b")]


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(seed=0)


def test_endpoints_before_their_selectorless_service_are_kept(cp: ControlPlane) -> None:
    """No ``AddFunc``: an Endpoints created without a Service queues nothing; the Service that comes
    later has no selector, so the controller leaves the Endpoints alone (TestSyncEndpointsItemsPreserve
    NoSelector) and the mirroring controller mirrors them."""
    cp.apply(_endpoints())
    cp.advance(60)
    assert _exists(cp)
    ep = edit(cp.client.get(Endpoints, "foo", "default"))
    ep.metadata.labels = {"team": "a"}  # no UpdateFunc either
    cp.client.update(ep)
    cp.advance(60)
    assert _exists(cp)
    cp.apply(_service())
    cp.advance(5)
    ep = cp.client.get(Endpoints, "foo", "default")
    assert [a.ip for a in ep.subsets[0].addresses] == ["6.7.8.9"]
    slices = cp.client.list(EndpointSlice, "default").items
    assert [s.metadata.labels["kubernetes.io/service-name"] for s in slices
            if s.metadata.name != "kubernetes"] == ["foo"]  # mirrored


def test_the_service_going_takes_the_endpoints(cp: ControlPlane) -> None:
    """``syncService`` for a Service that is gone deletes the Endpoints of its name, selector or not."""
    cp.apply([_endpoints(), _service()])
    cp.advance(5)
    cp.client.delete(Service, "foo", "default")
    cp.advance(5)
    assert not _exists(cp)


def test_a_restart_deletes_leftovers_but_leader_locks(cp: ControlPlane) -> None:
    """A controller started over a store holding Endpoints without a Service deletes them
    (``checkLeftoverEndpoints``), but not a leader-election lock; one with its Service stays."""
    cp.apply([_endpoints("orphan"), _endpoints("lock", **{LEADER_ANNOTATION: "{}"}),
              _endpoints("foo"), _service("foo")])
    cp.advance(5)
    assert _exists(cp, "orphan")
    restarted = ControlPlane(seed=0, store=cp.store)
    restarted.advance(5)
    assert [_exists(restarted, n) for n in ("orphan", "lock", "foo")] == [False, True, True]


@pytest.mark.parametrize("annotations", [{}, {LEADER_ANNOTATION: "{}"}], ids=["plain", "leader-lock"])
def test_a_deleted_endpoints_of_a_selector_service_comes_back(cp: ControlPlane,
                                                              annotations: dict[str, str]) -> None:
    """``onEndpointsDelete`` queues the Service of any deleted Endpoints; one with a selector gets its
    Endpoints written again."""
    cp.apply(_service(selector={"app": "foo"}))
    cp.advance(5)
    ep = edit(cp.client.get(Endpoints, "foo", "default"))
    ep.metadata.annotations = {**(ep.metadata.annotations or {}), **annotations}
    cp.client.update(ep)
    cp.advance(5)
    cp.client.delete(Endpoints, "foo", "default")
    cp.advance(5)
    assert _exists(cp)
