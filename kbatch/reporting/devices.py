"""DRA devices as utilisation resources: one per driver, ``devices/<driver>``, and one per
DeviceClass, ``deviceclass/<name>`` (:mod:`~kbatch.reporting.device_classes`).

* **capacity** of a node: the devices its driver publishes for it — every ``spec.devices`` entry of
  the ResourceSlices with ``spec.nodeName`` = the node, of the newest ``spec.pool.generation`` of each
  pool (resource.k8s.io/v1 ``ResourceSlice``, k8s.io/api ``resource/v1/types.go``). Slices for
  several nodes (``nodeSelector``, ``allNodes``) are not attributed to a node and not counted.
* **use** by a pod: the devices allocated to the claims it uses (``status.allocation.devices.results``
  of each ResourceClaim named by the pod's ``status.resourceClaimStatuses`` or
  ``spec.resourceClaims[].resourceClaimName``), counted per driver and per class. A pod holds them
  while it runs, as it holds its cpu. A claim shared by several pods counts once: when every pod
  naming it is known to have reserved it (``status.reservedFor`` of some version), per instant among
  those running then (:mod:`~kbatch.reporting.sharing`); otherwise ``1/n`` for each of the ``n`` pods
  naming it, over each one's whole run.
* **admin access** (KEP-5018, ``DRAAdminAccess``, GA in 1.36): a result with ``adminAccess: true``
  (k8s.io/api ``resource/v1/types.go`` ``DeviceRequestAllocationResult.AdminAccess``; kbatch's
  allocator sets it for a request asking for it) gives the device without taking it — the allocator
  does not count it as in use (upstream ``structured/allocator.go``, kbatch
  ``controllers/dra/structured/state.py``). It is not use here either; such results are kept apart
  (:mod:`~kbatch.reporting.admin_access`).
* **claims gone since**: a claim made from a template is deleted once its pod is done (the
  resourceclaim controller), and a claim may be deallocated; the report then reads the allocation
  from the claim's *history* (:mod:`~kbatch.reporting.claim_history`: earlier versions from the trace,
  a recorder, or several files). A pod's claim is the version whose ``status.reservedFor`` lists the
  pod (the scheduler reserves a claim for its pod before binding it, upstream ``dynamicresources``
  ``PreBind``); without such a version, the newest allocated one of that name.

Partitionable devices (KEP-4815): a whole GPU and each of its partitions are listed devices alike, so
the capacity counts them all and the utilisation of such a pool is a lower bound.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kbatch.reporting.device_classes import DeviceClasses, DeviceKey, PublishedDevice
from kbatch.reporting.wire import Obj, meta, ref_of, uid

__all__ = ["GROUP", "AdminUse", "DeviceKey", "DeviceUse", "SharedUse", "device_capacity", "device_use",
           "published_devices", "resource_name"]

GROUP = "resource.k8s.io"


def resource_name(driver: str) -> str:
    return f"devices/{driver}"


def _kind(objects: Iterable[Obj], kind: str) -> list[Obj]:
    return [o for o in objects if ref_of(o)[:2] == (GROUP, kind)]


def published_devices(objects: Iterable[Obj]) -> list[PublishedDevice]:
    """(driver, pool, node, device) of every device a node-local slice of its pool's newest
    generation publishes, in the slices' order."""
    slices = [s for s in _kind(objects, "ResourceSlice") if (s.get("spec") or {}).get("nodeName")]
    newest: dict[tuple[str, str], int] = {}
    for s in slices:
        spec = s["spec"]
        key = (str(spec.get("driver")), str((spec.get("pool") or {}).get("name")))
        newest[key] = max(newest.get(key, 0), int((spec.get("pool") or {}).get("generation") or 0))
    out: list[PublishedDevice] = []
    for s in slices:
        spec = s["spec"]
        pool = spec.get("pool") or {}
        driver, pool_name = str(spec.get("driver")), str(pool.get("name"))
        if int(pool.get("generation") or 0) != newest[(driver, pool_name)]:
            continue
        out += [(driver, pool_name, str(spec["nodeName"]), d) for d in spec.get("devices") or ()
                if isinstance(d, dict)]
    return out


def device_capacity(objects: Iterable[Obj], classes: DeviceClasses | None = None,
                    published: Sequence[PublishedDevice] | None = None) -> dict[str, dict[str, float]]:
    """Node name → ``{devices/<driver>: count, deviceclass/<name>: count}``."""
    devices = published_devices(objects) if published is None else published
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for driver, pool, node, device in devices:
        out[node][resource_name(driver)] += 1
        for resource in classes.of((driver, pool, str(device.get("name")))) if classes else ():
            out[node][resource] += 1
    return {node: {k: float(v) for k, v in sorted(c.items())} for node, c in sorted(out.items())}


def _claims_of(pod: Obj) -> list[str]:
    names = [str(s["resourceClaimName"]) for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()
             if s.get("resourceClaimName")]
    names += [str(c["resourceClaimName"]) for c in (pod.get("spec") or {}).get("resourceClaims") or ()
              if c.get("resourceClaimName")]
    return sorted(set(names))


