"""Harness for the cases ported from upstream's scheduler plugin tests (``test_upstream_*.py``).

Nodes and pods are written as a user writes them (API dicts, defaulted and validated by the API
server's strategy) and converted as the scheduler converts what its informers see; the profile is
built from a ``KubeSchedulerConfiguration`` document. Upstream's tests call one plugin's
PreFilter/Filter/Score directly; here :func:`filter_reasons` and :func:`plugin_scores` run the
profile's PreFilter plugins, then the one plugin's Filter or PreScore/Score/NormalizeScore, and
:func:`schedule` the whole attempt.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from kbatch.api.core_v1 import Node, Pod
from kbatch.api.strategies.core import PodStrategy
from kbatch.controllers.scheduler import build_profiles, parse_config, plugin_registry
from kbatch.controllers.scheduler.algorithm import Algorithm, Decision
from kbatch.controllers.scheduler.convert import node_shape, pod_info
from kbatch.controllers.scheduler.framework import SKIPPED_FILTERS, SKIPPED_SCORES, Code, CycleState
from kbatch.controllers.scheduler.snapshot import Snapshot
from kbatch.controllers.scheduler.types import PodInfo

__all__ = ["api_node", "api_pod", "filter_reasons", "plugin_scores", "schedule", "world"]

_seq = iter(range(1, 10**9))


def api_node(
    name: str,
    allocatable: Mapping[str, Any] | None = None,
    *,
    labels: Mapping[str, str] | None = None,
    taints: Iterable[Mapping[str, Any]] = (),
    unschedulable: bool = False,
) -> Any:
    """A Node as ``kubectl apply`` would send it, with ``status.allocatable`` (quantity strings)."""
    body: dict[str, Any] = {
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": {"taints": list(taints)} if taints else {},
    }
    if unschedulable:
        body["spec"]["unschedulable"] = True
    if allocatable is not None:
        body["status"] = {
            "allocatable": {k: str(v) for k, v in allocatable.items()},
            "capacity": {k: str(v) for k, v in allocatable.items()},
        }
    return node_shape(Node.from_dict(body))


def _containers(reqs: Iterable[Mapping[str, Any]], prefix: str) -> list[dict[str, Any]]:
    out = []
    for i, req in enumerate(reqs):
        container: dict[str, Any] = {"name": f"{prefix}{i}", "image": "x"}
        if req and ("requests" in req or "limits" in req):  # a whole ``resources`` stanza
            container["resources"] = {k: {n: str(q) for n, q in v.items()} for k, v in req.items()}
        elif req:
            container["resources"] = {"requests": {k: str(v) for k, v in req.items()}}
        out.append(container)
    return out


def api_pod(
    name: str,
    *requests: Mapping[str, Any],
    namespace: str = "default",
    inits: Iterable[Mapping[str, Any]] = (),
    labels: Mapping[str, str] | None = None,
    node: str = "",
    terminating: bool = False,
    start: float | None = None,
    **spec: Any,
) -> PodInfo:
    """A Pod with one container per ``requests`` map (none: one container requesting nothing),
    ``inits`` init containers, ``spec`` extra fields in API spelling (``tolerations``, ``affinity``,
    ``topologySpreadConstraints``, ``overhead``, ``priority``...); ``node`` binds it there;
    ``terminating`` gives it a deletionTimestamp, ``start`` its status.startTime (timeline seconds)."""
    body_spec: dict[str, Any] = {"containers": _containers(requests or ({},), "c"), **spec}
    inits = list(inits)
    if inits:
        body_spec["initContainers"] = _containers(inits, "i")
    if node:
        body_spec["nodeName"] = node
    body = {
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{name}",
            "labels": dict(labels or {}),
            **({"deletionTimestamp": "2026-01-01T00:00:00Z"} if terminating else {}),
        },
        "spec": body_spec,
    }
    p = Pod.from_dict(body)
    PodStrategy().default(p)
    errors = PodStrategy().validate(p)
    assert errors == [], errors
    seq = next(_seq)
    return pod_info(p, seq=seq, creation=float(seq), start_time=start)


def world(
    nodes: Iterable[Any], pods: Iterable[PodInfo] = (), config: Mapping[str, Any] | None = None, seed: int = 0
) -> Algorithm:
    """An :class:`Algorithm` over ``nodes`` with the bound ``pods``, the default-scheduler profile of
    ``config`` (a KubeSchedulerConfiguration profile entry's ``plugins``/``pluginConfig``)."""
    doc = None
    if config is not None:
        doc = {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "default-scheduler", **config}],
        }
    profile = build_profiles(parse_config(doc), plugin_registry())["default-scheduler"]
    snapshot = Snapshot()
    for shape in nodes:
        snapshot.set_node(shape)
    for p in pods:
        snapshot.add_pod(p, p.node_name)
    return Algorithm(profile, snapshot, random.Random(seed))


def _pre_filter(algo: Algorithm, pod: PodInfo) -> tuple[CycleState, Any]:
    """The profile's PreFilter run as the attempt runs it (upstream ``RunPreFilterPlugins``)."""
    state: CycleState = {}
    rejected, skipped = algo._pre_filter(pod, state)
    if skipped:
        state[SKIPPED_FILTERS] = skipped
    return state, rejected


def filter_reasons(algo: Algorithm, pod: PodInfo, plugin: str) -> dict[str, Any]:
    """Node name -> ``None`` (passes) or ``(code name, reasons)`` of ``plugin``'s Filter after the
    profile's PreFilter; a PreFilter rejection is ``{"<prefilter>": (code, reasons)}``."""
    state, rejected = _pre_filter(algo, pod)
    if rejected is not None:
        return {"<prefilter>": (rejected.code.name, rejected.reasons)}
    target = next(p for p in algo.profile.filter if p.name == plugin)
    out: dict[str, Any] = {}
    for node in algo.snapshot:
        if plugin in state.get(SKIPPED_FILTERS, ()):
            out[node.name] = None
            continue
        status = target.filter(state, pod, node)
        out[node.name] = None if status is None or status.ok else (status.code.name, status.reasons)
    return out


def plugin_scores(
    algo: Algorithm, pod: PodInfo, plugin: str, nodes: Iterable[str] | None = None, normalize: bool = True
) -> dict[str, int]:
    """``plugin``'s (normalized) scores of ``nodes`` (default: all), after the profile's PreFilter
    and the plugin's PreScore over those nodes, as upstream's score tests run them."""
    state, rejected = _pre_filter(algo, pod)
    assert rejected is None, rejected
    infos = [n for n in algo.snapshot if nodes is None or n.name in set(nodes)]
    pre = next((p for p in algo.profile.pre_score if p.name == plugin), None)
    if pre is not None:
        status = pre.pre_score(state, pod, infos)
        if status is not None and status.code == Code.SKIP:
            return {n.name: 0 for n in infos}
    if plugin in state.get(SKIPPED_SCORES, ()):
        return {n.name: 0 for n in infos}
    target = next(p for p in algo.profile.score if p.name == plugin)
    raw = [target.score(state, pod, n) for n in infos]
    return dict(zip((n.name for n in infos), target.normalize(raw) if normalize else raw, strict=True))


def schedule(algo: Algorithm, pod: PodInfo) -> Decision:
    return algo.schedule(pod)
