"""One flavor per podset group: the pod sets sharing ``podSetGroupName`` are assigned their flavors
together (their requests summed, every pod set checked against each flavor) and then placed
together by the TAS search, the leader inside the workers' domains.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/scheduler/flavorassigner/flavorassigner.go``
(``assignFlavors``' ``groupedRequests``, ``findFlavorForPodSets`` over ``psIDs``,
``checkFlavorForPodSets``, ``resolvePodSetFlavors``), ``tas_flavor_snapshot.go``
(``FindTopologyAssignmentsForFlavor``' groups)."""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta1.topology import slices_to_domains
from kbatch.sim.nodes import NodeTemplate, create_nodes
from tests.controllers.kueue.helpers import KUEUE, World, cluster_queue, local_queue, quota

RACK, HOST = "cloud.com/rack", "kubernetes.io/hostname"
TOPOLOGY = {"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
            "spec": {"levels": [{"nodeLabel": RACK}, {"nodeLabel": HOST}]}}


def _flavor(name: str) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": {"nodeLabels": {"pool": name}, "topologyName": "default"}}


def _world() -> World:
    """``tas-a``: one 2-cpu node, 2 cpu of quota; ``tas-b``: a rack of two 4-cpu nodes."""
    w = World(TOPOLOGY, _flavor("tas-a"), _flavor("tas-b"))
    create_nodes(w.cp, 1, NodeTemplate(cpu="2", labels={"pool": "tas-a", RACK: "ra"}), prefix="a-")
    create_nodes(w.cp, 2, NodeTemplate(cpu="4", labels={"pool": "tas-b", RACK: "rb"}), prefix="b-")
    flavors = [("tas-a", [quota("cpu", "2")]), ("tas-b", [quota("cpu", "100")])]
    w.apply(cluster_queue("cq", (["cpu"], flavors)), local_queue("lq", "cq"))
    return w


def _pod_set(name: str, count: int, group: str | None) -> dict[str, Any]:
    request: dict[str, Any] = {"required": RACK, **({"podSetGroupName": group} if group else {})}
    return {"name": name, "count": count, "topologyRequest": request, "template": {"spec": {
        "restartPolicy": "Never",
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}}


def _workload(group: str | None) -> dict[str, Any]:
    return {"apiVersion": KUEUE, "kind": "Workload", "metadata": {"name": "lws", "namespace": "default"},
            "spec": {"queueName": "lq",
                     "podSets": [_pod_set("worker", 4, group), _pod_set("leader", 1, group)]}}


def _placed(w: World) -> dict[str, tuple[str, list[str]]]:
    adm = w.wl("lws").status.admission  # type: ignore[union-attr]
    out = {}
    for psa in adm.pod_set_assignments or ():  # type: ignore[union-attr]
        domains = slices_to_domains(psa.topology_assignment.to_dict())["domains"]
        out[psa.name] = (psa.flavors["cpu"], [d["values"][-1] for d in domains])
    return out


def test_a_podset_group_gets_one_flavor_and_the_leader_lands_beside_its_workers() -> None:
    """Alone the leader (1 cpu) would take ``tas-a``, the first flavor; with its workers (4 cpu,
    beyond ``tas-a``'s quota) the group's 5 cpu go to ``tas-b``."""
    w = _world()
    w.apply(_workload("g"))
    w.cp.run_until_idle()
    assert w.admitted("lws")
    placed = _placed(w)
    assert placed["worker"][0] == placed["leader"][0] == "tas-b"
    assert set(placed["leader"][1]) <= {"b-0", "b-1"}


def test_without_a_group_each_pod_set_takes_its_own_first_flavor() -> None:
    w = _world()
    w.apply(_workload(None))
    w.cp.run_until_idle()
    assert w.admitted("lws")
    placed = _placed(w)
    assert (placed["worker"][0], placed["leader"][0]) == ("tas-b", "tas-a")
