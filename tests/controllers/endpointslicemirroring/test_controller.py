"""The endpointslice-mirroring controller in a control plane (kubernetes
``pkg/controller/endpointslicemirroring/endpointslicemirroring_controller_test.go`` ``TestSyncEndpoints``
rows and ``test/integration/endpointslice/endpointslicemirroring_test.go``): Endpoints written by
hand for a Service without a selector get mirrored slices, kept in step with the Endpoints and put
back when someone else changes them; the skip-mirror label, a Service with a selector, no Service,
or no Endpoints mean no mirrored slices."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Endpoints, Event, Service
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.frozen import edit

MIRRORING = "endpointslicemirroring-controller.k8s.io"
PORT = {"name": "http", "port": 8080, "protocol": "TCP"}


def _service(name: str = "ext", selector: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"ports": [{"name": "http", "port": 80}]}
    if selector is not None:
        spec["selector"] = selector
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": spec}


def _endpoints(ips: list[str], name: str = "ext", labels: dict[str, str] | None = None,
               not_ready: list[str] | None = None) -> dict[str, Any]:
    subset: dict[str, Any] = {"addresses": [{"ip": ip} for ip in ips], "ports": [PORT]}
    if not_ready:
        subset["notReadyAddresses"] = [{"ip": ip} for ip in not_ready]
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "labels": labels or {"team": "a"}, "annotations": {"note": "x"}},
            "subsets": [subset]}


def _mirrored(cp: ControlPlane, name: str = "ext") -> list[Any]:
    return [s for s in cp.client.list(EndpointSlice, "default").items
            if (s.metadata.labels or {}).get("endpointslice.kubernetes.io/managed-by") == MIRRORING
            and (s.metadata.labels or {}).get("kubernetes.io/service-name") == name]


def _ips(cp: ControlPlane) -> list[tuple[str, bool | None]]:
    return sorted((e.addresses[0], e.conditions.ready) for s in _mirrored(cp) for e in s.endpoints or ())


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(seed=0)


def test_a_selectorless_services_endpoints_are_mirrored(cp: ControlPlane) -> None:
    cp.apply([_service(), _endpoints(["10.1.0.1", "10.1.0.2"], not_ready=["10.1.0.3"])])
    [eps] = _mirrored(cp)
    assert eps.metadata.name.startswith("ext-")
    assert eps.metadata.labels == {"team": "a", "kubernetes.io/service-name": "ext",
                                   "endpointslice.kubernetes.io/managed-by": MIRRORING}
    assert eps.metadata.annotations == {"note": "x"}  # not the last-applied configuration
    ep = cp.client.get(Endpoints, "ext", "default")
    [owner] = eps.metadata.owner_references
    assert (owner.kind, owner.name, owner.uid, owner.controller) == \
        ("Endpoints", "ext", ep.metadata.uid, True)
    assert [(p.name, p.port, p.protocol) for p in eps.ports] == [("http", 8080, "TCP")]
    assert _ips(cp) == [("10.1.0.1", True), ("10.1.0.2", True), ("10.1.0.3", False)]


def test_the_slices_follow_the_endpoints_and_go_with_them(cp: ControlPlane) -> None:
    cp.apply([_service(), _endpoints(["10.1.0.1"])])
    [before] = _mirrored(cp)
    cp.apply(_endpoints(["10.1.0.2", "fd00::1"], labels={"team": "b"}))
    slices = _mirrored(cp)
    families = sorted((s.address_type, s.metadata.labels["team"]) for s in slices)
    assert families == [("IPv4", "b"), ("IPv6", "b")]
    assert before.metadata.name in {s.metadata.name for s in slices}  # updated in place
    assert _ips(cp) == [("10.1.0.2", True), ("fd00::1", True)]
    cp.client.delete(Endpoints, "ext", "default")
    cp.run_until_idle()
    assert _mirrored(cp) == []


@pytest.mark.parametrize("change", ["selector", "delete service", "skip-mirror", "leader election"])
def test_no_mirroring_when_the_endpoints_are_not_to_be_mirrored(cp: ControlPlane, change: str) -> None:
    cp.apply([_service(), _endpoints(["10.1.0.1"])])
    assert len(_mirrored(cp)) == 1
    if change == "selector":
        cp.apply(_service(selector={"app": "x"}))
    elif change == "delete service":
        cp.client.delete(Service, "ext", "default")
    else:
        ep = edit(cp.client.get(Endpoints, "ext", "default"))
        if change == "skip-mirror":
            ep.metadata.labels = {"endpointslice.kubernetes.io/skip-mirror": "true"}
        else:
            ep.metadata.annotations = {"control-plane.alpha.kubernetes.io/leader": "{}"}
        cp.client.update(ep)
    cp.run_until_idle()
    assert _mirrored(cp) == []


def test_a_service_losing_its_selector_gets_its_endpoints_mirrored(cp: ControlPlane) -> None:
    """``onServiceUpdate``: the Service's selector went; the Endpoints written before are mirrored
    (the endpoint controller, which wrote them while it had a selector, leaves them from then on)."""
    cp.apply([_service(selector={"app": "x"})])
    cp.apply(_service())
    cp.apply(_endpoints(["10.1.0.1"]))
    assert _ips(cp) == [("10.1.0.1", True)]
    cp.apply(_service(selector={"app": "x"}))
    assert _mirrored(cp) == []


def test_another_writers_change_to_a_mirrored_slice_is_undone(cp: ControlPlane) -> None:
    cp.apply([_service(), _endpoints(["10.1.0.1"])])
    [eps] = _mirrored(cp)
    changed = edit(eps)
    changed.endpoints[0].conditions.ready = False
    cp.client.update(changed)
    cp.run_until_idle()
    assert _ips(cp) == [("10.1.0.1", True)]
    cp.client.delete(EndpointSlice, eps.metadata.name, "default")
    cp.run_until_idle()
    assert _ips(cp) == [("10.1.0.1", True)]


def test_addresses_past_the_maximum_are_left_out_with_a_warning() -> None:
    cp = ControlPlane(seed=0, options={"endpointslicemirroring": {"mirroring_max_endpoints_per_subset": 2}})
    cp.apply([_service(), _endpoints(["10.1.0.1", "10.1.0.2", "10.1.0.3"])])
    assert _ips(cp) == [("10.1.0.1", True), ("10.1.0.2", True)]
    [event] = [e for e in cp.client.list(Event, "default").items if e.reason == "TooManyAddressesToMirror"]
    assert event.type == "Warning" and event.involved_object.kind == "Endpoints"
    assert event.message == ("A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. "
                             "1 addresses were skipped")
    assert event.source.component == "endpoint-slice-mirroring-controller"


def test_the_kubernetes_service_is_not_mirrored(cp: ControlPlane) -> None:
    cp.advance(30)
    assert _mirrored(cp, "kubernetes") == []
    assert [s.metadata.name for s in cp.client.list(EndpointSlice, "default").items] == ["kubernetes"]
