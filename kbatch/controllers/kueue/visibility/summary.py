"""``PendingWorkloadsSummary``: what ``clusterqueues/NAME/pendingworkloads`` and
``namespaces/NS/localqueues/NAME/pendingworkloads`` answer (kueue ``pkg/visibility/storage/
pending_workloads_{cq,lq}.go``, ``utils.go``; ``apis/visibility/v1beta2/{types,defaults}.go``, v0.19.2).

* ``limit`` is 1000 when absent or 0 (``NewGetOptions``, ``SetDefaults_PendingWorkloadOptions``),
  then bounded to ``[0, 100000]`` (``constants.MaxPendingWorkloadsLimit``); ``offset`` below 0 is 0
  (``boundedLimitOffset``); a value that is not an integer is a 400, as the parameter codec's
  ``strconv.ParseInt`` failure is.
* A ClusterQueue's items are its pending workloads from ``offset`` on, at most ``limit``, each with
  its position in the ClusterQueue (its index in the snapshot) and in its LocalQueue (how many of
  the same LocalQueue come before it).
* A LocalQueue's items are its own workloads of its ClusterQueue's snapshot, skipping the first
  ``offset`` of them; the position in the LocalQueue counts from ``offset``.
* Each item: the workload's name, namespace, creation time and owner references (apiVersion, kind,
  name, uid only), its priority (``spec.priority``, 0 when unset), its LocalQueue's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbatch.api.errors import BadRequest
from kbatch.api.kueue_v1beta2 import Workload

__all__ = ["DEFAULT_LIMIT", "GROUP", "MAX_LIMIT", "PendingOptions", "cluster_queue_summary",
           "local_queue_summary", "pending_options"]

GROUP = "visibility.kueue.x-k8s.io"
DEFAULT_LIMIT = 1000  # constants.DefaultPendingWorkloadsLimit
MAX_LIMIT = 100_000  # constants.MaxPendingWorkloadsLimit
Obj = dict[str, Any]
_INT = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True, slots=True)
class PendingOptions:
    """``PendingWorkloadOptions`` after defaulting and ``boundedLimitOffset``."""

    limit: int = DEFAULT_LIMIT
    offset: int = 0


def _int64(raw: str) -> int:
    """Go's ``strconv.ParseInt(raw, 10, 64)``: an optional sign and decimal digits, nothing else."""
    if _INT.fullmatch(raw) is None:
        raise BadRequest(f'strconv.ParseInt: parsing "{raw}": invalid syntax')
    value = int(raw)
    if not -(2 ** 63) <= value < 2 ** 63:
        raise BadRequest(f'strconv.ParseInt: parsing "{raw}": value out of range')
    return value


def pending_options(params: Mapping[str, str | None]) -> PendingOptions:
    """The query's ``limit`` and ``offset``, defaulted and bounded."""
    raw_limit, raw_offset = params.get("limit"), params.get("offset")
    limit = _int64(raw_limit) if raw_limit else 0
    offset = _int64(raw_offset) if raw_offset else 0
    if limit == 0:
        limit = DEFAULT_LIMIT
    return PendingOptions(min(max(limit, 0), MAX_LIMIT), max(offset, 0))


def _owner_refs(wl: Workload) -> list[Obj]:
    return [{"apiVersion": r.api_version, "kind": r.kind, "name": r.name, "uid": r.uid}
            for r in wl.metadata.owner_references or ()]


def pending_workload(wl: Workload, in_local_queue: int, in_cluster_queue: int) -> Obj:
    """One ``PendingWorkload`` (``newPendingWorkload``)."""
    meta: Obj = {"name": wl.metadata.name, "namespace": wl.metadata.namespace,
                 "creationTimestamp": _time(wl)}
    refs = _owner_refs(wl)
    if refs:
        meta["ownerReferences"] = refs
    priority = wl.spec.priority if wl.spec is not None and wl.spec.priority is not None else 0
    queue = (wl.spec.queue_name if wl.spec is not None else None) or ""
    return {"metadata": meta, "priority": priority, "localQueueName": queue,
            "positionInClusterQueue": in_cluster_queue, "positionInLocalQueue": in_local_queue}


def _time(wl: Workload) -> str | None:
    ts = wl.metadata.creation_timestamp
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ") if ts is not None else None


def summary(api_version: str, items: list[Obj]) -> Obj:
    return {"kind": "PendingWorkloadsSummary", "apiVersion": api_version,
            "metadata": {"creationTimestamp": None}, "items": items}


def _lq(wl: Workload) -> tuple[str, str]:
    return wl.metadata.namespace or "", (wl.spec.queue_name if wl.spec else None) or ""


def cluster_queue_summary(pending: Sequence[Workload], opts: PendingOptions) -> list[Obj]:
    """The items of a ClusterQueue's summary; ``pending`` in pop order."""
    items: list[Obj] = []
    seen: dict[tuple[str, str], int] = {}
    for index, wl in enumerate(pending[:opts.offset + opts.limit]):
        lq = _lq(wl)
        position = seen.get(lq, 0)
        seen[lq] = position + 1
        if index >= opts.offset:
            items.append(pending_workload(wl, position, index))
    return items


def local_queue_summary(pending: Sequence[Workload], namespace: str, name: str,
                        opts: PendingOptions) -> list[Obj]:
    """The items of LocalQueue ``namespace/name``'s summary; ``pending``: its ClusterQueue's."""
    items: list[Obj] = []
    skipped = 0
    for index, wl in enumerate(pending):
        if len(items) >= opts.limit:
            break
        if _lq(wl) != (namespace, name):
            continue
        if skipped < opts.offset:
            skipped += 1
            continue
        items.append(pending_workload(wl, len(items) + opts.offset, index))
    return items
