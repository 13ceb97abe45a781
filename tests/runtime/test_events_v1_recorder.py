"""The events.k8s.io/v1 recorder (:mod:`kbatch.runtime.events_v1`) against client-go's ``tools/events``
(``event_recorder.go`` ``makeEvent``; ``event_broadcaster.go`` ``recordToSink``,
``refreshExistingEventSeries``, ``finishSeries``), on the virtual clock."""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Event
from kbatch.api.events_v1 import from_storage
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.events import ObjectRef

POD = ObjectRef("Pod", "v1", "p", "default", "uid-p", "7")
OTHER = ObjectRef("Pod", "v1", "q", "default", "uid-q")


def _plane() -> tuple[ControlPlane, Any]:
    cp = ControlPlane(controllers="")
    return cp, cp.broadcasters.recorder("example", "example.com/ctl", "host-1")


def _events(cp: ControlPlane) -> list[dict[str, Any]]:
    return [from_storage(e.to_dict()) for e in cp.client.list(Event, "default").items]


def test_an_event_is_written_as_make_event_builds_it() -> None:
    cp, rec = _plane()
    cp.advance("1.5s")
    rec.eventf(POD, OTHER, "Normal", "Tested", "Testing", "pod %s on %s", "p", "n1")
    [event] = _events(cp)
    assert event["metadata"]["name"] == "p.1816687f19bf2f00"  # <name>.<hex nanos of 00:00:01.5>
    assert {k: event[k] for k in ("eventTime", "reportingController", "reportingInstance", "action",
                                  "reason", "note", "type")} == {
        "eventTime": "2025-01-01T00:00:01.500000Z", "reportingController": "example.com/ctl",
        "reportingInstance": "example.com/ctl-host-1", "action": "Testing", "reason": "Tested",
        "note": "pod p on n1", "type": "Normal"}
    assert event["regarding"] == {"kind": "Pod", "apiVersion": "v1", "name": "p", "namespace": "default",
                                  "uid": "uid-p", "resourceVersion": "7"}
    assert event["related"]["name"] == "q"
    assert not {"deprecatedCount", "deprecatedSource", "deprecatedFirstTimestamp", "series"} & set(event)


def _series(cp: ControlPlane) -> list[tuple[str, Any]]:
    return sorted((e["metadata"]["name"], e.get("series")) for e in _events(cp))


def test_a_repeat_makes_a_series_that_is_written_on_the_second_and_at_each_sweep() -> None:
    cp, rec = _plane()
    rec.eventf(POD, None, "Warning", "Failed", "Trying", "no")
    cp.advance("1m")
    rec.eventf(POD, None, "Warning", "Failed", "Trying", "no")  # the second: series of 2, written
    [(name, series)] = _series(cp)
    assert series == {"count": 2, "lastObservedTime": "2025-01-01T00:01:00.000000Z"}
    for _ in range(3):  # later ones only bump the cached series ...
        cp.advance("1m")
        rec.eventf(POD, None, "Warning", "Failed", "Trying", "no")
    assert _series(cp) == [(name, series)]
    cp.advance("8m")  # ... written when it has been quiet for 6 minutes (the sweep at 00:12), then dropped
    assert _series(cp) == [(name, {"count": 5, "lastObservedTime": "2025-01-01T00:04:00.000000Z"})]
    rec.eventf(POD, None, "Warning", "Failed", "Trying", "no")  # a new Event: the series was finished
    assert len(_series(cp)) == 2


def test_a_series_still_going_is_refreshed_every_30_minutes() -> None:
    cp, rec = _plane()
    for _ in range(8):  # one every 5 minutes: never quiet for 6
        rec.eventf(POD, None, "Normal", "Tick", "Ticking", "again")
        cp.advance("5m")
    # the refresh runs as the clock reaches 00:30, before the event recorded at that instant: it wrote
    # the series as it was then; the later ones are only cached
    assert _series(cp)[0][1] == {"count": 6, "lastObservedTime": "2025-01-01T00:25:00.000000Z"}


def test_a_singleton_leaves_the_cache_after_6_minutes_and_a_gone_series_is_created_again() -> None:
    cp, rec = _plane()
    rec.eventf(POD, None, "Normal", "Once", "Doing", "x")
    cp.advance("13m")  # the sweeps at 00:06 (not yet older) and 00:12 (dropped)
    rec.eventf(POD, None, "Normal", "Once", "Doing", "x")
    assert [s for _, s in _series(cp)] == [None, None], "a second singleton, not a series"
    [_first, second] = sorted(e["metadata"]["name"] for e in _events(cp))
    cp.client.delete(Event, second, "default")
    rec.eventf(POD, None, "Normal", "Once", "Doing", "x")  # the series patch finds nothing: created
    assert (second, {"count": 2, "lastObservedTime": "2025-01-01T00:13:00.000000Z"}) in _series(cp)


def test_no_spam_filter_or_aggregation_and_the_note_is_not_in_the_key() -> None:
    cp, rec = _plane()
    for i in range(30):  # tools/record would drop after 25 per object
        rec.eventf(POD, None, "Normal", f"Step{i}", "Stepping", "step %d", i)
    assert len(_events(cp)) == 30
    cp2, rec2 = _plane()
    for i in range(12):  # tools/record would combine them from the 10th distinct message on
        rec2.eventf(POD, None, "Normal", "Step", "Stepping", "step %d", i)
    [event] = _events(cp2)  # getKey has no note: one series, with the first note
    assert (event["note"], event["series"]["count"]) == ("step 0", 2)


def test_the_keys_differ_by_regarding_resource_version_and_related() -> None:
    cp, rec = _plane()
    rec.eventf(POD, None, "Normal", "R", "A", "m")
    rec.eventf(ObjectRef("Pod", "v1", "p", "default", "uid-p", "8"), None, "Normal", "R", "A", "m")
    rec.eventf(POD, OTHER, "Normal", "R", "A", "m")
    assert [s for _, s in _series(cp)] == [None, None, None]
