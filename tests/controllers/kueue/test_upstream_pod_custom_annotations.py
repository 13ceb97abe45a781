"""Upstream's pod reconciler rows for ``CustomMetricLabels`` annotations, through a control plane.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/pod/pod_controller_test.go``
``TestReconciler`` (case names quoted per test) against ``pod_controller.go``
``ConstructComposableWorkload`` (``getByKey`` over the group's members) and
``jobframework/utils.go`` ``NewWorkload``. Upstream passes ``WithAnnotationsToCopy`` to the
reconciler; here the keys come the way a user sets them, as ``metrics.customLabels`` entries of
source kind ``Workload`` reading an annotation (``getLabelsAndAnnotationsToCopy``,
``cmd/kueue/main.go``), with the gate set by the Configuration's ``featureGates``.
"""

from __future__ import annotations

from typing import Any

from kbatch.api.kueue_v1beta2 import Workload

from .helpers import World
from .test_jobs import _world
from .test_pod_groups import member
from .test_pods import gates, get_pod, pod, pod_workload


def _config(keys: tuple[str, ...], gate: bool) -> dict[str, Any]:
    entries = [{"name": f"ann{i}", "sourceKind": "Workload", "sourceAnnotationKey": key,
                "trackedValues": ["toCopyValue1"]} for i, key in enumerate(keys)]
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration",
            "featureGates": {"CustomMetricLabels": gate},
            "integrations": {"frameworks": ["batch/job", "pod"]},
            "metrics": {"customLabels": entries}}


GROUP_KEYS = ("toCopyAnn1", "toCopyAnn2")


def _annotated(name: str, annotations: dict[str, str], group: bool = True) -> dict[str, Any]:
    doc = member(name) if group else pod(name)
    doc["metadata"]["annotations"].update({**annotations, "dontCopyAnn": "dontCopyValue"})
    return doc


def _group(w: World, second_ann1: str) -> None:
    w.apply(_annotated("a", {"toCopyAnn1": "toCopyValue1"}),
            _annotated("b", {"toCopyAnn1": second_ann1, "toCopyAnn2": "toCopyValue2"}))
    w.cp.run_until_idle()


def _group_workloads(w: World) -> list[Workload]:
    return w.cp.client.list(Workload, "default").items


def test_workload_is_created_with_correct_annotations_for_a_single_pod() -> None:
    """"workload is created with correct annotations for a single pod"."""
    w = _world(nominal="0", kueue_config=_config(("toCopyAnn", "keyAbsentInThePod"), True))
    w.apply(_annotated("p", {"toCopyAnn": "toCopyValue"}, group=False))
    w.cp.run_until_idle()
    assert pod_workload(w, "p").metadata.annotations == {"toCopyAnn": "toCopyValue"}


def test_workload_is_created_with_correct_annotations_for_pod_group() -> None:
    """"workload is created with correct annotations for pod group": every member's copied
    annotations, not only the first member's."""
    w = _world(nominal="0", kueue_config=_config(GROUP_KEYS, True))
    _group(w, "toCopyValue1")
    assert w.wl("g").metadata.annotations == {"kueue.x-k8s.io/is-group-workload": "true",
                                              "toCopyAnn1": "toCopyValue1", "toCopyAnn2": "toCopyValue2"}
    assert ("Normal", "CreatedWorkload", "Created Workload: default/g") in w.events("a")


def test_workload_is_created_without_annotations_for_pod_group_when_gate_is_disabled() -> None:
    """"workload is created without annotations for pod group when CustomMetricLabels is disabled"."""
    w = _world(nominal="0", kueue_config=_config(GROUP_KEYS, False))
    _group(w, "toCopyValue1")
    assert w.wl("g").metadata.annotations == {"kueue.x-k8s.io/is-group-workload": "true"}


def test_reconciler_returns_error_in_case_of_annotation_mismatch_in_pod_group() -> None:
    """"reconciler returns error in case of annotation mismatch in pod group": no Workload, the
    pods stay gated (``errPodGroupAnnotationsMismatch``, retried)."""
    w = _world(kueue_config=_config(GROUP_KEYS, True))
    _group(w, "otherValue")
    w.cp.advance(30)
    w.cp.run_until_idle()
    assert _group_workloads(w) == []
    assert all("kueue.x-k8s.io/admission" in gates(get_pod(w, n)) for n in ("a", "b"))


def test_annotations_mismatch_is_ignored_for_pod_group_when_gate_is_disabled() -> None:
    """"annotations mismatch is ignored for pod group when CustomMetricLabels is disabled"."""
    w = _world(nominal="0", kueue_config=_config(GROUP_KEYS, False))
    _group(w, "otherValue")
    assert w.wl("g").metadata.annotations == {"kueue.x-k8s.io/is-group-workload": "true"}
