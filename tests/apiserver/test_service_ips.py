"""Cluster IPs for Services and the master ``kubernetes`` Service (``kbatch/apiserver/service_ips.py``).

Upstream: ``pkg/registry/core/service/storage/alloc.go`` (allocation on create, a requested address
checked), ``pkg/registry/core/service/ipallocator`` (KEP-3070's static band), kube-apiserver's
default ``--service-cluster-ip-range`` 10.0.0.0/24, and ``pkg/controlplane/controller/kubernetesservice``.
"""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import ConfigMap, Service
from kbatch.api.errors import InternalError, Invalid
from kbatch.apiserver import namespaces
from kbatch.apiserver.service_ips import _free_ip
from kbatch.runtime.controlplane import ControlPlane


def _svc(name: str, **spec: object) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "default"},
            "spec": {"ports": [{"port": 80}], **spec}}


def _ip(cp: ControlPlane, name: str) -> str | None:
    return cp.client.get(Service, name, namespace="default").spec.cluster_ip


def test_the_master_service() -> None:
    cp = ControlPlane(controllers=[])
    svc = cp.client.get(Service, "kubernetes", namespace="default")
    assert svc.metadata.labels == {"component": "apiserver", "provider": "kubernetes"}
    spec = svc.spec
    assert (spec.type, spec.cluster_ip, spec.cluster_ips, spec.ip_families, spec.ip_family_policy) == (
        "ClusterIP", "10.0.0.1", ["10.0.0.1"], ["IPv4"], "SingleStack")
    port = spec.ports[0]
    assert (port.name, port.port, port.protocol, port.target_port) == ("https", 443, "TCP", 6443)


def test_dynamic_addresses_come_from_the_upper_band_and_a_deleted_one_is_free_again() -> None:
    cp = ControlPlane(controllers=[])
    for name in ("a", "b", "c"):
        cp.apply(_svc(name))
    assert [_ip(cp, n) for n in ("a", "b", "c")] == ["10.0.0.17", "10.0.0.18", "10.0.0.19"]
    cp.client.delete(Service, "b", namespace="default")
    cp.apply(_svc("d"))
    assert _ip(cp, "d") == "10.0.0.18"


def test_a_requested_address_must_be_free_and_in_the_range() -> None:
    cp = ControlPlane(controllers=[])
    cp.apply(_svc("a", clusterIP="10.0.0.5"))
    assert _ip(cp, "a") == "10.0.0.5"
    with pytest.raises(Invalid) as taken:
        cp.apply(_svc("b", clusterIP="10.0.0.5"))
    assert taken.value.message == ('Service "b" is invalid: spec.clusterIPs[0]: Invalid value: "10.0.0.5": '
                                   "failed to allocate IP 10.0.0.5: provided IP is already allocated")
    with pytest.raises(Invalid) as outside:
        cp.apply(_svc("c", clusterIP="10.1.0.5"))
    assert "The range of valid IPs is 10.0.0.0/24" in outside.value.message
    with pytest.raises(Invalid):
        cp.apply(_svc("m", clusterIP="10.0.0.1"))  # the master Service's
    names = [s.metadata.name for s in cp.client.list(Service, namespace="default").items]
    assert names == ["a", "kubernetes"], "no partial write"


def test_headless_and_external_name_services_get_none() -> None:
    cp = ControlPlane(controllers=[])
    cp.apply(_svc("h", clusterIP="None", selector={"a": "b"}))
    cp.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "e", "namespace": "default"},
              "spec": {"type": "ExternalName", "externalName": "example.com"}})
    assert cp.client.get(Service, "h", namespace="default").spec.cluster_ips == ["None"]
    assert _ip(cp, "e") is None


def test_a_dry_run_allocates_without_keeping_the_address() -> None:
    cp = ControlPlane(controllers=[])
    dry = cp.server.create(Service.model_validate(_svc("a")), dry_run=True)
    assert dry.spec.cluster_ip == "10.0.0.17"
    cp.apply(_svc("b"))
    assert _ip(cp, "b") == "10.0.0.17"


def test_a_full_range_answers_an_internal_error() -> None:
    cidr = ipaddress.IPv4Network("10.0.0.0/24")
    used = {str(cidr.network_address + i) for i in range(1, 255)}
    assert _free_ip(cidr, used) is None
    cp = ControlPlane(controllers=[])
    for i in range(253):
        cp.server.create(Service.model_validate(_svc(f"s{i}")))
    with pytest.raises(InternalError, match="failed to allocate a serviceIP: range is full"):
        cp.server.create(Service.model_validate(_svc("last")))


@settings(max_examples=50)
@given(st.sets(st.integers(1, 254), max_size=254), st.sampled_from(["10.0.0.0/24", "10.96.0.0/28"]))
def test_a_free_address_is_in_the_range_unused_and_upper_band_first(taken: set[int], range_: str) -> None:
    cidr = ipaddress.IPv4Network(range_)
    usable = range(1, cidr.num_addresses - 1)
    used = {str(cidr.network_address + i) for i in taken if i in usable}
    got = _free_ip(cidr, used)
    free = [i for i in usable if str(cidr.network_address + i) not in used]
    if not free:
        assert got is None
        return
    assert got is not None and got not in used
    offset = int(ipaddress.IPv4Address(got)) - int(cidr.network_address)
    upper = [i for i in free if i > (16 if cidr.num_addresses > 16 else 0)]
    assert offset == (upper[0] if upper else free[0])


def test_the_master_service_leaves_the_seeded_generator_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "g-"}}
    expected = [(o.metadata.name, o.metadata.uid) for o in ControlPlane(controllers=[]).apply(doc)]
    monkeypatch.setattr(namespaces, "ensure_master_service", lambda server: None)
    without = ControlPlane(controllers=[])
    assert [(o.metadata.name, o.metadata.uid) for o in without.apply(doc)] == expected
    assert isinstance(without.client.get(ConfigMap, "kube-root-ca.crt", namespace="default"), ConfigMap)
