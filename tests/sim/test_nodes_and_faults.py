"""Node templates and node fault calls on a ControlPlane."""

from __future__ import annotations

from kbatch.api.base import format_time
from kbatch.api.core_v1 import Node
from kbatch.runtime.controlplane import ControlPlane
from kbatch.sim import NodeTemplate, create_nodes, delete_node, make_node, taint_node, untaint_node


def test_node_template_fills_capacity_labels_and_ready() -> None:
    node = make_node("n1", NodeTemplate(cpu="64", memory="512Gi", gpus=8, labels={"zone": "a"}))
    alloc = node.status.allocatable
    assert {k: str(v) for k, v in alloc.items()} == {"cpu": "64", "memory": "512Gi", "pods": "110",
                                                     "nvidia.com/gpu": "8"}
    assert node.metadata.labels["kubernetes.io/hostname"] == "n1" and node.metadata.labels["zone"] == "a"
    assert node.status.conditions[0].type == "Ready" and node.status.conditions[0].status == "True"


def test_create_taint_untaint_delete() -> None:
    cp = ControlPlane(seed=0, controllers="")
    names = [n.metadata.name for n in create_nodes(cp, 3, NodeTemplate(), prefix="w-")]
    assert names == ["w-0", "w-1", "w-2"]
    assert cp.client.get(Node, "w-1").status.allocatable["pods"].value() == 110
    taint_node(cp, "w-0", "maintenance", "yes", "NoExecute")
    taint = cp.client.get(Node, "w-0").spec.taints[0]
    assert (taint.key, taint.value, taint.effect) == ("maintenance", "yes", "NoExecute")
    assert taint.time_added == cp.now()
    untaint_node(cp, "w-0", "maintenance")
    assert not cp.client.get(Node, "w-0").spec.taints
    delete_node(cp, "w-2")
    assert [n.metadata.name for n in cp.client.list(Node).items] == ["w-0", "w-1"]


def test_node_status_is_what_kwoks_node_initialize_stage_posts() -> None:
    """kubernetes-sigs/kwok kustomize/stage/node/fast/testdata/node-pending.output.yaml, with kbatch's
    version where KWOK puts its own and the template's address as the node IP."""
    from kbatch import __version__

    cp = ControlPlane(seed=0, controllers="")
    node = create_nodes(cp, 1, NodeTemplate(internal_ip="10.1.2.3"), prefix="w-")[0]
    status = cp.client.get(Node, node.metadata.name).to_dict()["status"]
    version = f"kbatch-v{__version__}"
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [
        ("Ready", "True", "KubeletReady"), ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("NetworkUnavailable", "False", "RouteCreated")]
    now = format_time(cp.clock.now_datetime())
    assert {(c["lastHeartbeatTime"], c["lastTransitionTime"]) for c in status["conditions"]} == {(now, now)}
    assert status["addresses"] == [{"type": "InternalIP", "address": "10.1.2.3"},
                                   {"type": "Hostname", "address": "w-0"}]
    assert status["daemonEndpoints"] == {"kubeletEndpoint": {"Port": 10250}}
    assert status["nodeInfo"] == {
        "architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": version,
        "kubeProxyVersion": version, "containerRuntimeVersion": version, "kernelVersion": version,
        "osImage": "", "machineID": "", "systemUUID": "", "bootID": ""}
    assert status["phase"] == "Running"


def test_get_nodes_wide_shows_the_columns_kubectl_shows() -> None:
    """kubectl's node printer (pkg/printers/internalversion/printers.go printNode): the wide columns
    INTERNAL-IP, EXTERNAL-IP, OS-IMAGE, KERNEL-VERSION, CONTAINER-RUNTIME; an empty osImage prints
    <unknown>, a missing ExternalIP <none>."""
    from kbatch import __version__
    from kbatch.cli.render import format_table
    from kbatch.server.table import build_table

    cp = ControlPlane(seed=0, controllers="")
    create_nodes(cp, 2, NodeTemplate(), prefix="w-")
    nodes = [n.to_dict() for n in cp.client.list(Node).items]
    printer = cp.registry.for_model(Node).table_printer
    lines = format_table(build_table(nodes, printer, cp.clock.now_datetime()), wide=True).splitlines()
    version = f"kbatch-v{__version__}"
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP",
                                "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]
    assert lines[1].split() == ["w-0", "Ready", "<none>", "0s", version, "172.18.0.2", "<none>", "<unknown>",
                                version, version]
    assert lines[2].split()[5] == "172.18.0.3"  # kind's addresses, one per node in creation order
    create_nodes(cp, 1, NodeTemplate(), prefix="later-")  # a later call takes the next free one
    assert cp.client.get(Node, "later-0").status.addresses[0].address == "172.18.0.4"
    narrow = format_table(build_table(nodes, printer, cp.clock.now_datetime())).splitlines()
    assert narrow[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
