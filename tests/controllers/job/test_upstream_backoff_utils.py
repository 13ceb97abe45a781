"""``backoff_utils_test.go``'s cases against kbatch's back-off helpers.

Source: kubernetes/kubernetes ``pkg/controller/job/backoff_utils_test.go`` (stored commit 0bee0bca):
``TestNewBackoffRecord`` (→ ``fold_backoff``), ``TestGetFinishedTime`` (→ ``finish_time``),
``TestGetRemainingBackoffTime`` (→ ``remaining_time``), ``TestGetRemainingBackoffTimePerIndex``
(→ ``remaining_for_index``). The upstream tests are of pure helpers kbatch has too; pods are
written as API objects, decoded and adapted to the core's views (``adapt.pod_info``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.controllers.job.adapt import job_info, pod_info
from kbatch.controllers.job.backoff import BackoffRecord, fold_backoff, remaining_for_index, remaining_time
from kbatch.controllers.job.classification import finish_time, sidecar_names

T = datetime(2009, 11, 10, 23, 0, 0, tzinfo=UTC)
FC = "batch.kubernetes.io/job-index-failure-count"
IFC = "batch.kubernetes.io/job-index-ignored-failure-count"


def _ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}Z"


def _state(finished: datetime | str | None) -> dict[str, Any]:
    if finished == "running":
        return {"running": {}}
    return {"terminated": {"exitCode": 0, **({"finishedAt": _ts(finished)} if finished else {})}}


def pod(containers: list[Any] = (), *, meta: dict[str, Any] | None = None, conditions: list[Any] = (),
        init: list[tuple[str, Any]] = (), phase: str | None = None) -> Any:
    statuses = [{"name": f"c{i}", "image": "i", "imageID": "", "ready": False, "restartCount": 0,
                 "state": _state(f)} for i, f in enumerate(containers)]
    inits = [{"name": n, "image": "i", "imageID": "", "ready": False, "restartCount": 0, "state": _state(f)}
             for n, f in init]
    status: dict[str, Any] = {"containerStatuses": statuses, "conditions": list(conditions)}
    if inits:
        status["initContainerStatuses"] = inits
    if phase:
        status["phase"] = phase
    body = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", **(meta or {})},
            "spec": {"containers": [{"name": "c0", "image": "i"}]}, "status": status}
    return pod_info(Pod.model_validate(body))


# -- TestNewBackoffRecord ------------------------------------------------------------------------
def _ms(n: int) -> datetime:
    return T + timedelta(milliseconds=n)


# name: (initial record, succeeded finish times, failed finish times, want record)
NEW_RECORD: dict[str, tuple[Any, ...]] = {
    "Empty backoff store and one new failure": (None, [], [_ms(0)], BackoffRecord(1, T)),
    "Empty backoff store and two new failures": (None, [], [_ms(0), _ms(-1)], BackoffRecord(2, T)),
    "Empty backoff store, two failures followed by success": (
        None, [_ms(0)], [_ms(-2), _ms(-1)], BackoffRecord(0, None)),
    "Empty backoff store, two failures, one success and two more failures": (
        None, [_ms(-2)], [_ms(0), _ms(-4), _ms(-3), _ms(-1)], BackoffRecord(2, T)),
    "Backoff store having failure count 2 and one new failure": (
        BackoffRecord(2, None), [], [_ms(0)], BackoffRecord(3, T)),
    "Empty backoff store with success and failure at same timestamp": (
        None, [_ms(0)], [_ms(0)], BackoffRecord(0, None)),
    "Empty backoff store with no success/failure": (None, [], [], BackoffRecord(0, None)),
    "Empty backoff store with one success": (None, [_ms(0)], [], BackoffRecord(0, None)),
}


@pytest.mark.parametrize("name", list(NEW_RECORD))
def test_new_backoff_record(name: str) -> None:
    record, ok, bad, want = NEW_RECORD[name]
    succeeded = [pod([t], phase="Succeeded") for t in ok]
    failed = [pod([t], phase="Failed") for t in bad]
    assert fold_backoff(record, succeeded, failed) == want


# -- TestGetFinishedTime -------------------------------------------------------------------------
def _ready(status: str, at: datetime) -> dict[str, Any]:
    return {"type": "Ready", "status": status, "reason": "PodFailed", "lastTransitionTime": _ts(at)}


FINISHED: dict[str, tuple[Any, datetime]] = {
    "Pod with multiple containers and all containers terminated": (
        lambda: pod([T - timedelta(seconds=1), T, T - timedelta(seconds=2)]), T),
    "Pod with multiple containers; two containers in terminated state and one in running state; "
    "fallback to deletionTimestamp": (
        lambda: pod([T - timedelta(seconds=1), "running", T - timedelta(seconds=2)],
                    meta={"deletionTimestamp": _ts(T)}), T),
    "fallback to deletionTimestamp": (lambda: pod(["running"], meta={"deletionTimestamp": _ts(T)}), T),
    "fallback to deletionTimestamp, decremented by grace period": (
        lambda: pod(["running"], meta={"deletionTimestamp": _ts(T), "deletionGracePeriodSeconds": 30}),
        T - timedelta(seconds=30)),
    "fallback to PodReady.LastTransitionTime when status of the condition is False": (
        lambda: pod([None], conditions=[_ready("False", T)]), T),
    "skip fallback to PodReady.LastTransitionTime when status of the condition is True": (
        lambda: pod([None], conditions=[_ready("True", T - timedelta(seconds=30))],
                    meta={"deletionTimestamp": _ts(T)}), T),
    "fallback to creationTimestamp": (lambda: pod([None], meta={"creationTimestamp": _ts(T)}), T),
}


@pytest.mark.parametrize("name", list(FINISHED))
def test_get_finished_time(name: str) -> None:
    build, want = FINISHED[name]
    assert finish_time(build()) == want


def test_get_finished_time_pod_with_sidecar_container_and_all_containers_terminated() -> None:
    # the sidecar (a restartable init container) ends after the regular containers
    job = Job.model_validate({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
                              "spec": {"template": {"spec": {
                                  "restartPolicy": "Never", "containers": [{"name": "c0", "image": "i"}],
                                  "initContainers": [{"name": "sidecar", "image": "i",
                                                      "restartPolicy": "Always"}]}}}})
    p = pod([T - timedelta(seconds=1)], init=[("sidecar", T)])
    assert finish_time(p, sidecar_names(job_info(job))) == T


# -- TestGetRemainingBackoffTime (base 5 s, cap 700 s) ---------------------------------------------
REMAINING: dict[str, tuple[int, int, float]] = {  # failures, seconds since the failure, want
    "one failure; current time and failure time are same": (1, 0, 5),
    "one failure; current time == 1 second + failure time": (1, 1, 4),
    "one failure; current time == expected backoff time": (1, 5, 0),
    "one failure; current time == expected backoff time + 1 Second": (1, 6, 0),
    "three failures; current time and failure time are same": (3, 0, 20),
    "eight failures; current time and failure time are same; backoff not exceeding maxBackoff": (8, 0, 640),
    "nine failures; current time and failure time are same; backoff exceeding maxBackoff": (9, 0, 700),
}


def test_get_remaining_backoff_time_no_failures() -> None:
    assert remaining_time(BackoffRecord(0, None), T, 5, 700) == 0


@pytest.mark.parametrize("name", list(REMAINING))
def test_get_remaining_backoff_time(name: str) -> None:
    failures, elapsed, want = REMAINING[name]
    assert remaining_time(BackoffRecord(failures, T), T + timedelta(seconds=elapsed), 5, 700) == want


# -- TestGetRemainingBackoffTimePerIndex ----------------------------------------------------------
def _failed(counts: dict[str, str]) -> Any:
    return pod(["running"], phase="Failed", meta={"annotations": counts, "deletionTimestamp": _ts(T)})


PER_INDEX: dict[str, tuple[Any, float]] = {
    "no failures": (None, 0),
    "two prev failures; current time and failure time are same": (lambda: _failed({FC: "2"}), 20),
    "one prev failure counted and one ignored; current time and failure time are same": (
        lambda: _failed({FC: "1", IFC: "1"}), 20),
}


@pytest.mark.parametrize("name", list(PER_INDEX))
def test_get_remaining_backoff_time_per_index(name: str) -> None:
    build, want = PER_INDEX[name]
    assert remaining_for_index(build() if build else None, T, 5, 700) == want
