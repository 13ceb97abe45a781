"""``TASMultiLayerTopology`` (beta, on) switched off: the Workload builder does not read
``kueue.x-k8s.io/podset-slice-required-topology-constraints`` and every webhook that checks a pod
template's topology annotations refuses it.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/tas.go`` (``Build`` parses
the constraints only while the gate is on; a constraints annotation alone still makes a request),
``tas_validation.go`` (``validateSliceRequiredTopologyConstraints``: "the TASMultiLayerTopology
feature gate must be enabled to use this annotation", reached from the Job, JobSet and Pod
webhooks through ``ValidateTASPodSetRequest``); ``tas_test.go`` ``TestPodSetTopologyRequestBuilder``
(its rows are translated here, the error rows as the webhook refusal kbatch answers them with)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden
from kbatch.api.features import FeatureGates
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.tas.request import topology_request, validate

from .helpers import KUEUE, World, cluster_queue, local_queue, quota

REQ, PREF = "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology"
UNC = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE, SIZE = "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size"
LAYERS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP = "kueue.x-k8s.io/podset-group-name"
INDEX, JOB_INDEX = "batch.kubernetes.io/job-completion-index", "jobset.sigs.k8s.io/job-index"
THREE = '[{"topology":"cloud.com/rack","size":16},{"topology":"cloud.com/sub-rack","size":4},' \
        '{"topology":"kubernetes.io/hostname","size":2}]'
GATE_OFF = "the TASMultiLayerTopology feature gate must be enabled to use this annotation"

# name: (annotations, pod index label, sub group, gate, want request as its wire form)
BUILDER_ROWS: dict[str, tuple[dict[str, str], str | None, tuple[str | None, int | None], bool,
                              dict[str, Any] | None]] = {
    "required annotation": (
        {REQ: "cloud.com/block"}, None, (None, None), True, {"required": "cloud.com/block"}),
    "required annotation with pod index label": (
        {REQ: "cloud.com/block"}, INDEX, (None, None), True,
        {"required": "cloud.com/block", "podIndexLabel": INDEX}),
    "pod index label only": ({}, INDEX, (None, None), True, {"podIndexLabel": INDEX}),
    "required annotation with sub group and pod set group name annotation": (
        {REQ: "cloud.com/block", GROUP: "block"}, None, (JOB_INDEX, 1), True,
        {"required": "cloud.com/block", "subGroupIndexLabel": JOB_INDEX, "subGroupCount": 1,
         "podSetGroupName": "block"}),
    "preferred annotation": (
        {PREF: "cloud.com/block"}, None, (None, None), True, {"preferred": "cloud.com/block"}),
    "unconstrained annotation (true)": ({UNC: "true"}, None, (None, None), True, {"unconstrained": True}),
    "unconstrained annotation (false)": ({UNC: "false"}, None, (None, None), True, {"unconstrained": False}),
    "slice-only topology": (
        {SLICE: "cloud.com/block", SIZE: "1"}, None, (None, None), True,
        {"podSetSliceRequiredTopology": "cloud.com/block", "podSetSliceSize": 1}),
    "slice-only topology - only slice required annotation": (
        {SLICE: "cloud.com/block"}, None, (None, None), True, None),
    "slice-only topology - only slice size annotation": ({SIZE: "1"}, None, (None, None), True, None),
    "slice-only topology with sub group and pod set group name annotation": (
        {SLICE: "cloud.com/block", SIZE: "1", GROUP: "block"}, None, (JOB_INDEX, 1), True,
        {"podSetSliceRequiredTopology": "cloud.com/block", "podSetSliceSize": 1,
         "subGroupIndexLabel": JOB_INDEX, "subGroupCount": 1}),
    "multi-layer: three constraint layers with feature gate": (
        {REQ: "cloud.com/block", LAYERS: THREE}, None, (None, None), True,
        {"required": "cloud.com/block", "podsetSliceRequiredTopologyConstraints": [
            {"topology": "cloud.com/rack", "size": 16}, {"topology": "cloud.com/sub-rack", "size": 4},
            {"topology": "kubernetes.io/hostname", "size": 2}]}),
    "multi-layer: ignored without feature gate": (
        {REQ: "cloud.com/block", SLICE: "cloud.com/rack", SIZE: "16", LAYERS: THREE}, None, (None, None),
        False, {"required": "cloud.com/block", "podSetSliceRequiredTopology": "cloud.com/rack",
                "podSetSliceSize": 16}),
    # kbatch's own: with the gate off a constraints annotation alone still makes a request
    # (``hasSliceLayer``), without its layers
    "constraints alone without the gate": (
        {LAYERS: THREE}, INDEX, (None, None), False, {"podIndexLabel": INDEX}),
}


@pytest.mark.parametrize("name", sorted(BUILDER_ROWS))
def test_pod_set_topology_request_builder(name: str) -> None:
    annotations, index, sub_group, gate, want = BUILDER_ROWS[name]
    got = topology_request(annotations, index, sub_group, multi_layer=gate)
    assert (got.to_dict() if got is not None else None) == want


ERROR_ROWS = {
    "invalid unconstrained topology annotation value": {UNC: "invalid"},
    "invalid podset slice size annotation value": {SLICE: "cloud.com/block", SIZE: "invalid"},
    "multi-layer: zero constraint layers with feature gate": {REQ: "cloud.com/block", LAYERS: "[]"},
    "multi-layer: four constraint layers with feature gate": {
        REQ: "cloud.com/block", LAYERS: THREE[:-1] + ',{"topology":"cloud.com/cluster","size":1}]'},
    "multi-layer: invalid JSON in constraints annotation": {REQ: "cloud.com/block", LAYERS: "invalid-json"},
    "multi-layer: invalid JSON in constraints annotation - expect size as integer": {
        REQ: "cloud.com/block", LAYERS: '[{"topology":"cloud.com/rack","size":"8"}]'},
}


@pytest.mark.parametrize("name", sorted(ERROR_ROWS))
def test_builder_error_rows_are_refused_by_the_webhook_check(name: str) -> None:
    """Where upstream's ``Build`` returns an error, kbatch's webhooks have refused the object."""
    assert validate(ERROR_ROWS[name], "metadata")


# --- through the control plane ------------------------------------------------------------------
def _world(gate: bool) -> World:
    levels = [{"nodeLabel": "cloud.com/block"}, {"nodeLabel": "kubernetes.io/hostname"}]
    w = World({"apiVersion": KUEUE, "kind": "Topology", "metadata": {"name": "default"},
               "spec": {"levels": levels}},
              {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": "tas"},
               "spec": {"nodeLabels": {"group": "tas"}, "topologyName": "default"}},
              controllers="*", feature_gates=f"TASMultiLayerTopology={str(gate).lower()}")
    w.apply(cluster_queue("cq", (["cpu"], [("tas", [quota("cpu", "100")])])), local_queue("lq", "cq"))
    return w


def _template(annotations: dict[str, str]) -> dict[str, Any]:
    return {"metadata": {"annotations": annotations}, "spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}]}}


def _job(annotations: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": "j", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"parallelism": 4, "completions": 4, "completionMode": "Indexed", "suspend": True,
                     "template": _template(annotations)}}


CONSTRAINED = {REQ: "cloud.com/block", LAYERS: '[{"topology":"kubernetes.io/hostname","size":2}]'}


def test_the_builder_drops_the_constraints_of_a_job_admitted_before_the_gate_went_off() -> None:
    """A Job the webhook let through while the gate was on, built into a Workload by a manager
    running with it off (a restart with ``--feature-gates=TASMultiLayerTopology=false``)."""
    w = _world(gate=True)
    w.cp.client.create(Job.model_validate(_job(CONSTRAINED)))
    mgr = w.cp.manager.get("kueue-scheduler").reconciler.mgr
    gates = mgr.settings.gates
    mgr.settings = replace(mgr.settings, gates=FeatureGates(
        gates.specs, {**gates.overridden(), "TASMultiLayerTopology": False}))
    w.cp.run_until_idle()
    wl = next(iter(w.cp.client.list(Workload, "default").items))
    tr = wl.spec.pod_sets[0].topology_request  # type: ignore[index]
    assert tr is not None and tr.to_dict() == {"required": "cloud.com/block", "podIndexLabel": INDEX}


def test_the_builder_reads_the_constraints_with_the_gate_on() -> None:
    w = _world(gate=True)
    w.apply(_job(CONSTRAINED))
    wl = next(iter(w.cp.client.list(Workload, "default").items))
    tr = wl.spec.pod_sets[0].topology_request  # type: ignore[index]
    assert tr is not None and tr.podset_slice_required_topology_constraints is not None


def _jobset(annotations: dict[str, str]) -> dict[str, Any]:
    rjob = {"name": "w", "replicas": 1, "template": {"spec": {
        "parallelism": 2, "completions": 2, "completionMode": "Indexed", "template": _template(annotations)}}}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "js", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
            "spec": {"replicatedJobs": [rjob]}}


def _pod(annotations: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": {"kueue.x-k8s.io/queue-name": "lq"},
                         "annotations": annotations},
            "spec": _template({})["spec"]}


@pytest.mark.parametrize(("make", "path"), [
    (_job, "spec.template.metadata.annotations"),
    (_jobset, "spec.replicatedJobs[0].template.spec.template.metadata.annotations"),
    (_pod, "metadata.annotations"),
])
def test_webhooks_refuse_the_constraints_annotation_with_the_gate_off(make: Any, path: str) -> None:
    w = _world(gate=False)
    with pytest.raises(Forbidden) as err:
        w.apply(make(CONSTRAINED))
    assert f"{path}[{LAYERS}]: Forbidden: {GATE_OFF}" in str(err.value)
