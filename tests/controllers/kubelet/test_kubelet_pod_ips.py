"""Pod and host addresses (``pkg/kubelet/kubelet_pods.go`` ``generateAPIPodStatus``,
``convertStatusToAPIStatus``, ``podFieldSelectorRuntimeValue``; docs/simulation.md, "Pod and node
addresses"): the node pool hands out the lowest free address and takes it back when the pod ends;
statuses show ``hostIP(s)`` and, once the sandbox runs, ``podIP(s)``, kept after the pod ended; a
``hostNetwork`` pod shows the node's address; the downward API reads them."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node, Pod
from kbatch.controllers.kubelet import pod_logs
from kbatch.controllers.kubelet.podips import AddressPool
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes

from .cluster import get_pod, pod_yaml, sim_cluster

WITH_IPAM = "scheduler,kubelet,node-ipam-controller"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(0, 300)), max_size=120))
def test_the_pool_hands_out_the_lowest_free_address_once(steps: list[int | None]) -> None:
    """None takes an address, an integer gives back one of those held (chosen by it)."""
    pool = AddressPool("10.244.7.0/24")
    held: list[int] = []
    for step in steps:
        if step is None:
            slot = pool.take()
            free = sorted(set(range(253)) - set(held))
            if not free:
                assert slot is None
                continue
            assert slot == free[0]  # the lowest free one: a released address is reused first
            held.append(slot)
        elif held:
            pool.release(held.pop(step % len(held)))
        assert len(set(held)) == len(held)
    addresses = [ipaddress.IPv4Address(pool.address(s)) for s in held]
    net = ipaddress.IPv4Network("10.244.7.0/24")
    assert all(a in net and str(a) not in ("10.244.7.0", "10.244.7.1", "10.244.7.255") for a in addresses)


def test_a_slash_30_holds_one_pod_address() -> None:
    pool = AddressPool("10.0.0.0/30")  # .0 network, .1 gateway, .3 broadcast
    assert pool.address(pool.take() or 0) == "10.0.0.2" and pool.take() is None


def _pods(cp: Any) -> dict[str, Pod]:
    return {p.metadata.name: p for p in cp.client.list(Pod, namespace="default").items}


def test_running_pods_get_the_lowest_free_addresses_and_keep_them_when_done() -> None:
    cp = sim_cluster(1, controllers=WITH_IPAM)
    node = cp.client.get(Node, "node-0")
    assert node.spec.pod_cidr == "10.244.0.0/24" and node.spec.pod_cidrs == ["10.244.0.0/24"]
    for name, command in (("a", "sleep 10"), ("b", "sleep 20"), ("c", "sleep 10")):
        cp.apply(pod_yaml(name, command))
    cp.advance(1)
    pods = _pods(cp)
    assert {n: p.status.pod_ip for n, p in pods.items()} == {"a": "10.244.0.2", "b": "10.244.0.3",
                                                            "c": "10.244.0.4"}
    for pod in pods.values():
        assert pod.status.host_ip == "172.18.0.2" and [h.ip for h in pod.status.host_ips] == ["172.18.0.2"]
        assert [p.ip for p in pod.status.pod_ips] == [pod.status.pod_ip]
    cp.advance(15)  # a and c ended: their statuses keep the addresses (kubernetes#125370)
    pods = _pods(cp)
    assert pods["a"].status.phase == "Succeeded" and pods["a"].status.pod_ip == "10.244.0.2"
    cp.apply(pod_yaml("d", "sleep 10"))
    cp.advance(1)
    assert get_pod(cp, "d").status.pod_ip == "10.244.0.2"  # given back when a ended: the lowest free


def test_a_pending_status_has_the_host_address_and_no_pod_address() -> None:
    cp = sim_cluster(1, controllers=WITH_IPAM, options={"kubelet": {"start_delay": 5}})
    cp.apply(pod_yaml("slow", "sleep 10"))
    cp.advance(1)
    pod = get_pod(cp, "slow")
    assert pod.status.phase == "Pending" and pod.status.host_ip == "172.18.0.2"
    assert pod.status.pod_ip is None and pod.status.pod_ips is None
    cp.advance(5)
    assert get_pod(cp, "slow").status.pod_ip == "10.244.0.2"


def test_host_network_pods_show_the_node_address_and_take_none() -> None:
    cp = sim_cluster(1, controllers=WITH_IPAM)
    cp.apply(pod_yaml("host", "sleep 10", extra_spec="\n  hostNetwork: true"))
    cp.apply(pod_yaml("plain", "sleep 10"))
    cp.advance(1)
    pods = _pods(cp)
    assert pods["host"].status.pod_ip == "172.18.0.2" and [p.ip for p in pods["host"].status.pod_ips] == [
        "172.18.0.2"]
    assert pods["plain"].status.pod_ip == "10.244.0.2"


def test_each_node_has_its_own_range_and_address() -> None:
    cp = sim_cluster(3, controllers=WITH_IPAM)
    nodes = cp.client.list(Node).items
    assert [n.spec.pod_cidr for n in nodes] == ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]
    assert [n.status.addresses[0].address for n in nodes] == ["172.18.0.2", "172.18.0.3", "172.18.0.4"]


def test_without_a_pod_range_pods_run_without_any_address() -> None:
    cp = sim_cluster(1)  # no node-ipam-controller: the node never gets spec.podCIDR
    cp.apply(pod_yaml("p", "sleep 10", extra_spec="\n  hostNetwork: true"))
    cp.apply(pod_yaml("q", "sleep 10"))
    cp.advance(1)
    for name in ("p", "q"):  # upstream would show hostIP: kbatch's difference (docs/simulation.md)
        status = get_pod(cp, name).status
        assert status.phase == "Running" and status.host_ip is None and status.pod_ip is None


def _first_pod_status(controllers: str | None) -> tuple[Any, Any]:
    """The node and a running pod's status of a full control plane (``--controllers``)."""
    cp = ControlPlane(seed=0, controllers=controllers) if controllers else ControlPlane(seed=0)
    create_nodes(cp, 1, NodeTemplate())
    cp.apply(pod_yaml("p", "sleep 10"))
    cp.advance(1)
    return cp.client.get(Node, "node-0"), get_pod(cp, "p").status


