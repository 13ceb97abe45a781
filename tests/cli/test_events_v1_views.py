"""What users see of the scheduler's events.k8s.io/v1 Events (docs/runtime.md, "Events through
events.k8s.io/v1"): ``get events -o wide`` shows the source as ``reportingController,
reportingInstance`` (``printEvent``'s ``formatEventSource``), ``describe`` shows ``default-scheduler``
in From (``DescribeEvents`` falls back to ``reportingController``) and a series as ``(xN over ...)``,
``events`` sorts by the series' ``lastObservedTime`` (kubectl's ``SortableEvents``), and the same
commands give the same trace."""

from __future__ import annotations

import json
from pathlib import Path

from .runners import CliInProcess, Commands

PODS = """\
apiVersion: v1
kind: Pod
metadata: {name: small}
spec:
  containers: [{name: c, image: busybox, command: [sh, -c, 'sleep 3600'], resources: {requests: {cpu: '1'}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge}
spec:
  containers: [{name: c, image: busybox, resources: {requests: {cpu: '64'}}}]
"""


def _session(tmp: Path) -> tuple[Commands, str]:
    kb = Commands(tmp, CliInProcess(tmp / "state"))
    kb.ok("nodes", "add")
    kb.ok("apply", "-f", kb.file("pods.yaml", PODS))
    kb.ok("advance", "11m")  # huge is retried after 5 and 10 minutes: a series
    return kb, kb.ok("trace", "--digest").strip()


def test_the_scheduler_s_events_as_users_see_them(tmp_path: Path) -> None:
    kb, digest = _session(tmp_path / "a")
    wide = [line.split() for line in kb.ok("get", "events", "-o", "wide").splitlines()]
    scheduled = next(r for r in wide if "Scheduled" in r)
    assert "default-scheduler," in scheduled and "default-scheduler-kind-control-plane" in scheduled
    listed = json.loads(kb.ok("get", "events.events.k8s.io", "-o", "json"))["items"]
    failed = [(e["eventTime"], e.get("series"), e["action"], e["reportingController"]) for e in listed
              if e["reason"] == "FailedScheduling"]
    # the first failure's pod had another resourceVersion (the PodScheduled condition was written
    # after it): its Event stays a singleton; the retries at 5 and 10 minutes make one series
    assert sorted(failed, key=str) == [
        ("2025-01-01T00:00:00.000000Z", None, "Scheduling", "default-scheduler"),
        ("2025-01-01T00:05:00.000000Z", {"count": 2, "lastObservedTime": "2025-01-01T00:10:00.000000Z"},
         "Scheduling", "default-scheduler")]
    page = kb.ok("describe", "pod", "huge")
    rows = [line.split()[:7] for line in page.splitlines() if "FailedScheduling" in line]
    assert rows == [["Warning", "FailedScheduling", "11m", "default-scheduler", "0/1", "nodes", "are"],
                    ["Warning", "FailedScheduling", "60s", "(x2", "over", "6m)", "default-scheduler"]]
    assert "default-scheduler  Successfully assigned default/small" in kb.ok("describe", "pod", "small")
    reasons = [line.split()[2] for line in kb.ok("events").splitlines()[1:]]
    # the series (eventTime 00:05, last observed 00:10) sorts last, after the singletons of 00:00
    assert reasons[-1] == "FailedScheduling" and reasons.count("FailedScheduling") == 2
    _, digest_again = _session(tmp_path / "b")
    assert digest_again == digest
