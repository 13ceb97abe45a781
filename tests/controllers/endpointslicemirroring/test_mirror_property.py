"""Invariants of the mirroring plan (kubernetes ``pkg/controller/endpointslicemirroring``), for any
Endpoints and any mirrored slices left from before:

* after one sync the slices hold exactly the Endpoints' addresses, each once per port set, with its
  readiness and address type, at most ``most`` of each repacked subset (ready ones first; addresses
  that are not IPs left out), never more than ``most`` in a slice;
* a second sync over the result writes nothing (idempotent);
* the plan is a function of its input (deterministic).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Endpoints
from kbatch.api.strategies.core.endpoints_repack import repack_subsets
from kbatch.controllers.endpointslicemirroring import plan_mirror
from kbatch.controllers.endpointslicemirroring.desired import address_type, port_key
from kbatch.controllers.endpointslicemirroring.reconciler import MirrorPlan
from tests.controllers.endpointslicemirroring.objects import apply_plan, make_endpoints

IPS = [f"10.0.0.{i}" for i in range(1, 9)] + [f"fd00::{i}" for i in range(1, 4)] + ["not-an-ip"]
PORTS = [{"name": "http", "port": 80, "protocol": "TCP"}, {"name": "dns", "port": 53, "protocol": "UDP"},
         {"name": "alt", "port": 8080, "protocol": "TCP", "appProtocol": "h2c"}]

addresses = st.lists(st.builds(lambda ip, host: {"ip": ip, **({"hostname": host} if host else {})},
                               st.sampled_from(IPS), st.sampled_from(["", "a", "b"])), max_size=6)
subsets = st.lists(st.fixed_dictionaries({
    "addresses": addresses, "notReadyAddresses": addresses,
    "ports": st.lists(st.sampled_from(PORTS), max_size=2, unique_by=lambda p: p["name"])}), max_size=4)
endpoints = st.builds(lambda s, labels: make_endpoints(s, labels=labels, uid="u1"),
                      subsets, st.sampled_from([None, {"team": "a"}]))


def _mirrored(eps: Endpoints, most: int) -> tuple[list[Any], Endpoints]:
    """Slices left by an earlier mirroring of ``eps`` with ``most`` per subset."""
    after, _ = apply_plan([], plan_mirror(eps, [], most))
    return after, eps


def _expected(eps: Endpoints, most: int) -> Counter[tuple[str, Any, str, str, bool]]:
    want: Counter[tuple[str, Any, str, str, bool]] = Counter()
    for subset in repack_subsets(eps.subsets):
        pkey = tuple(sorted((p.name or "", p.protocol or "", p.port, p.app_protocol or "")
                            for p in subset.ports or ()))
        listed = [(a, True) for a in subset.addresses or ()]
        listed += [(a, False) for a in subset.not_ready_addresses or ()]
        valid = [(a, ready) for a, ready in listed if address_type(a.ip) is not None][:most]
        for a, ready in valid:
            want[(str(address_type(a.ip)), pkey, a.ip, a.hostname or "", ready)] += 1
    return want


def _held(slices: list[Any]) -> Counter[tuple[str, Any, str, str, bool]]:
    return Counter((s.address_type, port_key(s.ports), e.addresses[0], e.hostname or "",
                    bool(e.conditions.ready)) for s in slices for e in s.endpoints or ())


def _writes(plan: MirrorPlan) -> int:
    return len(plan.create) + len(plan.update) + len(plan.delete)


@settings(max_examples=300, deadline=None)
@given(endpoints, endpoints, st.integers(1, 4))
def test_one_sync_mirrors_exactly_and_a_second_writes_nothing(eps: Endpoints, before: Endpoints,
                                                               most: int) -> None:
    existing, _ = _mirrored(before, most)
    after, _ = apply_plan(existing, plan_mirror(eps, existing, most))
    assert _held(after) == _expected(eps, most)
    assert all(len(s.endpoints or ()) <= most for s in after)
    assert all(s.endpoints for s in after)  # no empty slice is kept
    assert _writes(plan_mirror(eps, after, most)) == 0


@settings(max_examples=100, deadline=None)
@given(endpoints, endpoints)
def test_the_plan_is_deterministic(eps: Endpoints, before: Endpoints) -> None:
    existing, _ = _mirrored(before, 2)
    first, second = plan_mirror(eps, existing, 2), plan_mirror(eps, existing, 2)
    assert [s.to_dict() for s in first.create + first.update + first.delete] == \
        [s.to_dict() for s in second.create + second.update + second.delete]
