"""kube-apiserver's reconciler of the ``kubernetes`` Service and its endpoints (kubernetes
``pkg/controlplane/controller/kubernetesservice/controller.go`` ``Run``: ``UpdateKubernetesService(false)``
every 10 s from the start; ``pkg/controlplane/reconcilers/lease.go`` ``doReconcile`` and
``endpointsadapter.go``; the ``lease_test.go`` rows on a wrong or missing Endpoints), run only when
someone else changed them: the repair lands on the next ``start + k·10 s`` tick, and nothing stays
armed afterwards or on a cluster nobody touched."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api.core_v1 import Endpoints, Service
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.frozen import edit
from kbatch.apiserver.master_endpoint_reconciler import next_tick
from kbatch.apiserver.master_endpoints import endpoints_repair, master_endpoints, slice_repair
from kbatch.apiserver.service_ips import master_ip

ADDRESS = "172.18.0.1"


@pytest.fixture
def cp() -> ControlPlane:
    return ControlPlane(seed=0)


def _shape(cp: ControlPlane) -> tuple[Any, ...]:
    ep = cp.client.get(Endpoints, "kubernetes", "default")
    eps = cp.client.get(EndpointSlice, "kubernetes", "default")
    return ([[a.ip for a in s.addresses or ()] for s in ep.subsets],
            ep.metadata.labels, [e.addresses for e in eps.endpoints], [(p.name, p.port) for p in eps.ports],
            eps.metadata.labels)


RIGHT = ([[ADDRESS]], {"endpointslice.kubernetes.io/skip-mirror": "true"}, [[ADDRESS]], [("https", 6443)],
         {"kubernetes.io/service-name": "kubernetes"})


def _exists(cp: ControlPlane, kind: Any) -> bool:
    return any(o.metadata.name == "kubernetes" for o in cp.client.list(kind, "default").items)


def test_nothing_is_armed_on_a_cluster_nobody_touched(cp: ControlPlane) -> None:
    cp.advance(120)
    assert cp.master_endpoints._armed is None
    assert cp.master_endpoints.repairs == 0
    assert _shape(cp) == RIGHT


def test_deleted_endpoints_come_back_at_the_next_tick(cp: ControlPlane) -> None:
    cp.advance(25)
    cp.client.delete(Endpoints, "kubernetes", "default")
    cp.client.delete(EndpointSlice, "kubernetes", "default")
    cp.run_until_idle()
    assert cp.timers.next_deadline() == 30.0  # start + 3·10 s: the tick after the change
    cp.advance(4.999)
    assert not _exists(cp, Endpoints) and not _exists(cp, EndpointSlice)
    cp.advance(0.001)
    assert _shape(cp) == RIGHT
    assert cp.master_endpoints._armed is None  # its own writes arm nothing
    assert cp.master_endpoints.repairs == 1


def test_a_deleted_service_comes_back_with_its_endpoints(cp: ControlPlane) -> None:
    cp.client.delete(Service, "kubernetes", "default")
    cp.run_until_idle()  # the endpoint controller deletes the Endpoints of a deleted Service, as upstream's
    assert not _exists(cp, Endpoints)
    cp.advance(10)
    service = cp.client.get(Service, "kubernetes", "default")
    assert service.spec.cluster_ip == master_ip()
    assert _shape(cp) == RIGHT


def test_wrong_addresses_and_a_missing_label_are_put_right_other_labels_kept(cp: ControlPlane) -> None:
    ep = edit(cp.client.get(Endpoints, "kubernetes", "default"))
    ep.subsets[0].addresses[0].ip = "10.9.9.9"
    ep.metadata.labels = {"mine": "yes"}
    cp.client.update(ep)
    cp.advance(10)
    ep = cp.client.get(Endpoints, "kubernetes", "default")
    assert [a.ip for a in ep.subsets[0].addresses] == [ADDRESS]
    assert ep.metadata.labels == {"mine": "yes", "endpointslice.kubernetes.io/skip-mirror": "true"}


def test_an_edited_slice_is_rewritten_from_the_endpoints(cp: ControlPlane) -> None:
    eps = edit(cp.client.get(EndpointSlice, "kubernetes", "default"))
    eps.endpoints[0].addresses = ["10.9.9.9"]
    eps.metadata.labels = {"kubernetes.io/service-name": "kubernetes", "extra": "1"}
    cp.client.update(eps)
    cp.advance(10)
    assert _shape(cp) == RIGHT


def test_a_harmless_change_arms_a_tick_that_writes_nothing(cp: ControlPlane) -> None:
    service = edit(cp.client.get(Service, "kubernetes", "default"))
    service.metadata.annotations = {"note": "x"}
    cp.client.update(service)
    cp.run_until_idle()
    revision = cp.store.revision
    cp.advance(10)
    assert cp.store.revision == revision and cp.master_endpoints.repairs == 0
    assert cp.master_endpoints._armed is None


@given(st.floats(0, 1e6), st.floats(0, 1e6), st.sampled_from([10.0, 3.0, 0.5]))
def test_the_tick_is_the_first_on_the_grid_after_now(start: float, elapsed: float, interval: float) -> None:
    now = start + elapsed
    tick = next_tick(start, now, interval)
    assert now < tick <= now + interval + 1e-6 * max(1.0, now)
    k = (tick - start) / interval
    assert abs(k - round(k)) < 1e-6 * max(1.0, k)


def test_lease_reconciler_rows() -> None:
    """``lease_test.go`` ``TestLeaseEndpointReconciler`` shapes on one API server, ports not reconciled."""
    right = master_endpoints()
    assert endpoints_repair(right) is None
    assert endpoints_repair(None) == right
    two = dict(right, subsets=[right["subsets"][0], {"addresses": [{"ip": "4.3.2.1"}]}])
    assert endpoints_repair(two)["subsets"] == right["subsets"]  # wrong format: remade whole
    extra = dict(right, subsets=[{"addresses": [{"ip": ADDRESS}, {"ip": "4.3.2.1"}],
                                  "ports": [{"name": "foo", "port": 9090, "protocol": "TCP"}]}])
    fixed = endpoints_repair(extra)
    assert fixed["subsets"] == [{"addresses": [{"ip": ADDRESS}],
                                 "ports": [{"name": "foo", "port": 9090, "protocol": "TCP"}]}]
    action, body = slice_repair(None, fixed)
    assert action == "create" and body["ports"] == [{"name": "foo", "port": 9090, "protocol": "TCP"}]
    assert slice_repair(dict(body, addressType="IPv6"), fixed)[0] == "replace"
    assert slice_repair(body, fixed) == ("keep", None)
