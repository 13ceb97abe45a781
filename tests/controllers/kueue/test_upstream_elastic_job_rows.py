"""The elastic-job (workload slice) rows of upstream's Job tests, translated.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/job/job_webhook_test.go``
(``TestValidateCreate``'s elastic topology rows, ``TestValidateCreate``/partial admission,
``Test_applyWorkloadSliceSchedulingGate``) and ``job_controller_test.go`` (``TestPodSets``/run
"replace stale workload slice annotation", ``TestReconciler``'s workload-slice priority rows). The
reconciler rows run through a whole control plane, as ``test_upstream_job_reconciler.py`` does:
each Job reaches the row's state the way a cluster would. Not translated: "a workload slice that
reserved quota with no priority class is left alone" (its input, a suspended Job whose slice holds a
reservation, is a state the Job webhook and reconciler do not produce here; the guard it pins is in
``JobReconciler._sync_priority``), and the rows' ``UpdatedWorkload`` events, which kbatch's priority
sync does not emit for any job (docs/kueue.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api import edit
from kbatch.api.batch_v1 import Job
from kbatch.api.errors import Forbidden
from kbatch.api.jobframework import PodSetInfo
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.webhooks.elastic import gate_template
from kbatch.families.batch.integration import BatchJob

from .helpers import World
from .test_upstream_job_reconciler import WPC, make_job, world

ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
GATE = "kueue.x-k8s.io/elastic-job"
SLICE_NAME = "kueue.x-k8s.io/workload-slice-name"


def _elastic(name: str = "job", parallelism: int = 10, **kw: Any) -> dict[str, Any]:
    j = make_job(name, parallelism=parallelism, annotations=dict(ELASTIC), seconds=600, **kw)
    j["spec"]["completions"] = None
    return j


def _template_annotation(j: dict[str, Any], key: str) -> dict[str, Any]:
    j["spec"]["template"].setdefault("metadata", {}).setdefault("annotations", {})[key] = "cloud.com/block"
    return j


# --- job_webhook_test.go ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        pytest.param("kueue.x-k8s.io/podset-required-topology",
                     "spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]: "
                     "Forbidden: required topology is not supported with elastic jobs",
                     id="elastic job with required topology is rejected"),
        pytest.param("kueue.x-k8s.io/podset-preferred-topology",
                     "spec.template.metadata.annotations[kueue.x-k8s.io/podset-preferred-topology]: "
                     "Forbidden: preferred topology is not supported with elastic jobs",
                     id="elastic job with preferred topology is rejected"),
    ],
)
def test_elastic_job_with_a_topology_is_rejected(annotation: str, message: str) -> None:
    w = world()
    with pytest.raises(Forbidden) as err:
        w.apply(_template_annotation(_elastic(), annotation))
    assert message in str(err.value)


def test_elastic_job_with_unconstrained_topology_is_accepted() -> None:
    w = world()
    j = _elastic()
    unconstrained = {"kueue.x-k8s.io/podset-unconstrained-topology": "true"}
    j["spec"]["template"]["metadata"] = {"annotations": unconstrained}
    w.apply(j)


def test_partial_admission_and_elastic_job_cannot_be_used_together() -> None:
    w = world()
    j = _elastic(parallelism=4)
    j["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"] = "2"
    with pytest.raises(Forbidden) as err:
        w.apply(j)
    assert ('metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: "2": '
            "partial admission and elastic job cannot be used together") in str(err.value)


@pytest.mark.parametrize(
    ("gates", "annotations", "want"),
    [
        pytest.param("ElasticJobsViaWorkloadSlices=false", {}, [], id="FeatureDisabled"),
        pytest.param("ElasticJobsViaWorkloadSlices=false", ELASTIC, [], id="FeatureDisabled_OptIn"),
        pytest.param("ElasticJobsViaWorkloadSlices=true", {}, [], id="FeatureEnabled_NoOptIn"),
        pytest.param("ElasticJobsViaWorkloadSlices=true", ELASTIC, [GATE], id="FeatureEnabledAndOptIn"),
    ],
)
def test_apply_workload_slice_scheduling_gate(
    gates: str, annotations: dict[str, str], want: list[str]
) -> None:
    w = World(controllers="kueue", feature_gates=gates)
    w.apply(make_job(annotations=annotations))
    job = w.cp.client.get(Job, "job", "default")
    assert [g.name for g in job.spec.template.spec.scheduling_gates or ()] == want


def test_apply_workload_slice_scheduling_gate_spec_already_contains_the_gate() -> None:
    """"FeatureEnabledAndOptIn_SpecAlreadyContainsWorkloadSliceGate": added once."""
    j = make_job(annotations=dict(ELASTIC))
    j["spec"]["template"]["spec"]["schedulingGates"] = [{"name": GATE}]
    job = Job.model_validate(j)
    gate_template(job.spec.template)
    assert [g.name for g in job.spec.template.spec.scheduling_gates] == [GATE]


# --- job_controller_test.go ------------------------------------------------------------------------------
def test_replace_stale_workload_slice_annotation() -> None:
    """``TestPodSets``-style run/restore row: an elastic admission's slice name overwrites a stale one
    in the template (``podset.Merge``'s overrideable annotations), and restoring brings it back."""
    j = make_job(parallelism=1)
    j["spec"]["suspend"] = True
    j["spec"]["template"]["metadata"] = {"annotations": {SLICE_NAME: "old-slice"}}
    job = BatchJob(Job.model_validate(j))
    job.run_with_pod_sets_info([PodSetInfo("main", 1, annotations={SLICE_NAME: "new-slice"})])
    assert job.job.spec.suspend is False
    assert job.job.spec.template.metadata.annotations == {SLICE_NAME: "new-slice"}
    job.restore_pod_sets_info([PodSetInfo("main", 1, annotations={SLICE_NAME: "old-slice"})])
    assert job.job.spec.template.metadata.annotations == {SLICE_NAME: "old-slice"}


HIGH = {**WPC, "metadata": {"name": "high-wpc"}, "value": 300}


def _chain_order(x: Workload) -> tuple:
    """Creation time, then a replacement after what it replaces (both may share a virtual second)."""
    replacement = "kueue.x-k8s.io/workload-slice-replacement-for" in (x.metadata.annotations or {})
    return x.metadata.creation_timestamp, replacement


def _slices(w: World) -> list[Workload]:
    items = w.cp.client.list(Workload, "default").items
    out = [x for x in items if x.metadata.owner_references[0].name == "job"]
    return sorted(out, key=_chain_order)


def _relabel(w: World, parallelism: int | None = None) -> None:
    job = edit(w.cp.client.get(Job, "job", "default"))
    job.metadata.labels = {**job.metadata.labels, "kueue.x-k8s.io/priority-class": "high-wpc"}
    if parallelism is not None:
        job.spec.parallelism = parallelism
    w.cp.client.update(job)
    w.cp.run_until_idle()


def _priorities(w: World) -> list[tuple[str, int]]:
    return [(x.spec.priority_class_ref.name, x.spec.priority) for x in _slices(w)]


def test_the_workload_slice_is_updated_when_priority_class_has_changed_for_suspended_job() -> None:
    w = world(nominal="0")
    w.apply(WPC, HIGH)
    w.apply(_elastic(labels={"kueue.x-k8s.io/priority-class": "test-wpc"}))
    w.cp.run_until_idle()
    _relabel(w)
    assert _priorities(w) == [("high-wpc", 300)]


def test_the_workload_slice_takes_both_a_count_and_a_priority_class_change() -> None:
    w = world(nominal="0")
    w.apply(WPC, HIGH)
    w.apply(_elastic(parallelism=5, labels={"kueue.x-k8s.io/priority-class": "test-wpc"}))
    w.cp.run_until_idle()
    _relabel(w, parallelism=10)
    (wl,) = _slices(w)
    assert [ps.count for ps in wl.spec.pod_sets] == [10]  # not admitted: counts change in place
    assert _priorities(w) == [("high-wpc", 300)]


def test_the_workload_slice_and_its_retained_admitted_slice_both_follow_the_label() -> None:
    w = world(nominal="10")
    w.apply(WPC, HIGH)
    w.apply(_elastic(parallelism=10, labels={"kueue.x-k8s.io/priority-class": "test-wpc"}))
    w.cp.run_until_idle()
    job = edit(w.cp.client.get(Job, "job", "default"))
    job.spec.parallelism = 12  # no room: the replacement waits behind the admitted slice
    w.cp.client.update(job)
    w.cp.run_until_idle()
    admitted, replacement = _slices(w)
    assert w.admitted(admitted.metadata.name) and not w.reserved(replacement.metadata.name)
    _relabel(w)
    assert _priorities(w) == [("high-wpc", 300), ("high-wpc", 300)]


def test_the_admitted_slice_follows_the_label_when_a_scale_up_replaces_it() -> None:
    w = world(nominal="5")
    w.apply(WPC, HIGH)
    w.apply(_elastic(parallelism=5, labels={"kueue.x-k8s.io/priority-class": "test-wpc"}))
    w.cp.run_until_idle()
    _relabel(w, parallelism=10)
    admitted, new = _slices(w)
    assert new.metadata.annotations == {
        "kueue.x-k8s.io/elastic-job": "true",
        SLICE_NAME: admitted.metadata.name,
        "kueue.x-k8s.io/workload-slice-replacement-for": f"default/{admitted.metadata.name}",
    }
    assert _priorities(w) == [("high-wpc", 300), ("high-wpc", 300)]


@pytest.mark.parametrize(("value", "want"), [("+3", 3), (" 3", None), ("1_0", None), ("٣", None),
                                            ("4294967297", 1)])
def test_the_min_parallelism_annotation_is_read_with_atoi_then_int32(value: str, want: int | None) -> None:
    """``minPodsCount`` (``job_controller.go``): ``strconv.Atoi``, ignored where it fails, then
    ``int32()``."""
    j = make_job(parallelism=4)
    j["metadata"]["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": value}
    assert BatchJob(Job.model_validate(j)).pod_sets()[0].min_count == want
