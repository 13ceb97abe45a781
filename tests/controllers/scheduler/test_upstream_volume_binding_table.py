"""Upstream's VolumeBinding tables, translated to kbatch: each case builds the cluster through the API
(StorageClasses, PersistentVolumes, PersistentVolumeClaims bound as the binder writes them, a pod)
and lets the scheduler run in virtual time.

Sources (kubernetes/kubernetes master, 1.34+: the tables carry ``DynamicProvision`` and
``EnableSchedulingQueueHint``), ``pkg/scheduler/framework/plugins/volumebinding/``:

* ``volume_binding_test.go`` ``TestVolumeBinding``: PreFilter statuses and Filter statuses per node
  (the scores need ``StorageCapacityScoring``, off in 1.37, and are not translated);
* ``binder_test.go`` ``TestFindPodVolumesWithoutProvisioning`` / ``TestFindPodVolumesWithProvisioning``
  (node ``node1`` labelled ``nodeKey=node1``): conflict reasons, and the bindings / provisions chosen,
  seen here as what PreBind writes (a volume's ``claimRef``, a claim's
  ``volume.kubernetes.io/selected-node``). Rows that expect an error (``shouldFail``) are the PreFilter
  rejections here: a missing claim, an unbound Immediate or pre-bound claim, a wrong ephemeral claim.

Not translated: the CSIDriver/CSIStorageCapacity variants (capacity tracking is not modelled) and
``TestFindPodVolumesWithCSIMigration`` (no CSI migration).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import PersistentVolumeClaim, Pod
from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.sim import NodeTemplate, create_nodes

NS = "testns"
WAIT, IMMEDIATE, PROVISION, NO_PROVISIONER, TOPO_MISMATCH = (
    "wait-sc", "immediate-sc", "wait-provision-sc", "wait-no-provisioner-sc", "wait-topo-mismatch-sc")
NODE_CONFLICT = "node(s) had volume node affinity conflict"
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"


def sc(name: str, mode: str, provisioner: str = "kubernetes.io/no-provisioner",
       topology: str | None = None) -> dict[str, Any]:
    """kbatch's validation requires a provisioner: upstream's classes without one stand for
    ``kubernetes.io/no-provisioner`` (both cannot provision, ``checkVolumeProvisions``)."""
    out: dict[str, Any] = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                           "metadata": {"name": name}, "provisioner": provisioner, "volumeBindingMode": mode}
    if topology:
        out["allowedTopologies"] = [{"matchLabelExpressions": [{"key": "nodeKey", "values": [topology]}]}]
    return out


CLASSES = [sc(WAIT, "WaitForFirstConsumer"), sc(IMMEDIATE, "Immediate"),
           sc(PROVISION, "WaitForFirstConsumer", "test-provisioner", "node1"),
           sc(NO_PROVISIONER, "WaitForFirstConsumer"),
           sc(TOPO_MISMATCH, "WaitForFirstConsumer", "test-provisioner", "node2")]


@dataclass(frozen=True)
class PV:
    name: str
    cls: str = WAIT
    size: str = "1Gi"
    phase: str = "Available"
    node: dict[str, str] | None = None  # node affinity: key -> value (In)
    claim: str | None = None  # claimRef to this claim in NS


@dataclass(frozen=True)
class PVC:
    name: str
    cls: str = WAIT
    size: str = "1Gi"
    bound_to: str | None = None  # volumeName + bind-completed (upstream withBoundPV / pvcBound)
    prebound_to: str | None = None  # volumeName only (upstream preboundPVC)
    phase: str | None = None
    selected_node: str | None = None
    owner: str | None = None  # "pod" (the pod is its controller) or "other" (an owner, not controller)


@dataclass(frozen=True)
class Row:
    source: str
    pvcs: tuple[PVC, ...] = ()
    pvs: tuple[PV, ...] = ()
    volumes: tuple[str, ...] | None = None  # claim names; None: the row's claims
    ephemeral: str | None = None  # a generic ephemeral volume of this name
    nodes: tuple[tuple[str, dict[str, str]], ...] = (("node1", {"nodeKey": "node1"}),)
    message: str | None = None  # expected in the unschedulable pod's message
    reasons: tuple[str, ...] = ()
    on: tuple[str, ...] = ()  # the pod is placed on one of these nodes
    bindings: tuple[tuple[str, str], ...] = ()  # (pv, claim) written by PreBind
    provisions: tuple[str, ...] = ()  # claims annotated with the node
    extra: dict[str, Any] = field(default_factory=dict)


def _pv(v: PV) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": v.size}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": f"/d/{v.name}"}, "storageClassName": v.cls}
    if v.node:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": k, "operator": "In", "values": [val]} for k, val in v.node.items()]}]}}
    if v.claim:
        spec["claimRef"] = {"namespace": NS, "name": v.claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": v.name}, "spec": spec}


def _pvc(c: PVC, pod_uid: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": c.name, "namespace": NS}
    annotations = {}
    if c.bound_to:
        annotations["pv.kubernetes.io/bind-completed"] = "yes"
    if c.selected_node:
        annotations["volume.kubernetes.io/selected-node"] = c.selected_node
    if annotations:
        meta["annotations"] = annotations
    if c.owner:
        # "other": the pod owns it without being its controller (an owner that does not exist would
        # have the garbage collector delete the claim)
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "test-pod", "uid": pod_uid,
                                    "controller": c.owner == "pod"}]
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": c.size}},
                            "storageClassName": c.cls}
    if c.bound_to or c.prebound_to:
        spec["volumeName"] = c.bound_to or c.prebound_to
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta, "spec": spec}


def _pod(row: Row) -> dict[str, Any]:
    names = row.volumes if row.volumes is not None else tuple(c.name for c in row.pvcs if c.owner is None)
    volumes: list[dict[str, Any]] = [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": n}}
                                     for i, n in enumerate(names)]
    if row.ephemeral:
        volumes.append({"name": row.ephemeral, "ephemeral": {"volumeClaimTemplate": {"spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "test-pod", "namespace": NS},
            "spec": {"restartPolicy": "Never", "volumes": volumes, "containers": [
                {"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}}


def run(row: Row) -> tuple[ControlPlane, Pod]:
    # the plugin's tables run the scheduler alone: no ephemeral-volume controller (a missing claim
    # stays missing), no persistentvolume-binder or provisioner (the rows' claims and volumes stay
    # as the row writes them, as upstream's fake listers keep them)
    cp = ControlPlane(seed=1, controllers="*,-ephemeral-volume,-persistentvolume-binder,"
                                          "-simulated-provisioner")
    for name, labels in row.nodes:
        create_nodes(cp, 1, NodeTemplate(labels=labels), prefix=name[:-1], start=int(name[-1]))
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}, *CLASSES])
    for v in row.pvs:
        cp.apply([_pv(v)])
        cp.client.patch_status(PersistentVolume, v.name, {"status": {"phase": v.phase}})
    owned = any(c.owner for c in row.pvcs)  # an ephemeral volume's claim needs the pod's uid first
    pod = cp.apply([_pod(row)])[0] if owned else None
    for c in row.pvcs:
        cp.apply([_pvc(c, pod.metadata.uid if pod is not None else "")])
        if c.bound_to or c.phase:
            status = {"status": {"phase": c.phase or "Bound"}}
            cp.client.patch_status(PersistentVolumeClaim, c.name, status, NS)
    if pod is None:
        cp.apply([_pod(row)])
    cp.advance(3)
    return cp, cp.client.get(Pod, "test-pod", NS)


def _message(pod: Pod) -> str:
    return next((c.message or "" for c in pod.status.conditions or () if c.type == "PodScheduled"), "")


def check(row: Row) -> None:
    cp, pod = run(row)
    message = _message(pod)
    if row.message is not None or row.reasons:
        assert not pod.spec.node_name, f"{row.source}: scheduled on {pod.spec.node_name}"
        if row.message is not None:
            assert f"nodes are available: {row.message}." in message, (row.source, message)
        for reason in row.reasons:
            assert reason in message, (row.source, message)
        others = {NODE_CONFLICT, BIND_CONFLICT, PV_NOT_EXIST} - set(row.reasons)
        assert not any(r in message for r in others), (row.source, message)
        return
    for pv, claim in row.bindings:
        ref = cp.client.get(PersistentVolume, pv).spec.claim_ref
        assert ref is not None and (ref.namespace, ref.name) == (NS, claim), (row.source, pv, ref)
    for claim in row.provisions:
        annotations = cp.client.get(PersistentVolumeClaim, claim, NS).metadata.annotations or {}
        assert annotations.get("volume.kubernetes.io/selected-node") == "node1", (row.source, annotations)
    if row.bindings or row.provisions:
        assert not pod.spec.node_name  # PreBind waits for the binder, which kbatch's test leaves out
    else:
        assert pod.spec.node_name in (row.on or ("node1",)), (row.source, message)


# binder_test.go fixtures: pvNode1a 5G / pvNode1b 10G on node1, pvNode2 on node2; unboundPVC 1G,
# unboundPVC2 5G; boundPVC bound to pvBound; preboundPVC names pvNode1a without being bound
N1, N2 = {"nodeKey": "node1"}, {"nodeKey": "node2"}
PV_1A, PV_1B, PV_2 = PV("pv-node1a", size="5Gi", node=N1), PV("pv-node1b", size="10Gi", node=N1), \
    PV("pv-node2", size="1Gi", node=N2)
PV_BOUND = PV("pv-bound", phase="Bound", claim="bound-pvc")
UNBOUND, UNBOUND2 = PVC("unbound-pvc", size="1Gi"), PVC("unbound-pvc2", size="5Gi")
BOUND = PVC("bound-pvc", bound_to="pv-bound")
PREBOUND = PVC("prebound-pvc", prebound_to="pv-node1a")
IMMEDIATE_UNBOUND = PVC("immediate-unbound-pvc", cls=IMMEDIATE)
IMMEDIATE_BOUND = PVC("immediate-bound-pvc", cls=IMMEDIATE, bound_to="pv-bound-immediate")
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"

VB = "TestVolumeBinding/"
WO, WP = "TestFindPodVolumesWithoutProvisioning/", "TestFindPodVolumesWithProvisioning/"
ROWS = [
    # -- volume_binding_test.go TestVolumeBinding ------------------------------------------------
    Row(VB + "pod has not pvcs", volumes=()),
    Row(VB + "all bound", pvcs=(PVC("pvc-a", bound_to="pv-a"),), pvs=(PV("pv-a"),)),
    Row(VB + "PVC does not exist", volumes=("pvc-a",),
        message='persistentvolumeclaim "pvc-a" not found'),
    Row(VB + "Part of PVCs do not exist", pvcs=(PVC("pvc-a", bound_to="pv-a"),),
        volumes=("pvc-a", "pvc-b"), message='persistentvolumeclaim "pvc-b" not found'),
    Row(VB + "immediate claims not bound", pvcs=(PVC("pvc-a", cls=IMMEDIATE),),
        message=UNBOUND_IMMEDIATE),
    Row(VB + "unbound claims no matches", pvcs=(PVC("pvc-a"),), reasons=(BIND_CONFLICT,)),
    Row(VB + "bound and unbound unsatisfied",
        nodes=(("node1", {"foo": "barbar"}),),
        pvcs=(PVC("pvc-a", bound_to="pv-a"), PVC("pvc-b")), pvs=(PV("pv-a", node={"foo": "bar"}),),
        reasons=(NODE_CONFLICT, BIND_CONFLICT)),
    Row(VB + "pv not found", pvcs=(PVC("pvc-a", bound_to="pv-a"),), reasons=(PV_NOT_EXIST,)),
    Row(VB + "pv not found claim lost", pvcs=(PVC("pvc-a", bound_to="pv-a", phase="Lost"),),
        message='persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"'),
    Row(VB + "local volumes with close capacity are preferred (filter statuses)",
        nodes=(("node1", {}), ("node2", {}), ("node3", {})),
        pvcs=(PVC("pvc-a", size="50Gi"),),
        pvs=(PV("pv-a-0", size="200Gi", node={"kubernetes.io/hostname": "node1"}),
             PV("pv-b-0", size="100Gi", node={"kubernetes.io/hostname": "node2"})),
        extra={"feasible": ("node1", "node2")}),
    # -- binder_test.go TestFindPodVolumesWithoutProvisioning ------------------------------------
    Row(WO + "no-volumes", volumes=()),
    Row(WO + "pvc-not-found", volumes=("bound-pvc",),
        message='persistentvolumeclaim "bound-pvc" not found'),
    Row(WO + "bound-pvc", pvcs=(BOUND,), pvs=(PV_BOUND,)),
    Row(WO + "bound-pvc,pv-not-exists", pvcs=(BOUND,), reasons=(PV_NOT_EXIST,)),
    Row(WO + "prebound-pvc", pvcs=(PREBOUND,), pvs=(PV_1A,),
        message=UNBOUND_IMMEDIATE),
    Row(WO + "unbound-pvc,pv-same-node", pvcs=(UNBOUND,),
        pvs=(PV_2, PV_1A, PV_1B), bindings=(("pv-node1a", "unbound-pvc"),)),
    Row(WO + "unbound-pvc,pv-different-node", pvcs=(UNBOUND,), pvs=(PV_2,),
        reasons=(BIND_CONFLICT,)),
    Row(WO + "two-unbound-pvcs", pvcs=(UNBOUND, UNBOUND2), pvs=(PV_1A, PV_1B),
        bindings=(("pv-node1a", "unbound-pvc"), ("pv-node1b", "unbound-pvc2"))),
    Row(WO + "two-unbound-pvcs,order-by-size", pvcs=(UNBOUND2, UNBOUND),
        pvs=(PV_1A, PV_1B), bindings=(("pv-node1a", "unbound-pvc"), ("pv-node1b", "unbound-pvc2"))),
    Row(WO + "two-unbound-pvcs,partial-match", pvcs=(UNBOUND, UNBOUND2),
        pvs=(PV_1A,), reasons=(BIND_CONFLICT,)),
    Row(WO + "one-bound,one-unbound", pvcs=(UNBOUND, BOUND),
        pvs=(PV_BOUND, PV_1A), bindings=(("pv-node1a", "unbound-pvc"),)),
    Row(WO + "one-bound,one-unbound,no-match", pvcs=(UNBOUND, BOUND),
        pvs=(PV_BOUND, PV_2), reasons=(BIND_CONFLICT,)),
    Row(WO + "one-prebound,one-unbound", pvcs=(UNBOUND, PREBOUND),
        pvs=(PV_1A, PV_1B), message=UNBOUND_IMMEDIATE),
    Row(WO + "immediate-bound-pvc", pvcs=(IMMEDIATE_BOUND,),
        pvs=(PV("pv-bound-immediate", cls=IMMEDIATE, phase="Bound", node=N1, claim="immediate-bound-pvc"),)),
    Row(WO + "immediate-bound-pvc-wrong-node", pvcs=(IMMEDIATE_BOUND,),
        pvs=(PV("pv-bound-immediate", cls=IMMEDIATE, phase="Bound", node=N2, claim="immediate-bound-pvc"),),
        reasons=(NODE_CONFLICT,)),
    Row(WO + "immediate-unbound-pvc", pvcs=(IMMEDIATE_UNBOUND,),
        message=UNBOUND_IMMEDIATE),
    Row(WO + "immediate-unbound-pvc,delayed-mode-bound",
        pvcs=(IMMEDIATE_UNBOUND, BOUND), pvs=(PV_BOUND,), message=UNBOUND_IMMEDIATE),
    Row(WO + "immediate-unbound-pvc,delayed-mode-unbound",
        pvcs=(IMMEDIATE_UNBOUND, UNBOUND), message=UNBOUND_IMMEDIATE),
    Row(WO + "generic-ephemeral,no-pvc", volumes=(), ephemeral="no-such-pvc",
        message='waiting for ephemeral volume controller to create the persistentvolumeclaim '
                '"test-pod-no-such-pvc"'),
    Row(WO + "generic-ephemeral,with-pvc", volumes=(), ephemeral="test-volume",
        pvcs=(PVC("test-pod-test-volume", bound_to="pv-generic", owner="pod"),),
        pvs=(PV("pv-generic", phase="Bound", claim="test-pod-test-volume"),)),
    Row(WO + "generic-ephemeral,wrong-pvc", volumes=(), ephemeral="test-volume",
        pvcs=(PVC("test-pod-test-volume", bound_to="pv-generic", owner="other"),),
        pvs=(PV("pv-generic", phase="Bound", claim="test-pod-test-volume"),),
        message=f"PVC {NS}/test-pod-test-volume was not created for pod {NS}/test-pod (pod is not owner)"),
    # -- binder_test.go TestFindPodVolumesWithProvisioning ---------------------------------------
    Row(WP + "one-provisioned", pvcs=(PVC("provisioned-pvc", cls=PROVISION),),
        provisions=("provisioned-pvc",)),
    Row(WP + "two-unbound-pvcs,one-matched,one-provisioned",
        pvcs=(UNBOUND, PVC("provisioned-pvc", cls=PROVISION)), pvs=(PV_1A,),
        bindings=(("pv-node1a", "unbound-pvc"),), provisions=("provisioned-pvc",)),
    Row(WP + "one-bound,one-provisioned",
        pvcs=(BOUND, PVC("provisioned-pvc", cls=PROVISION)), pvs=(PV_BOUND,),
        provisions=("provisioned-pvc",)),
    Row(WP + "one-binding,one-selected-node",
        pvcs=(BOUND, PVC("provisioned-pvc", cls=PROVISION, selected_node="node1")), pvs=(PV_BOUND,),
        extra={"waits": True}),
    Row(WP + "immediate-unbound-pvc", pvcs=(IMMEDIATE_UNBOUND,),
        message=UNBOUND_IMMEDIATE),
    Row(WP + "one-immediate-bound,one-provisioned",
        pvcs=(IMMEDIATE_BOUND, PVC("provisioned-pvc", cls=PROVISION)),
        pvs=(PV("pv-bound-immediate", cls=IMMEDIATE, phase="Bound", node=N1,
                claim="immediate-bound-pvc"),),
        provisions=("provisioned-pvc",)),
    Row(WP + "invalid-provisioner",
        pvcs=(PVC("no-provisioner-pvc", cls=NO_PROVISIONER),), reasons=(BIND_CONFLICT,)),
    Row(WP + "volume-topology-unsatisfied",
        pvcs=(PVC("topo-mismatch-pvc", cls=TOPO_MISMATCH),), reasons=(BIND_CONFLICT,)),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.source for r in ROWS])
def test_upstream_row(row: Row) -> None:
    if row.extra.get("waits"):  # the claim already selected node1: PreBind only waits for it
        _, pod = run(row)
        assert not pod.spec.node_name and "nodes are available" not in _message(pod)
        return
    feasible = row.extra.get("feasible")
    if feasible:  # Filter: nil, nil, BindConflict: the pod goes to one of the first two nodes
        cp, pod = run(row)
        assert not pod.spec.node_name  # PreBind pre-bound the node's volume and waits for the binder
        chosen = [v for v in ("pv-a-0", "pv-b-0")
                  if cp.client.get(PersistentVolume, v).spec.claim_ref is not None]
        assert len(chosen) == 1
        return
    check(row)
