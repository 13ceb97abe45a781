"""Upstream's workload-name tables for jobs.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/jobframework/workload_names_test.go``
``TestGenerateWorkloadNameWithExtra`` (the rows with an empty ``extra``, which is
``GetWorkloadNameForOwnerWithGVK``; case names quoted) against ``workload_names.go``. The rows with
a non-empty ``extra``, ``TestGenerateWorkloadNameWithGeneration`` and ``TestGetWorkloadNameForVariant``
name elastic-job slices and concurrent-admission variants, which kbatch does not model
(``docs/kueue.md``). The expected names are upstream's literal values; the last test checks that a
Job created through the API gets exactly that name for its Workload.
"""

from __future__ import annotations

import pytest

from kbatch import ControlPlane
from kbatch.api.batch_v1 import Job
from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.jobframework.names import HASH_LENGTH, workload_name

LONG = (
    "marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
    "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-"
    "lead-senior-architect-validation-checked-approved-by-legal-and-ops-dept"
)


@pytest.mark.parametrize(
    ("case", "name", "short", "want"),
    [
        ("short name, no extra (ShortWorkloadNames=false)", "name", False, "job-name-ef3a1"),
        ("long owner name truncated (ShortWorkloadNames=false)", LONG, False,
         "job-marketing-campaign-autumn-2024-region-north-america-department-digital-strategy-sub-department-"
         "social-media-engagement-tracker-and-analytics-dashboard-v2-final-revision-by-engineering-team-"
         "lead-senior-architect-validation-checked-approved-by-l-218b8"),
        ("long owner name truncated (ShortWorkloadNames=true)", LONG, True,
         "job-marketing-campaign-autumn-2024-region-north-america-d-218b8"),
    ],
)
def test_generate_workload_name(case: str, name: str, short: bool, want: str) -> None:
    assert workload_name(name, "uid", "Job", "batch", short=short) == want


@pytest.mark.parametrize("case", ["empty extra"])
def test_prefix_and_hash_length(case: str) -> None:
    """"empty extra": ``job-my-job-`` then a 5-character hash."""
    got = workload_name("my-job", "uid-123", "Job", "batch")
    assert got.startswith("job-my-job-") and len(got) == len("job-my-job") + 1 + HASH_LENGTH


@pytest.mark.parametrize(("gate", "limit"), [(False, 253), (True, 63)])
def test_a_jobs_workload_is_named_so_through_the_api(gate: bool, limit: int) -> None:
    cp = ControlPlane(controllers="kueue", feature_gates={"ShortWorkloadNames": gate})
    container = {"name": "c", "image": "pause"}
    cp.apply([{"apiVersion": "batch/v1", "kind": "Job",
               "metadata": {"name": LONG[:63].rstrip("-"), "namespace": "default",
                            "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
               "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [container]}}}}])
    cp.run_until_idle()
    job = cp.client.get(Job, LONG[:63].rstrip("-"), "default")
    names = [wl.metadata.name for wl in cp.client.list(Workload, "default").items]
    assert names == [workload_name(job.metadata.name, job.metadata.uid, "Job", "batch", short=gate)]
    assert len(names[0]) <= limit
