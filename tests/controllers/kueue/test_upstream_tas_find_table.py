"""Kueue's ``TestFindTopologyAssignments`` table (kubernetes-sigs/kueue v0.19.2
``pkg/cache/scheduler/tas_cache_test.go``), every row whose nodes, requests and expectations are
plain data, run through kbatch's search.

``data/tas_find_cases.json`` holds the rows as data (nodes with their labels and allocatable, the
levels, each pod set's topology request, one-pod requests, count, and the wanted assignment or
reason), transcribed from the Go table; ``skipped`` lists the rows left out because they need
objects the table builds in code (pods, workloads, node failures, tolerations, affinities, generated
node sets; the preferred node affinity rows are in test_upstream_tas_preferred_affinity.py). Pod sets
of a row are searched in order on one snapshot, each seeing what the earlier ones took, as
``FindTopologyAssignmentsForFlavor`` does; the first failure ends the row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbatch.api.core_v1 import Node
from kbatch.api.kueue_v1beta2 import PodSetTopologyRequest, ResourceFlavor
from kbatch.controllers.kueue.tas.cluster import build_snapshot
from kbatch.controllers.kueue.tas.cycle import add_assumed
from kbatch.controllers.kueue.tas.elastic import find_elastic
from kbatch.controllers.kueue.tas.request import slice_layers
from kbatch.controllers.kueue.tas.snapshot import PodSetTASRequest, TopologyResult

DATA = json.loads((Path(__file__).parent / "data" / "tas_find_cases.json").read_text())
CASES: dict[str, Any] = DATA["cases"]

class _Cache:
    def __init__(self, nodes: list[Node]) -> None:
        self.nodes = nodes

    def list(self, kind: type) -> list[Any]:
        return self.nodes if kind is Node else []


def _node(n: dict[str, Any]) -> Node:
    return Node.model_validate(
        {
            "metadata": {"name": n["name"], "labels": n["labels"]},
            "status": {"allocatable": n["allocatable"], "conditions": [{"type": "Ready", "status": "True"}]},
        }
    )


def _topology_request(tr: dict[str, Any] | None, multi_layer: bool) -> PodSetTopologyRequest | None:
    if tr is None:
        return None
    constraints = tr.get("Constraints") if multi_layer else None
    return PodSetTopologyRequest.model_validate(
        {
            "required": tr.get("Required"),
            "preferred": tr.get("Preferred"),
            "unconstrained": tr.get("Unconstrained"),
            "podSetSliceRequiredTopology": tr.get("PodSetSliceRequiredTopology"),
            "podSetSliceSize": tr.get("PodSetSliceSize"),
            "podsetSliceRequiredTopologyConstraints": constraints,
        }
    )


def _request(ps: dict[str, Any], multi_layer: bool) -> PodSetTASRequest:
    tr = _topology_request(ps["topologyRequest"], multi_layer)
    return PodSetTASRequest(
        ps["name"],
        ps["count"],
        ps["requests"],
        required=tr.required if tr else None,
        preferred=tr.preferred if tr else None,
        unconstrained=bool(tr and tr.unconstrained),
        implied=tr is None,
        slice_layers=slice_layers(tr),
    )


def _run(case: dict[str, Any]) -> dict[str, tuple[dict[str, Any] | None, str]]:
    """``FindTopologyAssignmentsForFlavor``: pod sets grouped by group name (else alone), in order;
    in a group of two the one with more pods is the workers, the other the leader."""
    flavor = ResourceFlavor.model_validate({"metadata": {"name": "tas"}, "spec": {}})
    snap = build_snapshot(_Cache([_node(n) for n in case["nodes"]]), flavor, "default", tuple(case["levels"]))
    snap.balanced = case["gates"].get("TASBalancedPlacement", False)
    multi_layer = case["gates"].get("TASMultiLayerTopology", True)
    groups: dict[str, list[dict[str, Any]]] = {}
    for i, ps in enumerate(case["podSets"]):
        groups.setdefault(ps["group"] or str(i), []).append(ps)
    assumed: dict[tuple[str, ...], dict[str, int]] = {}
    out: dict[str, tuple[dict[str, Any] | None, str]] = {}
    for members in groups.values():
        workers, leader = members[0], members[1] if len(members) > 1 else None
        if leader is not None and leader["count"] > workers["count"]:
            workers, leader = leader, workers
        elastic = None
        if case["gates"].get("ElasticJobsViaWorkloadSlicesWithTAS") and workers.get("previous"):
            elastic = find_elastic(
                snap,
                (_request(workers, multi_layer), _previous(workers)),
                (_request(leader, multi_layer), _previous(leader)) if leader else None,
                assumed,
                add_assumed,
            )
        if elastic is not None:
            got, got_leader = elastic.workers, elastic.leader
        else:
            got, got_leader = snap.find_group(
                _request(workers, multi_layer), _request(leader, multi_layer) if leader else None, assumed
            )
        for ps, result in ((workers, got), (leader, got_leader)):
            if ps is None or result is None:
                continue
            if result.failure:
                out[ps["name"]] = (None, result.failure)
                continue
            domains = [{"values": list(v), "count": c} for v, c in result.domains]
            out[ps["name"]] = ({"levels": list(result.levels), "domains": domains}, "")
            if elastic is None:  # the elastic path assumed what it took
                add_assumed(assumed, snap.leaves_of(result), ps["requests"])
        if got.failure:
            break
    return out


def _previous(ps: dict[str, Any]) -> TopologyResult | None:
    """A pod set's ``previousAssignment`` (the replaced slice's, ``ElasticJobsViaWorkloadSlicesWithTAS``)."""
    prev = ps.get("previous")
    if prev is None:
        return None
    domains = tuple((tuple(d["values"]), d["count"]) for d in prev["domains"])
    return TopologyResult(tuple(prev["levels"]), domains)


def _want(case: dict[str, Any]) -> dict[str, tuple[dict[str, Any] | None, str]]:
    out: dict[str, tuple[dict[str, Any] | None, str]] = {}
    for ps in case["podSets"]:
        out[ps["name"]] = (ps["want"], ps["reason"])
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_find_topology_assignments(name: str) -> None:
    case = CASES[name]
    assert _run(case) == _want(case)
