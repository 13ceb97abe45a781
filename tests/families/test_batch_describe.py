"""``kbatch describe job|cronjob`` pages against kubectl's describers (k8s.io/kubectl
``pkg/describe/describe.go``: ``describeJob``, ``describeCronJob``, ``describeJobTemplate``,
``DescribePodTemplate``, ``printActiveJobs``, ``capIndexesListOrNone``, ``LabelSelectorAsSelector``).
``tests/server/test_kubectl_describe_pod.py`` compares whole pages with the real kubectl's."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kbatch.families import builtin_registry
from kbatch.families.batch.describe import (
    cap_indexes,
    cronjob_page,
    describe_cronjob_page,
    describe_job_page,
    job_page,
    selector_string,
)

_REGISTRY = builtin_registry()
NOW = datetime(2025, 1, 1, 0, 10, tzinfo=UTC)
TEMPLATE = {
    "metadata": {"labels": {"app": "pi"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "pi", "image": "perl", "command": ["perl"]}]},
}


def _cronjob(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "cj", "namespace": "default"},
        "spec": {
            "schedule": "*/5 * * * *",
            "concurrencyPolicy": "Forbid",
            "suspend": False,
            "jobTemplate": {"spec": {"template": TEMPLATE}},
            **spec,
        },
    }


def _value(page: str, title: str) -> str:
    match = re.search(rf"^{re.escape(title)}:\s+(.*)$", page, re.M)
    assert match, f"no {title} line in\n{page}"
    return match.group(1)


def test_a_cronjob_is_described_as_kubectl_describes_it() -> None:
    cj = _cronjob(
        successfulJobsHistoryLimit=3,
        failedJobsHistoryLimit=1,
        startingDeadlineSeconds=30,
        jobTemplate={"spec": {"parallelism": 2, "activeDeadlineSeconds": 60, "template": TEMPLATE}},
    )
    cj["status"] = {
        "lastScheduleTime": "2025-01-01T00:05:00Z",
        "active": [{"name": "cj-1"}, {"name": "cj-2"}],
    }
    page = cronjob_page(cj, [], NOW)
    titles = [line.split(":")[0] for line in page.splitlines() if line and not line.startswith(" ")]
    assert titles == [
        "Name",
        "Namespace",
        "Labels",
        "Annotations",
        "Schedule",
        "Concurrency Policy",
        "Suspend",
        "Time Zone",
        "Successful Job History Limit",
        "Failed Job History Limit",
        "Starting Deadline Seconds",
        "Selector",
        "Parallelism",
        "Completions",
        "Active Deadline Seconds",
        "Pod Template",
        "Last Schedule Time",
        "Active Jobs",
        "Events",
    ]
    assert _value(page, "Suspend") == "False" and _value(page, "Starting Deadline Seconds") == "30s"
    assert _value(page, "Last Schedule Time") == "Wed, 01 Jan 2025 00:05:00 +0000"
    assert _value(page, "Active Jobs") == "cj-1, cj-2"
    assert re.search(r"^  Containers:\n   pi:\n    Image:\s+perl\n    Port:\s+<none>$", page, re.M)


def test_a_cronjob_without_history_or_runs_prints_unset_and_none() -> None:
    page = cronjob_page(_cronjob(), [], NOW)
    for title in (
        "Successful Job History Limit",
        "Starting Deadline Seconds",
        "Last Schedule Time",
        "Selector",
        "Time Zone",
    ):
        assert _value(page, title) == "<unset>", title
    assert _value(page, "Active Jobs") == "<none>" and "Active Deadline Seconds" not in page


def test_the_batch_kinds_print_whole_pages() -> None:
    assert _REGISTRY.for_gvk("batch/v1", "CronJob").page is describe_cronjob_page
    assert _REGISTRY.for_gvk("batch/v1", "Job").page is describe_job_page


def test_a_job_shows_ttl_duration_deadline_and_its_indexes() -> None:
    job = {
        "metadata": {"name": "j", "namespace": "default"},
        "spec": {
            "parallelism": 2,
            "completions": 4,
            "completionMode": "Indexed",
            "suspend": False,
            "backoffLimit": 6,
            "ttlSecondsAfterFinished": 100,
            "activeDeadlineSeconds": 600,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
            "template": TEMPLATE,
        },
        "status": {
            "startTime": "2025-01-01T00:00:00Z",
            "completionTime": "2025-01-01T00:02:30Z",
            "succeeded": 4,
            "ready": 0,
            "conditions": [{"type": "Complete", "status": "True", "reason": "CompletionsReached"}],
        },
    }
    page = job_page(job, [], NOW)
    titles = [line.split(":")[0] for line in page.splitlines() if line and not line.startswith(" ")]
    assert titles == [
        "Name",
        "Namespace",
        "Selector",
        "Labels",
        "Annotations",
        "Parallelism",
        "Completions",
        "Completion Mode",
        "Suspend",
        "Backoff Limit",
        "TTL Seconds After Finished",
        "Start Time",
        "Completed At",
        "Duration",
        "Active Deadline Seconds",
        "Pods Statuses",
        "Completed Indexes",
        "Pod Template",
        "Conditions",
        "Events",
    ]
    assert (_value(page, "Duration"), _value(page, "Active Deadline Seconds")) == ("2m30s", "600s")
    assert _value(page, "Suspend") == "false" and _value(page, "Completed Indexes") == "<none>"
    assert _value(page, "Pods Statuses") == "0 Active (0 Ready) / 4 Succeeded / 0 Failed"
    assert _value(page, "Selector") == "batch.kubernetes.io/controller-uid=u1"


def test_a_selector_reads_as_labels_selector_string() -> None:
    selector = {
        "matchLabels": {"b": "2", "a": "1"},
        "matchExpressions": [
            {"key": "c", "operator": "In", "values": ["y", "x"]},
            {"key": "aa", "operator": "DoesNotExist"},
        ],
    }
    assert selector_string(selector) == "a=1,!aa,b=2,c in (x,y)"


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=200, unique=True))
def test_long_index_lists_are_cut_after_the_first_comma_past_50_characters(values: list[int]) -> None:
    indexes = ",".join(str(v) for v in sorted(values))
    shown = cap_indexes(indexes, 50)
    if len(indexes) <= 50 or "," not in indexes[50:]:
        assert shown == indexes
    else:
        assert shown.endswith(",...") and indexes.startswith(shown[:-3])
        assert "," not in shown[50:-4]
