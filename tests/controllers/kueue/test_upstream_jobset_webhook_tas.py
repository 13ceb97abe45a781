"""The TopologyAwareScheduling and PodSet-grouping rows of Kueue's JobSet ``TestValidateCreate``,
through kbatch's API server.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobs/jobset/jobset_webhook_test.go`` (case
names quoted) against ``jobset_webhook.go`` ``validateTopologyRequest``:
``ValidateTASPodSetRequest`` and ``ValidateSliceSizeAnnotationUpperBound`` of each replicated job's
template, then ``ValidatePodSetGroupingTopology`` (``pkg/controller/jobframework/tas_validation.go``)
over the JobSet's pod sets. A refused JobSet is not stored."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.errors import FieldError, FieldErrorType, Forbidden, NotFound
from kbatch.api.jobset_v1alpha2 import JobSet

from .test_upstream_jobset_webhook import _plane

REQUIRED, PREFERRED = "kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology"
GROUP, UNCONSTRAINED = "kueue.x-k8s.io/podset-group-name", "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE, SLICE_SIZE = "kueue.x-k8s.io/podset-slice-required-topology", "kueue.x-k8s.io/podset-slice-size"
BLOCK, RACK = "cloud.com/block", "cloud.com/rack"


def _path(i: int) -> str:
    return f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations"


def _rjob(name: str, annotations: dict[str, str], replicas: int = 1, parallelism: int = 1,
          completions: int = 1) -> dict[str, Any]:
    """``testingutil.ReplicatedJobRequirements``."""
    return {"name": name, "replicas": replicas, "template": {"spec": {
        "parallelism": parallelism, "completions": completions,
        "template": {"metadata": {"annotations": annotations},
                     "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}}}}


def _jobset(*rjobs: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "jobset", "namespace": "default"},
            "spec": {"suspend": True, "replicatedJobs": list(rjobs)}}


def _group(i: int, name: str, detail: str) -> FieldError:
    return FieldError.invalid(f"{_path(i)}[{GROUP}]", name, detail)


def _consistency(i: int, other: int, group: str = "groupname") -> FieldError:
    return FieldError(FieldErrorType.INVALID, _path(i),
                      f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with '{_path(other)}' "
                      f"in group '{group}'")


THREE = "can only define groups of exactly 2 pod sets, got: 3 pod set(s)"
CASES = [
    ("valid topology request",
     _jobset(_rjob("launcher", {REQUIRED: BLOCK}), _rjob("worker", {REQUIRED: BLOCK})), []),
    ("invalid topology request",
     _jobset(_rjob("launcher", {REQUIRED: BLOCK}), _rjob("worker", {PREFERRED: BLOCK, REQUIRED: BLOCK})),
     [FieldError(FieldErrorType.INVALID, _path(1),
                 f'must not contain more than one topology annotation: ["{REQUIRED}", "{PREFERRED}", '
                 f'"{UNCONSTRAINED}"]')]),
    ("invalid slice topology request - slice size larger than number of podsets",
     _jobset(_rjob("job1", {REQUIRED: BLOCK, SLICE: BLOCK, SLICE_SIZE: "20"}, replicas=2)),
     [FieldError.invalid(f"{_path(0)}[{SLICE_SIZE}]", "20", "must not be greater than pod set count 2")]),
    ("valid PodSet grouping request",
     _jobset(_rjob("launcher", {GROUP: "groupname", REQUIRED: BLOCK}),
             _rjob("worker", {GROUP: "groupname", REQUIRED: BLOCK}, replicas=4)), []),
    ("invalid PodSet grouping request - groups of size other than 2",
     _jobset(_rjob("job1", {REQUIRED: BLOCK, GROUP: "1podset"}),
             _rjob("job2", {REQUIRED: BLOCK, GROUP: "3podsets"}),
             _rjob("job3", {REQUIRED: BLOCK, GROUP: "3podsets"}, replicas=2),
             _rjob("job4", {REQUIRED: BLOCK, GROUP: "3podsets"}, replicas=2, parallelism=2)),
     [_group(0, "1podset", "can only define groups of exactly 2 pod sets, got: 1 pod set(s)"),
      _group(1, "3podsets", THREE), _group(2, "3podsets", THREE), _group(3, "3podsets", THREE)]),
    ("invalid PodSet grouping request - no leader in group",
     _jobset(_rjob("job1", {REQUIRED: BLOCK, GROUP: "groupname"}, replicas=2),
             _rjob("job2", {REQUIRED: BLOCK, GROUP: "groupname"}, parallelism=3, completions=3)),
     [_group(i, "groupname", "can only define groups where at least one pod set has only 1 replica, got: "
             "2 replica(s) and 3 replica(s) in the group") for i in (0, 1)]),
    ("invalid PodSet grouping request - required topology does not match",
     _jobset(_rjob("job1", {REQUIRED: RACK, GROUP: "groupname"}),
             _rjob("job2", {REQUIRED: BLOCK, GROUP: "groupname"}, replicas=2)),
     [_consistency(0, 1), _consistency(1, 0)]),
    ("invalid PodSet grouping request - preferred topology does not match",
     _jobset(_rjob("job1", {PREFERRED: RACK, GROUP: "groupname"}),
             _rjob("job2", {PREFERRED: BLOCK, GROUP: "groupname"}, replicas=2)),
     [_consistency(0, 1), _consistency(1, 0)]),
    ("invalid PodSet grouping request - different topology annotations within group",
     _jobset(_rjob("job1", {REQUIRED: RACK, GROUP: "groupname"}),
             _rjob("job2", {GROUP: "groupname", PREFERRED: BLOCK}, replicas=2)),
     [_consistency(0, 1), _consistency(1, 0)]),
]


@pytest.mark.parametrize(("case", "doc", "want"), CASES, ids=[c[0] for c in CASES])
def test_validate_create(case: str, doc: dict[str, Any], want: list[FieldError]) -> None:
    cp = _plane()
    try:
        cp.apply([doc])
        got: str | None = None
    except Forbidden as err:
        got = str(err.message)
    if not want:
        assert got is None
        return
    rendered = [str(e) for e in want]
    body = rendered[0] if len(rendered) == 1 else "[" + ", ".join(rendered) + "]"
    assert got == f'admission webhook "vjobset.kb.io" denied the request: {body}'
    with pytest.raises(NotFound):  # no partial write
        cp.client.get(JobSet, "jobset", "default")

