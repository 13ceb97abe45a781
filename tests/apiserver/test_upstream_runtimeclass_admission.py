"""Upstream's RuntimeClass admission tables, through kbatch's API server (each case a pod create).

Source: kubernetes/kubernetes ``plugin/pkg/admission/runtimeclass/admission_test.go``
(``TestSetOverhead``, ``TestSetScheduling``, ``TestAdmit``, ``TestValidate``, ``TestValidateOverhead``)
against ``admission.go``. Upstream calls the plugin's functions directly with a class in hand; here the
class is stored and the pod names it, so the whole chain (defaulting, every mutating plugin, validation,
every validating plugin) runs, and "No RuntimeClass, Overhead set in pod" is a pod naming no class.
``TestValidateInitialization`` checks Go wiring (lister and client set) that has no counterpart here.
Pod tolerations: ``pkg/util/tolerations`` ``MergeTolerations`` (``tolerations_test.go``'s
``TestMergeTolerations`` rule, as a property).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod, Toleration
from kbatch.api.errors import Forbidden
from kbatch.api.node_v1 import RuntimeClass
from kbatch.apiserver import APIServer
from kbatch.apiserver.admission_plugins.runtime_class import (
    is_superset,
    merge_node_selector,
    merge_tolerations,
)
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock

SMALL = {"cpu": "100m", "memory": "1"}
BIG = {"cpu": "10", "memory": "10G"}
GUARANTEED = {"limits": {"cpu": "1", "memory": "10"}, "requests": {"cpu": "1", "memory": "10"}}


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(3))


def _class(api: APIServer, *, overhead: dict[str, str] | None = None,
           scheduling: dict[str, Any] | None = None, name: str = "foo") -> None:
    body: dict[str, Any] = {"metadata": {"name": name}, "handler": "bar"}
    if overhead is not None:
        body["overhead"] = {"podFixed": overhead}
    if scheduling is not None:
        body["scheduling"] = scheduling
    api.create(RuntimeClass.model_validate(body))


def _pod(*, runtime_class: str | None = "foo", overhead: dict[str, str] | None = None,
         resources: dict[str, Any] | None = None, node_selector: dict[str, str] | None = None,
         tolerations: list[dict[str, Any]] | None = None) -> Pod:
    container = {"name": "foo-0", "image": "foo:V0", "resources": resources or {}}
    spec: dict[str, Any] = {"containers": [container], "runtimeClassName": runtime_class,
                            "overhead": overhead, "nodeSelector": node_selector, "tolerations": tolerations}
    return Pod.model_validate({"metadata": {"name": "pod", "namespace": "default"}, "spec": spec})


def _overhead(pod: Pod) -> dict[str, str] | None:
    return None if pod.spec.overhead is None else {k: str(v) for k, v in pod.spec.overhead.items()}


# --- TestSetOverhead ------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "resources", "given_overhead"), [
    ("overhead, no container requirements", None, None),
    ("overhead, guaranteed pod", GUARANTEED, None),
    ("overhead, pod with same overhead already set", None, SMALL),
])
def test_set_overhead(api: APIServer, name: str, resources: dict[str, Any] | None,
                      given_overhead: dict[str, str] | None) -> None:
    _class(api, overhead=SMALL)
    created = api.create(_pod(resources=resources, overhead=given_overhead))
    assert _overhead(created) == SMALL


def test_set_overhead_refuses_a_differing_overhead(api: APIServer) -> None:
    """"overhead, pod with differing overhead already set": the mutating half refuses it."""
    _class(api, overhead=BIG)
    with pytest.raises(Forbidden) as err:
        api.create(_pod(overhead=SMALL))
    assert err.value.status.message == ('pods "pod" is forbidden: pod rejected: Pod\'s Overhead doesn\'t '
                                        "match RuntimeClass's defined Overhead")


def test_overhead_is_compared_by_value(api: APIServer) -> None:
    """``apiequality.Semantic``: ``0.1`` equals ``100m``."""
    _class(api, overhead=SMALL)
    assert _overhead(api.create(_pod(overhead={"cpu": "0.1", "memory": "1"}))) == SMALL


# --- TestSetScheduling ----------------------------------------------------------------------------

FOO_BAR = {"key": "foo", "operator": "Equal", "value": "bar", "effect": "NoSchedule"}
FIZZ_BUZZ = {"key": "fizz", "operator": "Equal", "value": "buzz", "effect": "NoSchedule"}

SCHEDULING = [
    ("scheduling, nil scheduling", None, {"foo": "bar"}, None, {"foo": "bar"}, None),
    ("scheduling, nil node selector", {"nodeSelector": {"foo": "bar"}}, None, None, {"foo": "bar"}, None),
    ("scheduling, node selector with the same key value", {"nodeSelector": {"foo": "bar"}}, {"foo": "bar"},
     None, {"foo": "bar"}, None),
    ("scheduling, node selector with different key value", {"nodeSelector": {"foo": "bar", "fizz": "buzz"}},
     {"foo": "bar"}, None, {"foo": "bar", "fizz": "buzz"}, None),
    ("scheduling, multiple tolerations", {"tolerations": [FOO_BAR, FIZZ_BUZZ]}, {"foo": "bar"}, [FOO_BAR],
     {"foo": "bar"}, [FOO_BAR, FIZZ_BUZZ]),
]


@pytest.mark.parametrize(("scheduling", "selector", "tolerations", "want_selector", "want_tolerations"),
                         [c[1:] for c in SCHEDULING], ids=[c[0] for c in SCHEDULING])
def test_set_scheduling(api: APIServer, scheduling: dict[str, Any] | None, selector: dict[str, str] | None,
                        tolerations: list[dict[str, Any]] | None, want_selector: dict[str, str],
                        want_tolerations: list[dict[str, Any]] | None) -> None:
    _class(api, scheduling=scheduling)
    created = api.create(_pod(node_selector=selector, tolerations=tolerations))
    assert created.spec.node_selector == want_selector
    # DefaultTolerationSeconds (before RuntimeClass, as upstream) adds its two; the class's come after
    held = [t.to_dict() for t in created.spec.tolerations or () if t.key not in (
        "node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable")]
    assert held == (want_tolerations or [])


def test_set_scheduling_refuses_a_conflicting_node_selector(api: APIServer) -> None:
    _class(api, scheduling={"nodeSelector": {"foo": "conflict"}})
    with pytest.raises(Forbidden) as err:
        api.create(_pod(node_selector={"foo": "bar"}))
    assert err.value.status.message == ('pods "pod" is forbidden: conflict: runtimeClass.scheduling.'
                                        "nodeSelector[foo] = conflict; pod.spec.nodeSelector[foo] = bar")
    assert api.list(Pod, "default").items == []  # no partial write


# --- TestAdmit ------------------------------------------------------------------------------------

def test_admit_finds_the_class_or_refuses_the_pod(api: APIServer) -> None:
    with pytest.raises(Forbidden) as err:
        api.create(_pod(runtime_class="runtimeclassname"))
    assert err.value.status.message == ('pods "pod" is forbidden: pod rejected: RuntimeClass '
                                        '"runtimeclassname" not found')
    _class(api, name="runtimeclassname")
    assert api.create(_pod(runtime_class="runtimeclassname")).spec.overhead is None


# --- TestValidate, TestValidateOverhead -----------------------------------------------------------

WITHOUT = ('pods "pod" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass '
           "defined Overhead")


@pytest.mark.parametrize(("name", "class_overhead", "runtime_class", "pod_overhead", "resources",
                          "refusal"), [
    ("No Overhead in RuntimeClass, Overhead set in pod", None, "foo", SMALL, GUARANTEED, WITHOUT),
    ("No RuntimeClass, Overhead set in pod", None, None, SMALL, GUARANTEED, WITHOUT),
    ("Non-matching Overheads", BIG, "foo", SMALL, None, "match RuntimeClass's defined Overhead"),
    ("Matching Overheads", SMALL, "foo", SMALL, None, None),
    ("Overhead part of RuntimeClass, no Overhead defined in pod (set by Admit)", SMALL, "foo", None, None,
     None),
])
def test_validate_overhead(api: APIServer, name: str, class_overhead: dict[str, str] | None,
                           runtime_class: str | None, pod_overhead: dict[str, str] | None,
                           resources: dict[str, Any] | None, refusal: str | None) -> None:
    _class(api, overhead=class_overhead)
    pod = _pod(runtime_class=runtime_class, overhead=pod_overhead, resources=resources)
    if refusal is None:
        assert _overhead(api.create(pod)) == SMALL
        return
    with pytest.raises(Forbidden) as err:
        api.create(pod)
    assert refusal in err.value.status.message


def test_updates_are_not_admitted(api: APIServer) -> None:
    """The plugin's handler admits creates only: a pod's update is not looked at again (a class deleted
    since does not block it)."""
    _class(api, overhead=SMALL)
    created = api.create(_pod())
    api.delete(RuntimeClass, "foo")
    pod = created.model_copy(deep=True)
    pod.metadata.labels = {"a": "b"}
    assert _overhead(api.update(pod)) == SMALL


# --- MergeTolerations -----------------------------------------------------------------------------

tolerations = st.builds(
    Toleration,
    key=st.sampled_from(["", "a", "b"]), operator=st.sampled_from(["Equal", "Exists"]),
    value=st.sampled_from(["", "x"]), effect=st.sampled_from(["", "NoSchedule", "NoExecute"]),
    toleration_seconds=st.none())


@given(st.lists(tolerations, max_size=4), st.lists(tolerations, max_size=4))
def test_merged_tolerations_cover_every_input_and_add_nothing(first: list[Toleration],
                                                              second: list[Toleration]) -> None:
    merged = merge_tolerations(first, second)
    assert all(any(is_superset(kept, t) for kept in merged) for t in [*first, *second])
    assert all(any(kept is t for t in [*first, *second]) for kept in merged)
    assert len(merged) <= len(first) + len(second)


def test_merge_keeps_the_wider_toleration() -> None:
    """``tolerations_test.go``: an Exists toleration of a key covers an Equal one of the same key."""
    equal = Toleration(key="a", operator="Equal", value="x", effect="NoSchedule")
    exists = Toleration(key="a", operator="Exists")
    assert merge_tolerations([equal], [exists]) == [exists]
    assert merge_tolerations([exists], [equal]) == [exists]


selectors = st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["x", "y"]), max_size=3)


@given(st.none() | selectors, st.none() | selectors)
def test_node_selectors_merge_or_conflict(pod: dict[str, str] | None, runtime: dict[str, str] | None) -> None:
    """``setScheduling``: a conflict exactly when a key both set differs; otherwise the merge holds both."""
    merged, conflict = merge_node_selector(pod, runtime)
    clash = sorted(k for k in (pod or {}) if k in (runtime or {}) and pod[k] != runtime[k])  # type: ignore[index]
    assert (conflict is not None) == bool(clash)
    if conflict is None:
        neither = pod is None and runtime is None
        assert merged == (None if neither else {**(pod or {}), **(runtime or {})})
    else:
        assert f"nodeSelector[{clash[0]}]" in conflict
