"""ServiceSelectors (the system default spreading's selector, upstream ``helper.DefaultSelector``):
the indexed lookup finds exactly the Services a scan of the namespace finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.controllers.scheduler.plugins.service_selectors import ServiceSelectors
from kbatch.controllers.scheduler.types import LabelSelector, PodInfo

KEYS, VALUES, NAMESPACES = ["a", "b", "c"], ["x", "y"], ["ns1", "ns2"]
selectors = st.none() | st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)
labels = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=3)
operations = st.lists(
    st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(["s1", "s2", "s3", "s4"]),
              st.none() | selectors, st.booleans()), max_size=12)


def scanned(services: dict[tuple[str, str], dict[str, str]], pod: PodInfo) -> LabelSelector | None:
    """Upstream's way: every Service of the namespace whose (non-nil) selector matches, merged."""
    merged: dict[str, str] = {}
    found = False
    for (namespace, _), selector in sorted(services.items()):
        if namespace == pod.namespace and all(pod.labels.get(k) == v for k, v in selector.items()):
            found = True
            merged.update(selector)
    return LabelSelector(tuple(sorted(merged.items()))) if found and merged else None


@settings(max_examples=300, deadline=None)
@given(operations, st.lists(st.tuples(st.sampled_from(NAMESPACES), labels), min_size=1, max_size=6))
def test_indexed_lookup_matches_a_scan_of_the_namespace(ops, pods) -> None:
    index = ServiceSelectors()
    services: dict[tuple[str, str], dict[str, str]] = {}
    for i, (namespace, name, selector, delete) in enumerate(ops):
        if delete:
            index.delete(namespace, name)
            services.pop((namespace, name), None)
        else:
            index.set(namespace, name, selector)
            if selector is None:  # a nil selector selects nothing
                services.pop((namespace, name), None)
            else:
                services[(namespace, name)] = selector
        for j, (pod_ns, pod_labels) in enumerate(pods):  # asked between changes: no stale index
            pod = PodInfo(pod_ns, f"p{i}-{j}", labels=pod_labels)
            assert index.selector_for(pod) == scanned(services, pod)
            assert index.in_namespace(pod_ns) == any(ns == pod_ns for ns, _ in services)


def test_a_jobset_pod_gets_its_own_jobsets_service_among_many() -> None:
    index = ServiceSelectors()
    for i in range(100):
        index.set("default", f"bench-{i}", {"jobset.sigs.k8s.io/jobset-name": f"bench-{i}"})
    index.set("default", "everything", {})
    pod = PodInfo("default", "p", labels={"jobset.sigs.k8s.io/jobset-name": "bench-42", "x": "y"})
    assert index.selector_for(pod) == LabelSelector((("jobset.sigs.k8s.io/jobset-name", "bench-42"),))
    index.delete("default", "bench-42")
    assert index.selector_for(pod) is None  # the empty selector alone merges to nothing
