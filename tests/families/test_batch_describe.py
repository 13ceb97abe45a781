"""``kbatch describe`` lines of Job and CronJob against kubectl's describers (k8s.io/kubectl
``pkg/describe/describe.go``: ``describeJob``, ``describeCronJob``, ``describeJobTemplate``,
``printActiveJobs``, ``capIndexesListOrNone``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.families import builtin_registry
from kbatch.families.batch.describe import cap_indexes, describe_cronjob, describe_job

_REGISTRY = builtin_registry()


def _cronjob(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "cj", "namespace": "default"},
            "spec": {"schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid", "suspend": False,
                     "jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}, **spec}}


def test_a_cronjob_is_described_as_kubectl_describes_it() -> None:
    cj = _cronjob(successfulJobsHistoryLimit=3, failedJobsHistoryLimit=1, startingDeadlineSeconds=30,
                  jobTemplate={"spec": {"parallelism": 2, "activeDeadlineSeconds": 60,
                                        "template": {"spec": {"containers": []}}}})
    cj["status"] = {"lastScheduleTime": "2025-01-01T00:05:00Z",
                    "active": [{"name": "cj-1"}, {"name": "cj-2"}]}
    assert describe_cronjob(cj) == [
        ("Schedule", "*/5 * * * *"), ("Concurrency Policy", "Forbid"), ("Suspend", "False"),
        ("Successful Job History Limit", "3"), ("Failed Job History Limit", "1"),
        ("Starting Deadline Seconds", "30s"), ("Selector", "<unset>"), ("Parallelism", "2"),
        ("Completions", "<unset>"), ("Active Deadline Seconds", "60s"),
        ("Last Schedule Time", "2025-01-01T00:05:00Z"), ("Active Jobs", "cj-1, cj-2")]


def test_a_cronjob_without_history_or_runs_prints_unset_and_none() -> None:
    lines = dict(describe_cronjob(_cronjob()))
    assert lines["Successful Job History Limit"] == "<unset>"
    assert lines["Starting Deadline Seconds"] == "<unset>"
    assert lines["Last Schedule Time"] == "<unset>"
    assert lines["Active Jobs"] == "<none>"
    assert "Active Deadline Seconds" not in lines


def test_the_cronjob_kind_uses_its_describer() -> None:
    assert _REGISTRY.for_gvk("batch/v1", "CronJob").describe is describe_cronjob


def test_a_job_shows_ttl_duration_deadline_and_its_indexes() -> None:
    job = {"metadata": {"name": "j"},
           "spec": {"parallelism": 2, "completions": 4, "completionMode": "Indexed", "suspend": False,
                    "backoffLimit": 6, "ttlSecondsAfterFinished": 100, "activeDeadlineSeconds": 600},
           "status": {"startTime": "2025-01-01T00:00:00Z", "completionTime": "2025-01-01T00:02:30Z",
                      "succeeded": 4, "ready": 0}}
    lines = describe_job(job)
    keys = [k for k, _ in lines]
    assert keys == ["Parallelism", "Completions", "Completion Mode", "Suspend", "Backoff Limit",
                    "TTL Seconds After Finished", "Start Time", "Completed At", "Duration",
                    "Active Deadline Seconds", "Pods Statuses", "Completed Indexes"]
    values = dict(lines)
    assert (values["Duration"], values["Active Deadline Seconds"]) == ("2m30s", "600s")
    assert values["Completed Indexes"] == "<none>"


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=200, unique=True))
def test_long_index_lists_are_cut_after_the_first_comma_past_50_characters(values: list[int]) -> None:
    indexes = ",".join(str(v) for v in sorted(values))
    shown = cap_indexes(indexes, 50)
    if len(indexes) <= 50 or "," not in indexes[50:]:
        assert shown == indexes
    else:
        assert shown.endswith(",...") and indexes.startswith(shown[:-3])
        assert "," not in shown[50:-4]
