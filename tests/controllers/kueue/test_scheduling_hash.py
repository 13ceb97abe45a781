"""The scheduling-equivalence hash (kueue v0.19.2 ``computeSchedulingHash``, ``utilpod.SpecShape``;
``TestSchedulingHash`` in ``pkg/workload/workload_test.go``): Workloads that differ in anything the
shape covers hash apart, so one refused does not mark the other inadmissible unseen."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.kueue_v1beta2 import Workload
from kbatch.controllers.kueue.model.info import WorkloadInfo

from .upstream_queue import make_wl


def _with(wl: Workload, pod_set: dict[str, Any] | None = None,
          spec: dict[str, Any] | None = None) -> Workload:
    d = wl.to_dict()
    ps = d["spec"]["podSets"][0]
    ps.update(pod_set or {})
    ps["template"]["spec"].update(spec or {})
    return Workload.from_dict(d)


def _hash(wl: Workload) -> str:
    return WorkloadInfo.of(wl).scheduling_hash


BASE = make_wl("a", cpu="1")
DIFFERENT = {  # each differs from BASE in one thing the shape covers
    "topologyRequest": ({"topologyRequest": {"required": "cloud.com/rack"}}, None),
    "preferred topology": ({"topologyRequest": {"preferred": "cloud.com/rack"}}, None),
    "runtimeClassName": (None, {"runtimeClassName": "gvisor"}),
    "priority in the pod spec": (None, {"priority": 7}),
    "topologySpreadConstraints": (None, {"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}),
    "resourceClaims": (None, {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}]}),
    "nodeSelector": (None, {"nodeSelector": {"pool": "a"}}),
    "tolerations": (None, {"tolerations": [{"key": "k", "operator": "Exists"}]}),
}


@pytest.mark.parametrize("case", list(DIFFERENT))
def test_a_difference_in_the_shape_hashes_apart(case: str) -> None:
    pod_set, spec = DIFFERENT[case]
    assert _hash(_with(BASE, pod_set, spec)) != _hash(BASE)


def test_the_two_topology_levels_hash_apart() -> None:
    """The case seen in practice: a Workload asking for a level the topology lacks is refused, and a
    second, asking for a level it has, must still be tried."""
    bad = _with(BASE, {"topologyRequest": {"required": "no-such-level"}})
    good = _with(BASE, {"topologyRequest": {"required": "cloud.com/rack"}})
    assert _hash(bad) != _hash(good)


@given(st.text(min_size=1, max_size=8), st.text(min_size=1, max_size=8))
def test_identity_is_not_part_of_the_shape(name: str, namespace: str) -> None:
    """``same spec different identity produces same hash``."""
    other = make_wl("x" + name.encode().hex()[:20], "ns" + namespace.encode().hex()[:20], cpu="1",
                    uid="u" + name.encode().hex()[:20])
    assert _hash(other) == _hash(BASE)