@pytest.mark.parametrize("controllers", [None, "*"])
def test_the_default_control_plane_gives_no_range_and_no_addresses(controllers: str | None) -> None:
    """kube-controller-manager starts node IPAM only with ``--allocate-node-cidrs``
    (``startNodeIpamController``): kbatch's default set and ``*`` leave it off."""
    node, status = _first_pod_status(controllers)
    assert node.spec.pod_cidr is None and node.spec.pod_cidrs is None
    assert status.phase == "Running"
    assert (status.host_ip, status.host_ips, status.pod_ip, status.pod_ips) == (None, None, None, None)


def test_node_ipam_turned_on_gives_the_range_and_the_addresses() -> None:
    node, status = _first_pod_status("*,node-ipam-controller")
    assert node.spec.pod_cidr == "10.244.0.0/24"
    assert status.phase == "Running" and (status.host_ip, status.pod_ip) == ("172.18.0.2", "10.244.0.2")


def test_a_template_address_is_every_nodes() -> None:
    cp = sim_cluster(2, NodeTemplate(internal_ip="10.0.0.1"))
    assert {n.status.addresses[0].address for n in cp.client.list(Node).items} == {"10.0.0.1"}


@pytest.mark.parametrize("host_network", [False, True])
def test_downward_api_pod(host_network: bool) -> None:
    """Upstream's "downward api pod" row of ``TestMakeEnvironmentVariables``, single-stack: the
    addresses the kubelet gave the sandbox, before any status showing them was written."""
    cp = sim_cluster(1, controllers=WITH_IPAM)
    refs = {"POD_IP": "status.podIP", "POD_IPS": "status.podIPs", "HOST_IP": "status.hostIP",
            "HOST_IPS": "status.hostIPs", "POD_NAME": "metadata.name"}
    env = [{"name": k, "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": v}}}
           for k, v in refs.items()]
    echo = "; ".join(f'echo "{n}=${{{n}}}"' for n in refs)
    container = {"name": "main", "image": "busybox", "command": ["sh", "-c", echo], "env": env}
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [container]}
    if host_network:
        spec["hostNetwork"] = True
    cp.apply(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": "dapi", "namespace": "default"}, "spec": spec}))
    cp.advance(1)
    ip = "172.18.0.2" if host_network else "10.244.0.2"
    assert pod_logs(cp, "default", "dapi").splitlines() == [
        f"POD_IP={ip}", f"POD_IPS={ip}", "HOST_IP=172.18.0.2", "HOST_IPS=172.18.0.2", "POD_NAME=dapi"]


def test_a_node_created_again_gives_addresses_of_its_new_range() -> None:
    cp = sim_cluster(2, controllers=WITH_IPAM)
    cp.apply(pod_yaml("first", "sleep 100", extra_spec="\n  nodeName: node-0"))
    cp.advance(1)
    assert get_pod(cp, "first").status.pod_ip == "10.244.0.2"
    cp.client.delete(Pod, "first", "default", grace_period_seconds=0)
    cp.client.delete(Node, "node-0")
    cp.run_until_idle()
    create_nodes(cp, 1, NodeTemplate())  # node-0 again: the next range (AllocateNext scans on)
    assert cp.client.get(Node, "node-0").spec.pod_cidr == "10.244.2.0/24"
    cp.apply(pod_yaml("second", "sleep 100", extra_spec="\n  nodeName: node-0"))
    cp.advance(1)
    assert get_pod(cp, "second").status.pod_ip == "10.244.2.2"
