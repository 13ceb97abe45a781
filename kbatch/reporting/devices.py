"""DRA devices as utilisation resources, one per driver: ``devices/<driver>``.

* **capacity** of a node: the devices its driver publishes for it — every ``spec.devices`` entry of
  the ResourceSlices with ``spec.nodeName`` = the node, of the newest ``spec.pool.generation`` of each
  pool (resource.k8s.io/v1 ``ResourceSlice``, k8s.io/api ``resource/v1/types.go``). Slices for
  several nodes (``nodeSelector``, ``allNodes``) are not attributed to a node and not counted.
* **use** by a pod: the devices allocated to the claims it uses (``status.allocation.devices.results``
  of each ResourceClaim named by the pod's ``status.resourceClaimStatuses`` or
  ``spec.resourceClaims[].resourceClaimName``), counted per driver; a claim shared by ``n`` pods
  counts ``1/n`` for each, so the total is the claim's devices. A pod holds them while it runs, as
  it holds its cpu.

Partitionable devices (KEP-4815): a whole GPU and each of its partitions are listed devices alike, so
the capacity counts them all and the utilisation of such a pool is a lower bound.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from kbatch.reporting.wire import Obj, meta, ref_of, uid

__all__ = ["GROUP", "device_capacity", "device_use", "resource_name"]

GROUP = "resource.k8s.io"


def resource_name(driver: str) -> str:
    return f"devices/{driver}"


def _kind(objects: Iterable[Obj], kind: str) -> list[Obj]:
    return [o for o in objects if ref_of(o)[:2] == (GROUP, kind)]


def device_capacity(objects: Iterable[Obj]) -> dict[str, dict[str, float]]:
    """Node name → ``{devices/<driver>: count}``."""
    slices = [s for s in _kind(objects, "ResourceSlice") if (s.get("spec") or {}).get("nodeName")]
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        spec = s["spec"]
        key = (str(spec.get("driver")), str((spec.get("pool") or {}).get("name")))
        newest[key] = max(newest.get(key, 0), int((spec.get("pool") or {}).get("generation") or 0))
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for s in slices:
        spec = s["spec"]
        pool = spec.get("pool") or {}
        if int(pool.get("generation") or 0) != newest[(str(spec.get("driver")), str(pool.get("name")))]:
            continue
        out[str(spec["nodeName"])][resource_name(str(spec.get("driver")))] += len(spec.get("devices") or ())
    return {node: {k: float(v) for k, v in sorted(c.items())} for node, c in sorted(out.items())}


def _claims_of(pod: Obj) -> list[str]:
    names = [str(s["resourceClaimName"]) for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()
             if s.get("resourceClaimName")]
    names += [str(c["resourceClaimName"]) for c in (pod.get("spec") or {}).get("resourceClaims") or ()
              if c.get("resourceClaimName")]
    return sorted(set(names))


def device_use(objects: Iterable[Obj]) -> dict[str, dict[str, float]]:
    """Pod uid → ``{devices/<driver>: devices held}``."""
    objects = list(objects)
    allocated: dict[tuple[str, str], Counter[str]] = {}
    for claim in _kind(objects, "ResourceClaim"):
        results = ((((claim.get("status") or {}).get("allocation") or {}).get("devices") or {})
                   .get("results") or ())
        m = meta(claim)
        allocated[(str(m.get("namespace")), str(m.get("name")))] = Counter(
            resource_name(str(r.get("driver"))) for r in results)
    users: dict[tuple[str, str], list[str]] = defaultdict(list)
    pods = [p for p in objects if ref_of(p)[:2] == ("", "Pod")]
    for pod in pods:
        ns = str(meta(pod).get("namespace"))
        for name in _claims_of(pod):
            if (ns, name) in allocated:
                users[(ns, name)].append(uid(pod) or f"{ns}/{meta(pod).get('name')}")
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for key, pod_uids in users.items():
        for pod_uid in pod_uids:
            for resource, count in allocated[key].items():
                out[pod_uid][resource] += count / len(pod_uids)
    return {p: dict(sorted(c.items())) for p, c in sorted(out.items())}