@dataclass(slots=True)
class _Allocation:
    """One allocation of a claim (its uid, ``allocationTimestamp`` and results): what it holds, the
    devices it has under admin access, and every pod any version of it was reserved for (a shared
    claim's ``reservedFor`` grows and shrinks as pods come and go). A claim deallocated and allocated
    again is a new allocation (a new time stamp), so pods that used it one after the other do not
    share it."""

    identity: tuple[str, str, tuple[DeviceKey, ...]]  # claim uid, allocationTimestamp, devices
    held: Counter[str]
    admin: tuple[DeviceKey, ...]
    reserved_for: set[str]


@dataclass(frozen=True, slots=True)
class SharedUse:
    """One allocation that several pods, each known to have reserved it, used: attributed per instant
    among those running (:func:`kbatch.reporting.sharing.attribute`)."""

    pods: tuple[str, ...]  # pod uids, sorted
    held: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class AdminUse:
    """The devices one allocation holds under admin access, and the pods that used it."""

    namespace: str
    claim: str
    pods: tuple[str, ...]  # pod uids, sorted
    devices: tuple[DeviceKey, ...]


@dataclass(frozen=True, slots=True)
class DeviceUse:
    """What the pods' claims held: ``held`` pod uid → devices held over the pod's whole run (a claim of
    its own, or shared with pods not all known to have reserved it: ``1/n`` each); ``shared``: the
    allocations attributed per instant; ``admin``: the allocations with devices under admin access."""

    held: Mapping[str, Mapping[str, float]]
    shared: tuple[SharedUse, ...] = ()
    admin: tuple[AdminUse, ...] = ()


def _allocation(claim: Obj, classes: DeviceClasses | None) -> _Allocation | None:
    status = claim.get("status") or {}
    results = (((status.get("allocation") or {}).get("devices") or {}).get("results")) or ()
    if not results:
        return None
    held: Counter[str] = Counter()
    keys, admin = [], []
    for r in results:
        key = (str(r.get("driver")), str(r.get("pool")), str(r.get("device")))
        keys.append(key)
        if r.get("adminAccess") is True:  # the device is not taken (KEP-5018): no use
            admin.append(key)
            continue
        held[resource_name(key[0])] += 1
        for resource in classes.of(key) if classes else ():
            held[resource] += 1
    pods = {str(ref.get("uid")) for ref in status.get("reservedFor") or ()
            if isinstance(ref, dict) and ref.get("resource", "pods") == "pods" and ref.get("uid")}
    stamp = str((status.get("allocation") or {}).get("allocationTimestamp") or "")
    return _Allocation((str(uid(claim) or ""), stamp, tuple(sorted(keys))), held, tuple(sorted(set(admin))),
                       pods)


def _allocations(claims: Iterable[Obj],
                 classes: DeviceClasses | None) -> dict[tuple[str, str], list[_Allocation]]:
    """(namespace, name) → its allocations, by the newest version of each (oldest first)."""
    out: dict[tuple[str, str], list[_Allocation]] = defaultdict(list)
    for claim in claims:
        allocation = _allocation(claim, classes)
        if allocation is None:
            continue
        m = meta(claim)
        versions = out[(str(m.get("namespace")), str(m.get("name")))]
        same = [v for v in versions if v.identity == allocation.identity]
        for v in same:
            versions.remove(v)
            allocation.reserved_for |= v.reserved_for
        versions.append(allocation)
    return out


def _version_for(versions: Sequence[_Allocation], pod_uid: str) -> int:
    """The newest version reserved for the pod, else the newest one."""
    for k in range(len(versions) - 1, -1, -1):
        if pod_uid in versions[k].reserved_for:
            return k
    return len(versions) - 1


def _users(objects: Sequence[Obj], allocated: Mapping[tuple[str, str], Sequence[_Allocation]],
           ) -> dict[tuple[str, str, int], list[str]]:
    """(namespace, claim, version) → the uids of the pods that used that allocation."""
    users: dict[tuple[str, str, int], list[str]] = defaultdict(list)
    for pod in (p for p in objects if ref_of(p)[:2] == ("", "Pod")):
        ns = str(meta(pod).get("namespace"))
        pod_uid = uid(pod) or f"{ns}/{meta(pod).get('name')}"
        for name in _claims_of(pod):
            versions = allocated.get((ns, name))
            if versions:
                users[(ns, name, _version_for(versions, pod_uid))].append(pod_uid)
    return users


def device_use(objects: Iterable[Obj], history: Iterable[Obj] = (),
               classes: DeviceClasses | None = None) -> DeviceUse:
    """What the pods' claims held (:class:`DeviceUse`); ``history``: earlier versions of claims
    (deleted or deallocated since), oldest first, read before ``objects``'."""
    objects = list(objects)
    allocated = _allocations([*history, *_kind(objects, "ResourceClaim")], classes)
    held: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    shared, admin = [], []
    for (ns, name, k), pod_uids in sorted(_users(objects, allocated).items()):
        allocation = allocated[(ns, name)][k]
        pods = tuple(sorted(set(pod_uids)))
        if allocation.admin:
            admin.append(AdminUse(ns, name, pods, allocation.admin))
        if not allocation.held:
            continue
        if len(pods) > 1 and allocation.reserved_for.issuperset(pods):  # reservations known: per instant
            shared.append(SharedUse(pods, {r: float(n) for r, n in sorted(allocation.held.items())}))
            continue
        for pod_uid in pods:
            for resource, count in allocation.held.items():
                held[pod_uid][resource] += count / len(pods)
    whole_run = {p: dict(sorted(c.items())) for p, c in sorted(held.items())}
    return DeviceUse(whole_run, tuple(shared), tuple(admin))
