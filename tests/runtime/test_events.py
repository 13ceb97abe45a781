"""The event recorder: client-go's names, fields, dedup (count/lastTimestamp) and aggregation."""

from __future__ import annotations

from _support import make_cp

from kbatch.api.core_v1 import Event, Node
from kbatch.testing import make_node, make_pod


def _events(cp) -> list[Event]:  # type: ignore[no-untyped-def]
    return cp.client.list(Event, "default").items


def test_event_fields_and_name() -> None:
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    cp.advance(1.5)
    cp.recorder("job-controller").event(pod, "Normal", "Started", "Started container")
    (event,) = _events(cp)
    assert event.metadata.name == f"p.{1735689601_500000000:x}"
    assert event.involved_object.kind == "Pod" and event.involved_object.uid == pod.metadata.uid
    assert (event.reason, event.message, event.type, event.count) == (
        "Started", "Started container", "Normal", 1)
    assert event.source.component == "job-controller"
    assert event.first_timestamp == event.last_timestamp == cp.now().replace(microsecond=0)


def test_identical_events_are_counted_not_duplicated() -> None:
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    rec = cp.recorder("kubelet")
    rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    cp.advance(30)
    rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    rec.event(pod, "Warning", "BackOff", "something else")
    events = _events(cp)
    assert sorted((e.message, e.count) for e in events) == [
        ("Back-off restarting failed container", 3), ("something else", 1)]
    counted = next(e for e in events if e.count == 3)
    assert (counted.last_timestamp - counted.first_timestamp).total_seconds() == 30


def test_similar_events_are_aggregated_after_ten() -> None:
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    rec = cp.recorder("scheduler")
    for i in range(14):
        rec.event(pod, "Warning", "FailedScheduling", f"0/{i} nodes are available")
    events = _events(cp)
    combined = [e for e in events if e.message.startswith("(combined from similar events): ")]
    # upstream EventAggregate: the 10th distinct message is already combined (Len() < maxEvents)
    assert len(events) == 10 and len(combined) == 1 and combined[0].count == 5
    assert combined[0].message == "(combined from similar events): 0/13 nodes are available"


def test_similar_events_start_over_after_ten_quiet_minutes() -> None:
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    rec = cp.recorder("scheduler")
    for i in range(9):
        rec.event(pod, "Warning", "FailedScheduling", f"a{i}")
    cp.advance(601)
    rec.event(pod, "Warning", "FailedScheduling", "b")
    assert not any(e.message.startswith("(combined") for e in _events(cp))


def test_spam_filter_allows_25_per_source_and_object_then_one_per_five_minutes() -> None:
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    other = cp.apply(make_pod("q").obj())[0]
    rec = cp.recorder("kubelet")
    for _ in range(30):
        rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    (event,) = _events(cp)
    assert event.count == 25, "the 26th..30th are dropped by the token bucket (burst 25)"
    rec.event(other, "Warning", "BackOff", "Back-off restarting failed container")
    cp.recorder("other").event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    assert len(_events(cp)) == 3, "the bucket is per (source, object)"
    cp.advance(299)
    rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    assert _event_count(cp, "p", "kubelet") == 25
    cp.advance(2)
    rec.event(pod, "Warning", "BackOff", "Back-off restarting failed container")
    assert _event_count(cp, "p", "kubelet") == 32, "dropped occurrences are still counted"


def _event_count(cp, name: str, component: str) -> int:  # type: ignore[no-untyped-def]
    (event,) = [e for e in _events(cp) if e.involved_object.name == name and e.source.component == component]
    return event.count


def test_cluster_scoped_objects_get_events_in_default() -> None:
    cp = make_cp()
    node = cp.apply(make_node("n1").obj())[0]
    assert isinstance(node, Node)
    cp.recorder("node-controller").event(node, "Normal", "RegisteredNode", "Node n1 registered")
    (event,) = _events(cp)
    assert event.involved_object.name == "n1" and event.metadata.namespace == "default"


def test_each_component_keeps_its_own_correlator_caches() -> None:
    """One EventCorrelator per broadcaster (client-go tools/record): another component's events about
    more objects than the 4096-entry LRU holds do not evict this component's spam bucket."""
    cp = make_cp()
    pod = cp.apply(make_pod("p").obj())[0]
    rec = cp.recorder("job-controller")
    for _ in range(25):
        rec.event(pod, "Warning", "BackOff", "Back-off")
    noisy = cp.recorder("default-scheduler")
    for i in range(4100):  # distinct (fake) objects: more keys than one LRU keeps
        noisy.event(make_pod(f"x{i}").obj(), "Normal", "Scheduled", "assigned")
    rec.event(pod, "Warning", "BackOff", "Back-off")
    assert _event_count(cp, "p", "job-controller") == 25, "the 26th is still dropped"
