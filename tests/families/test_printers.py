"""The kubectl get columns and cell rules (pkg/printers/internalversion/printers.go, v1.32)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbatch.api.humanize import age, human_duration
from kbatch.api.printing import DEFAULT_PRINTER, Printer
from kbatch.families import builtin_registry
from kbatch.server.table import build_table, table_accepted

_REGISTRY = builtin_registry()


def _printer(api_version: str, kind: str) -> Printer:
    """The printer the kind's family declares (what ``kbatch get`` and ``kbatch serve`` use)."""
    return _REGISTRY.for_gvk(api_version, kind).table_printer

NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(("seconds", "want"), [
    (-5, "<invalid>"), (-1, "0s"), (0, "0s"), (59, "59s"), (119, "119s"), (120, "2m"), (150, "2m30s"),
    (599, "9m59s"), (600, "10m"), (179 * 60, "179m"), (3 * 3600, "3h"), (3 * 3600 + 120, "3h2m"),
    (8 * 3600, "8h"), (47 * 3600, "47h"), (48 * 3600, "2d"), (50 * 3600, "2d2h"), (8 * 86400, "8d"),
    (400 * 86400, "400d"), (2 * 365 * 86400, "2y"), (2 * 365 * 86400 + 86400, "2y1d"),
    (9 * 365 * 86400, "9y"),
])
def test_human_duration_matches_apimachinery(seconds: int, want: str) -> None:
    assert human_duration(seconds) == want


def test_age_of_missing_timestamp_is_unknown() -> None:
    assert age(None, NOW) == "<unknown>"
    assert age("2025-01-01T00:59:30Z", NOW) == "30s"


def _job(**status: object) -> dict:
    return {"metadata": {"name": "pi", "creationTimestamp": "2025-01-01T00:00:00Z"},
            "spec": {"completions": 3, "parallelism": 3, "selector": {"matchLabels": {"a": "b"}},
                     "template": {"spec": {"containers": [{"name": "c", "image": "perl"}]}}},
            "status": status}


@pytest.mark.parametrize(("conditions", "deleting", "want"), [
    ([], False, "Running"),
    ([{"type": "Complete", "status": "True"}], False, "Complete"),
    ([{"type": "Failed", "status": "True"}], True, "Failed"),
    ([], True, "Terminating"),
    ([{"type": "Suspended", "status": "True"}], False, "Suspended"),
    ([{"type": "Suspended", "status": "False"}], False, "Running"),
    ([{"type": "FailureTarget", "status": "True"}], False, "FailureTarget"),
    ([{"type": "SuccessCriteriaMet", "status": "True"}], False, "SuccessCriteriaMet"),
])
def test_job_status_column(conditions: list, deleting: bool, want: str) -> None:
    job = _job(conditions=conditions)
    if deleting:
        job["metadata"]["deletionTimestamp"] = "2025-01-01T00:30:00Z"
    assert _printer("batch/v1", "Job").cells(job, NOW)[1] == want


def test_job_completions_and_duration() -> None:
    job = _job(succeeded=2, startTime="2025-01-01T00:00:00Z", completionTime="2025-01-01T00:01:30Z")
    cells = _printer("batch/v1", "Job").cells(job, NOW)
    assert cells[:5] == ["pi", "Running", "2/3", "90s", "60m"]
    assert cells[5:] == ["c", "perl", "a=b"]
    job["spec"].pop("completions")
    assert _printer("batch/v1", "Job").cells(job, NOW)[2] == "2/1 of 3"
    running = _job(startTime="2025-01-01T00:58:00Z")
    assert _printer("batch/v1", "Job").cells(running, NOW)[3] == "2m"


def _pod(**status: object) -> dict:
    return {"metadata": {"name": "p", "creationTimestamp": "2025-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "nodeName": "node-0"},
            "status": status}


def test_pod_ready_status_restarts_and_wide_columns() -> None:
    pod = _pod(phase="Running", podIP="10.0.0.1", containerStatuses=[
        {"name": "a", "ready": True, "restartCount": 1, "state": {"running": {}},
         "lastState": {"terminated": {"finishedAt": "2025-01-01T00:59:00Z", "exitCode": 1}}},
        {"name": "b", "ready": False, "restartCount": 0,
         "state": {"waiting": {"reason": "CrashLoopBackOff"}}},
    ])
    cells = _printer("v1", "Pod").cells(pod, NOW)
    assert cells == ["p", "1/2", "CrashLoopBackOff", "1 (60s ago)", "60m", "10.0.0.1", "node-0", "<none>",
                     "<none>"]


@pytest.mark.parametrize(("status", "want"), [
    ({"phase": "Pending"}, "Pending"),
    ({"phase": "Succeeded", "containerStatuses": [
        {"name": "a", "state": {"terminated": {"reason": "Completed", "exitCode": 0}}}]}, "Completed"),
    ({"phase": "Failed", "containerStatuses": [
        {"name": "a", "state": {"terminated": {"exitCode": 3}}}]}, "ExitCode:3"),
    ({"phase": "Failed", "containerStatuses": [
        {"name": "a", "state": {"terminated": {"exitCode": 137, "signal": 9}}}]}, "Signal:9"),
    ({"phase": "Failed", "reason": "Evicted"}, "Evicted"),
    ({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                          "reason": "SchedulingGated"}]}, "SchedulingGated"),
])
def test_pod_status_column(status: dict, want: str) -> None:
    assert _printer("v1", "Pod").cells(_pod(**status), NOW)[2] == want


def test_terminating_pod() -> None:
    pod = _pod(phase="Running")
    pod["metadata"]["deletionTimestamp"] = "2025-01-01T00:59:00Z"
    assert _printer("v1", "Pod").cells(pod, NOW)[2] == "Terminating"


def test_node_columns() -> None:
    node = {"metadata": {"name": "n", "creationTimestamp": "2025-01-01T00:00:00Z",
                         "labels": {"node-role.kubernetes.io/agent": "", "kubernetes.io/role": "agent"}},
            "spec": {"unschedulable": True},
            "status": {"conditions": [{"type": "Ready", "status": "False"}],
                       "nodeInfo": {"kubeletVersion": "v1.32.0"}}}
    want = ["n", "NotReady,SchedulingDisabled", "agent", "60m", "v1.32.0"]
    assert _printer("v1", "Node").cells(node, NOW)[:5] == want


def test_table_shape_and_default_printer() -> None:
    table = build_table([_job()], _printer("batch/v1", "Job"), NOW)
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert [c["name"] for c in table["columnDefinitions"] if not c["priority"]] == [
        "Name", "Status", "Completions", "Duration", "Age"]
    assert table["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    other = build_table([_job()], DEFAULT_PRINTER, NOW, include_object="None")
    assert [c["name"] for c in other["columnDefinitions"]] == ["Name", "Age"]
    assert "object" not in other["rows"][0]


def test_table_accept_header() -> None:
    kubectl = ("application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;"
               "g=meta.k8s.io,application/json")
    assert table_accepted(kubectl)
    assert not table_accepted("application/json")
