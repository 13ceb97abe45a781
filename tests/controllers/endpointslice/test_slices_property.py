"""For any pods and any Service selector, through any sequence of pod changes, the slices the plan
leaves hold exactly the selected pods with an address that are not terminal, each once, at most
``max_endpoints`` per slice, ``ready`` iff the pod is Ready and not terminating (and ``serving`` iff
Ready); a second plan over the result changes nothing (k8s.io/endpointslice ``reconciler.go``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.discovery_v1 import CONTROLLER_NAME, EndpointSlice
from kbatch.controllers.endpointslice import plan_slices
from kbatch.controllers.endpointslice.pods import selects

from .objects import make_pod, make_service, nodes_all

LABELS = st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["a", "b"]), max_size=2)
POD = st.fixed_dictionaries({"labels": LABELS, "ready": st.booleans(), "terminating": st.booleans(),
                             "phase": st.sampled_from(["Pending", "Running", "Succeeded", "Failed"]),
                             "has_ip": st.booleans()})
WORLD = st.lists(st.dictionaries(st.integers(0, 14), POD, max_size=15), min_size=1, max_size=4)


def _pods(spec: dict[int, dict[str, Any]]) -> list[Any]:
    return [make_pod(n, labels=p["labels"], ready=p["ready"], terminating=p["terminating"], phase=p["phase"],
                     ip="" if p["has_ip"] else None) for n, p in sorted(spec.items())]


def _apply(store: dict[str, EndpointSlice], plan: Any, counter: list[int]) -> None:
    for eps in plan.delete:
        del store[eps.metadata.name]
    for eps in plan.update:
        store[eps.metadata.name] = eps
    for eps in plan.create:
        data = eps.model_dump(by_alias=True, exclude_none=True)
        counter[0] += 1
        data["metadata"] |= {"name": f"foo-{counter[0]:05d}", "uid": f"u{counter[0]}"}
        store[data["metadata"]["name"]] = EndpointSlice.model_validate(data)


def _selected(pods: list[Any], selector: dict[str, str]) -> dict[str, Any]:
    return {p.metadata.name: p for p in pods
            if all((p.metadata.labels or {}).get(k) == v for k, v in selector.items())
            and p.status.phase not in ("Succeeded", "Failed") and p.status.pod_ip}


@settings(max_examples=150, deadline=None)
@given(world=WORLD, selector=LABELS, most=st.integers(1, 4))
def test_slices_hold_exactly_the_selected_pods(world: list[dict[int, dict[str, Any]]],
                                               selector: dict[str, str], most: int) -> None:
    service = make_service(selector=selector)
    store: dict[str, EndpointSlice] = {}
    counter = [0]
    for step in world:
        pods = _pods(step)
        chosen = [p for p in pods if selects(selector, p.metadata.labels)]  # the controller's label lookup
        _apply(store, plan_slices(service, chosen, nodes_all, list(store.values()), CONTROLLER_NAME, most),
               counter)
        want = _selected(pods, selector)
        seen = [e.target_ref.name for eps in store.values() for e in eps.endpoints or ()]
        assert sorted(seen) == sorted(want)  # each selected pod exactly once, no other
        assert all(len(eps.endpoints or ()) <= most for eps in store.values())
        for eps in store.values():
            for endpoint in eps.endpoints or ():
                pod = want[endpoint.target_ref.name]
                ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions)
                terminating = pod.metadata.deletion_timestamp is not None
                assert endpoint.conditions.ready == (ready and not terminating)
                assert endpoint.conditions.serving == ready
                assert endpoint.conditions.terminating == terminating
        assert store  # never no slice at all: the placeholder stands for an empty Service
        again = plan_slices(service, chosen, nodes_all, list(store.values()), CONTROLLER_NAME, most)
        assert (again.create, again.update, again.delete) == ([], [], [])
