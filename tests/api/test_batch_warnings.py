"""The ``Warning:`` texts of Job and CronJob writes, through the API server's untyped verbs (what
``kbatch serve`` sends as ``Warning: 299`` headers and the CLI prints).

Upstream: pkg/registry/batch/job/strategy.go and pkg/registry/batch/cronjob/strategy.go
``WarningsOnCreate``/``WarningsOnUpdate``, pkg/api/job/warnings.go ``WarningsForJobSpec``.
"""

from __future__ import annotations

import copy
from typing import Any

from kbatch.api.batch_v1 import CronJob
from tests.api.upstream_batch import cronjob, job, server

NAME = ("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; "
        "a DNS label is recommended: [must not contain dots]")
INDEXED = ("In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than "
           "10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")
BIG = {"completionMode": "Indexed", "completions": 100_001, "parallelism": 10_001}
TZ = ("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
      "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details")


def _wire(obj: Any) -> dict[str, Any]:
    return {"apiVersion": obj.api_version, "kind": obj.kind, **obj.to_dict()}


def test_a_job_name_that_is_no_dns_label_is_warned_about() -> None:
    _, warnings = server().unstructured.create(_wire(job(name="my.job")))
    assert warnings == [NAME]


def test_a_plain_job_gets_no_warning() -> None:
    _, warnings = server().unstructured.create(_wire(job()))
    assert warnings == []


def test_an_indexed_job_past_both_soft_limits_is_warned_about() -> None:
    _, warnings = server().unstructured.create(_wire(job(BIG)))
    assert warnings == [f"spec: {INDEXED}"]
    _, below = server().unstructured.create(_wire(job({**BIG, "parallelism": 10_000})))
    assert below == []


def test_a_job_update_warns_only_when_the_spec_changes() -> None:
    srv = server()
    created, _ = srv.unstructured.create(_wire(job({**BIG, "suspend": True})))
    same = {"apiVersion": "batch/v1", "kind": "Job", **copy.deepcopy(created)}
    same["metadata"]["labels"] = {"a": "b"}  # metadata only: same generation
    updated, warnings = srv.unstructured.update(same)
    assert warnings == []
    resumed = {"apiVersion": "batch/v1", "kind": "Job", **copy.deepcopy(updated)}
    resumed["spec"]["suspend"] = False
    _, warnings = srv.unstructured.update(resumed)
    assert warnings == [f"spec: {INDEXED}"]


def test_the_name_is_warned_about_on_create_only() -> None:
    srv = server()
    created, warnings = srv.unstructured.create(_wire(job({"suspend": True}, name="my.job")))
    assert warnings == [NAME]
    body = {"apiVersion": "batch/v1", "kind": "Job", **copy.deepcopy(created)}
    body["spec"]["suspend"] = False
    _, warnings = srv.unstructured.update(body)
    assert warnings == []


def test_a_merge_patch_gets_the_update_warnings() -> None:
    srv = server()
    srv.unstructured.create(_wire(job({**BIG, "suspend": True})))
    _, warnings = srv.unstructured.patch("batch/v1", "Job", "myjob", {"spec": {"suspend": False}},
                                         namespace="default")
    assert warnings == [f"spec: {INDEXED}"]


def test_a_cronjob_create_warns_about_its_name_and_job_template() -> None:
    _, warnings = server().unstructured.create(_wire(cronjob(job_spec=BIG, name="my.cron")))
    assert warnings == [NAME, f"spec.jobTemplate.spec: {INDEXED}"]


def test_a_cronjob_whose_stored_schedule_has_tz_is_warned_on_every_update() -> None:
    """A create with ``TZ=`` is refused; an object an older server stored keeps it, and each update
    that keeps it is warned about (upstream's path reads ``spec.spec.schedule``)."""
    srv = server()
    stored = srv.create(cronjob())
    wire = copy.deepcopy(stored.to_dict())
    wire["spec"]["schedule"] = "TZ=UTC 0 * * * *"
    del wire["metadata"]["resourceVersion"]
    srv.store.put(srv.kind(CronJob).keys.key("default", "mycronjob"), CronJob.model_validate(wire).to_json())
    current = {"apiVersion": "batch/v1", "kind": "CronJob", **srv.unstructured.get("batch/v1", "CronJob",
                                                                                   "mycronjob", "default")}
    current["metadata"]["labels"] = {"a": "b"}
    _, warnings = srv.unstructured.update(current)
    assert warnings == [TZ]


def test_a_status_write_gets_no_warning() -> None:
    srv = server()
    created, _ = srv.unstructured.create(_wire(job(name="my.job")))
    body = {"apiVersion": "batch/v1", "kind": "Job", **copy.deepcopy(created)}
    body["status"] = {"active": 0}
    _, warnings = srv.unstructured.update(body, status=True)
    assert warnings == []
