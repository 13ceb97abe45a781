"""``kubectl describe``'s Events table: the From column (k8s.io/kubectl ``pkg/describe/describe.go``
``DescribeEvents``: ``source.component``, else the event's ReportingController, whose core/v1 wire
name is ``reportingComponent``, k8s.io/api ``core/v1/types.go``)."""

from __future__ import annotations

from datetime import UTC, datetime

from kbatch.families.core.describe_text import events_table

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_from_falls_back_to_reporting_component() -> None:
    event = {"type": "Normal", "reason": "Scheduled", "message": "assigned", "source": {},
             "reportingComponent": "default-scheduler", "reportingInstance": "sched-0",
             "eventTime": "2026-05-31T23:59:00.000000Z"}
    row = events_table([event], NOW).splitlines()[-1].split()
    assert row == ["Normal", "Scheduled", "60s", "default-scheduler", "assigned"]
