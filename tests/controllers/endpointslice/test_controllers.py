"""The endpointslice and endpoint controllers in a control plane (kubernetes
``pkg/controller/endpointslice/endpointslice_controller_test.go`` and
``pkg/controller/endpoint/endpoints_controller_test.go``, the rows that need informers): pods with
addresses (the node-ipam-controller on), readiness, completion, deletion of the Service, ExternalName
and selectorless Services; and the Service type changes that allocate or release a cluster IP
(``pkg/registry/core/service/storage/storage_test.go`` TestUpdateServiceTypeChange rows)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Endpoints, Pod, Service
from kbatch.api.discovery_v1 import EndpointSlice
from kbatch.api.errors import Invalid, NotFound
from kbatch.sim import NodeTemplate, create_nodes

CONTROLLERS = "*,node-ipam-controller"
MANAGED_BY = "endpointslice-controller.k8s.io"
TRIGGER = "endpoints.kubernetes.io/last-change-trigger-time"


def _service(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "labels": {"team": "a"}},
            "spec": {"selector": {"app": "web"},
                     "ports": [{"name": "http", "port": 80, "targetPort": "http"}]}
            | spec}


def _job(name: str = "web", script: str = "sleep 300", count: int = 3) -> dict[str, Any]:
    container = {"name": "c", "image": "busybox", "command": ["sh", "-c", script],
                 "ports": [{"name": "http", "containerPort": 8080}]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"completionMode": "Indexed", "completions": count, "parallelism": count,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"subdomain": "web", "restartPolicy": "Never",
                                           "containers": [container]}}}}


def _one(cp: ControlPlane, body: dict[str, Any]) -> Any:
    [obj] = cp.apply(body)
    return obj


def _slices(cp: ControlPlane, service: str = "web") -> list[Any]:
    return [s for s in cp.client.list(EndpointSlice, "default").items
            if (s.metadata.labels or {}).get("kubernetes.io/service-name") == service]


def _addresses(cp: ControlPlane) -> list[tuple[str, str | None, bool | None]]:
    return sorted((e.target_ref.name.rsplit("-", 1)[0], e.hostname, e.conditions.ready)
                  for s in _slices(cp) for e in s.endpoints or ())


@pytest.fixture
def cp() -> ControlPlane:
    plane = ControlPlane(seed=0, controllers=CONTROLLERS)
    create_nodes(plane, 2, NodeTemplate(cpu="8", memory="32Gi", labels={"topology.kubernetes.io/zone": "z"}))
    return plane


def test_a_jobs_pods_behind_a_headless_service(cp: ControlPlane) -> None:
    cp.apply([_service(clusterIP="None"), _job()])
    cp.advance(10)
    assert _addresses(cp) == [("web-0", "web-0", True), ("web-1", "web-1", True), ("web-2", "web-2", True)]
    [eps] = _slices(cp)
    assert eps.metadata.labels == {"team": "a", "service.kubernetes.io/headless": "",
                                   "kubernetes.io/service-name": "web",
                                   "endpointslice.kubernetes.io/managed-by": MANAGED_BY}
    assert [(p.name, p.port, p.protocol) for p in eps.ports] == [("http", 8080, "TCP")]
    assert {e.zone for e in eps.endpoints} == {"z"}
    assert eps.metadata.annotations[TRIGGER] == "2025-01-01T00:00:00Z"
    ep = cp.client.get(Endpoints, "web", "default")
    assert ep.metadata.labels == {"team": "a", "service.kubernetes.io/headless": ""}
    [subset] = ep.subsets
    assert sorted(a.hostname for a in subset.addresses) == ["web-0", "web-1", "web-2"]
    assert sorted(a.target_ref.name.rsplit("-", 1)[0] for a in subset.addresses) == ["web-0", "web-1",
                                                                                      "web-2"]
    assert [(p.name, p.port) for p in subset.ports] == [("http", 8080)]


def test_finished_pods_leave_the_endpoints(cp: ControlPlane) -> None:
    cp.apply([_service(), _job(script="sleep 20")])
    cp.advance(10)
    assert len(_addresses(cp)) == 3
    cp.advance(60)
    [eps] = _slices(cp)  # the same slice, emptied (a placeholder)
    assert (eps.endpoints, eps.ports) == (None, None)  # null on the wire, as upstream
    assert cp.client.get(Endpoints, "web", "default").subsets is None


def test_deleting_the_service_removes_its_endpoints(cp: ControlPlane) -> None:
    cp.apply([_service(), _job()])
    cp.advance(10)
    cp.client.delete(Service, "web", "default")
    cp.advance(5)
    assert _slices(cp) == []  # the garbage collector, through the owner reference
    controller = cp.manager.get("endpointslice").reconciler
    assert [k for k in controller.written if k[1].startswith("web-")] == []  # nothing kept of them
    with pytest.raises(NotFound):
        cp.client.get(Endpoints, "web", "default")  # the endpoint controller, by name


@pytest.mark.parametrize("spec", [{"selector": None}, {"type": "ExternalName", "externalName": "example.com",
                                                       "ports": None}])
def test_services_that_get_no_endpoints(cp: ControlPlane, spec: dict[str, Any]) -> None:
    cp.apply([_service(**spec), _job()])
    cp.advance(10)
    assert _slices(cp) == []
    with pytest.raises(NotFound):
        cp.client.get(Endpoints, "web", "default")


def test_without_pod_addresses_the_slice_stays_empty() -> None:
    """Without the node-ipam-controller kbatch's kubelet gives pods no address (docs/simulation.md):
    upstream leaves pods without one out of every endpoint."""
    cp = ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate(cpu="8", memory="32Gi"))
    cp.apply([_service(), _job()])
    cp.advance(10)
    assert [s.endpoints for s in _slices(cp)] == [None]


def test_max_endpoints_per_slice_option() -> None:
    cp = ControlPlane(seed=0, controllers=CONTROLLERS,
                      options={"endpointslice": {"max_endpoints_per_slice": 2}})
    create_nodes(cp, 2, NodeTemplate(cpu="8", memory="32Gi"))
    cp.apply([_service(), _job(count=5)])
    cp.advance(10)
    assert sorted(len(s.endpoints) for s in _slices(cp)) == [1, 2, 2]


def test_a_readiness_change_updates_the_conditions(cp: ControlPlane) -> None:
    cp.apply([_service(), _job(count=1)])
    cp.advance(10)
    pod = cp.client.list(Pod, "default").items[0]
    cp.client.delete(Pod, pod.metadata.name, "default")
    cp.run_until_idle()
    terminating = [e.conditions for s in _slices(cp) for e in s.endpoints or () or ()
                   if e.target_ref.name == pod.metadata.name]
    assert [(c.ready, c.serving, c.terminating) for c in terminating] in ([(False, True, True)], [])


def test_external_name_and_cluster_ip_switch_the_address(cp: ControlPlane) -> None:
    svc = _one(cp, _service("svc"))
    ip = svc.spec.cluster_ip
    assert ip and svc.spec.ip_families == ["IPv4"] and svc.spec.ip_family_policy == "SingleStack"
    changed = cp.client.get(Service, "svc", "default").model_copy(deep=True)
    changed.spec.type, changed.spec.external_name = "ExternalName", "example.com"
    external = cp.client.update(changed)
    spec = external.spec
    assert (spec.cluster_ip, spec.cluster_ips, spec.ip_families, spec.ip_family_policy) == (None,) * 4
    other = _one(cp, _service("other", clusterIP=ip))  # the address is free again
    assert other.spec.cluster_ip == ip
    back = cp.client.get(Service, "svc", "default").model_copy(deep=True)
    back.spec.type, back.spec.external_name = "ClusterIP", None
    clustered = cp.client.update(back)
    assert clustered.spec.cluster_ip not in (None, ip)
    assert clustered.spec.cluster_ips == [clustered.spec.cluster_ip]
    cp.client.delete(Service, "other", "default")
    assert _one(cp, _service("third", clusterIP=ip)).spec.cluster_ip == ip  # deletion released it


def test_an_external_name_service_keeps_no_cluster_ip(cp: ControlPlane) -> None:
    body = _service("ext", type="ExternalName", externalName="example.com", clusterIP="10.0.0.99")
    with pytest.raises(Invalid) as err:
        cp.apply(body)
    assert [c.field for c in err.value.details.causes] == ["spec.clusterIPs"]
    with pytest.raises(Invalid) as missing:
        cp.apply(_service("ext", type="ExternalName"))
    assert [c.field for c in missing.value.details.causes] == ["spec.externalName"]


def test_headless_service_families(cp: ControlPlane) -> None:
    with_selector = _one(cp, _service("h1", clusterIP="None"))
    assert (with_selector.spec.ip_families, with_selector.spec.ip_family_policy) == (["IPv4"], "SingleStack")
    without = _one(cp, _service("h2", clusterIP="None", selector=None))
    assert (without.spec.ip_families, without.spec.ip_family_policy) == (["IPv4", "IPv6"], "RequireDualStack")
    with pytest.raises(Invalid):
        cp.apply(_service("dual", ipFamilyPolicy="RequireDualStack"))
