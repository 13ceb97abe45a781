"""Cases of upstream's NodeName, NodeUnschedulable and NodePorts tables, ported one by one
(``pkg/scheduler/framework/plugins/nodename/node_name_test.go`` ``TestNodeName``,
``nodeunschedulable/node_unschedulable_test.go`` ``TestNodeUnschedulable`` (stored commit 00a12c7),
``nodeports/node_ports_test.go`` ``TestNodePorts`` and ``TestFits`` (stored commit 008b365)). Each
test names the upstream case it follows. Host ports are written "PROTOCOL/hostIP/hostPort" as
upstream's ``newPod`` helper takes them.
"""

from __future__ import annotations

from typing import Any

import pytest

from .upstream_harness import api_node, api_pod, filter_reasons, world


def _node(name: str = "n", unschedulable: bool = False) -> Any:
    return api_node(name, {"cpu": "4", "memory": "4Gi", "pods": "110"}, unschedulable=unschedulable)


# -- TestNodeName -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("node_name", "want"),
    [
        ("", None),
        ("foo", None),
        ("bar", ("UNRESOLVABLE", ("node(s) didn't match the requested node name",))),
    ],
    ids=["no host specified", "host matches", "host doesn't match"],
)
def test_node_name(node_name: str, want: Any) -> None:
    pod = api_pod("p", node=node_name) if node_name else api_pod("p")
    assert filter_reasons(world([_node("foo")]), pod, "NodeName") == {"foo": want}


# -- TestNodeUnschedulable --------------------------------------------------------------------------
UNSCHEDULABLE = ("UNRESOLVABLE", ("node(s) were unschedulable",))


@pytest.mark.parametrize(
    ("tolerations", "unschedulable", "want"),
    [
        ([], True, UNSCHEDULABLE),
        ([], False, None),
        ([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}], True, None),
    ],
    ids=[
        "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)",
        "Schedule pod to normal node",
        "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
    ],
)
def test_node_unschedulable(tolerations: list[Any], unschedulable: bool, want: Any) -> None:
    pod = api_pod("p", tolerations=tolerations) if tolerations else api_pod("p")
    assert filter_reasons(world([_node(unschedulable=unschedulable)]), pod, "NodeUnschedulable") == {
        "n": want
    }


# -- TestNodePorts ----------------------------------------------------------------------------------
def _ports(*infos: str) -> list[dict[str, Any]]:
    out = []
    for i, info in enumerate(infos):
        protocol, ip, port = info.split("/")
        out.append({"containerPort": 10000 + i, "hostPort": int(port), "hostIP": ip, "protocol": protocol})
    return out


_seq = iter(range(10**6))


def _port_pod(*infos: str, node: str = "") -> Any:
    container = {"name": "c", "image": "x", "ports": _ports(*infos)}
    return api_pod(f"pp{next(_seq)}", containers=[container], node=node)


PORTS = ("UNSCHEDULABLE", ("node(s) didn't have free ports for the requested pod ports",))
NODE_PORTS = [
    ("other port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/9090"], None),
    ("same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], PORTS),
    ("same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], PORTS),
    ("different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], None),
    ("different protocol", ["UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], None),
    ("second udp port conflict", ["UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], PORTS),
    (
        "first tcp port conflict",
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"],
        ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"],
        PORTS,
    ),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], PORTS),
    (
        "TCP hostPort conflict due to 0.0.0.0 hostIP",
        ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"],
        ["TCP/127.0.0.1/8001"],
        PORTS,
    ),
    ("second tcp port conflict to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], PORTS),
    ("second different protocol", ["UDP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], None),
    (
        "UDP hostPort conflict due to 0.0.0.0 hostIP",
        ["UDP/127.0.0.1/8001"],
        ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"],
        PORTS,
    ),
    # TestFits
    ("non-conflicting ports", ["TCP/127.0.0.1/80"], ["TCP/127.0.0.1/9090"], None),
    (
        "multiple non-conflicting ports",
        ["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
        ["TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"],
        None,
    ),
    ("same ports on different protocols", ["TCP/127.0.0.1/80"], ["UDP/127.0.0.1/80"], None),
    ("conflicting ports", ["TCP/127.0.0.1/80"], ["TCP/127.0.0.1/80"], PORTS),
    (
        "multiple ports, some conflicting",
        ["TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90", "TCP/127.0.1.1/100"],
        ["TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"],
        PORTS,
    ),
]


@pytest.mark.parametrize(
    ("wanted", "existing", "want"), [c[1:] for c in NODE_PORTS], ids=[c[0] for c in NODE_PORTS]
)
def test_node_ports(wanted: list[str], existing: list[str], want: Any) -> None:
    algo = world([_node()], [_port_pod(*existing, node="n")])
    assert filter_reasons(algo, _port_pod(*wanted), "NodePorts") == {"n": want}


def _init_port_pod(sidecar: bool) -> Any:
    init = {
        "name": "i",
        "image": "x",
        "ports": [{"containerPort": 8001, "hostPort": 8001, "protocol": "TCP"}],
    }
    if sidecar:
        init["restartPolicy"] = "Always"
    return api_pod("p", initContainers=[init])


@pytest.mark.parametrize(
    ("sidecar", "want"),
    [(False, None), (True, PORTS)],
    ids=["non-sidecar initContainer using hostPort", "TCP hostPort conflict from sidecar initContainer"],
)
def test_node_ports_of_init_containers(sidecar: bool, want: Any) -> None:
    algo = world([_node()], [_port_pod("TCP/0.0.0.0/8001", node="n")])
    assert filter_reasons(algo, _init_port_pod(sidecar), "NodePorts") == {"n": want}
