"""Builders of DRA objects for tests: slices, classes, claims as models, and a one-call allocation
over them (the allocator with kbatch's selector cache and no taint rules)."""

from __future__ import annotations

import itertools
from typing import Any

from kbatch.api import edit
from kbatch.api.resource_v1 import DeviceClass, ResourceClaim, ResourceSlice
from kbatch.controllers.dra.selection import SelectorCache
from kbatch.controllers.dra.structured import AllocatedState, Allocator, Features, NodeView, gather_pools

DRIVER = "gpu.example.com"


def gpu(name: str, **attributes: Any) -> dict[str, Any]:
    attrs = {
        k: ({"string": v} if isinstance(v, str) else {"bool": v} if isinstance(v, bool) else {"int": v})
        for k, v in attributes.items()
    }
    return {"name": name, "attributes": attrs or None}


def make_slice(
    name: str,
    devices: list[dict[str, Any]],
    *,
    node: str | None = "node-0",
    pool: str | None = None,
    generation: int = 0,
    count: int = 1,
    driver: str = DRIVER,
    **spec: Any,
) -> ResourceSlice:
    body: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool or node or name, "generation": generation, "resourceSliceCount": count},
        **spec,
    }
    if devices is not None:
        body["devices"] = devices
    if (
        node is not None
        and "allNodes" not in spec
        and "nodeSelector" not in spec
        and "perDeviceNodeSelection" not in spec
    ):
        body["nodeName"] = node
    return ResourceSlice.model_validate(
        {"metadata": {"name": name, "uid": f"uid-{name}", "resourceVersion": "1"}, "spec": body}
    )


def make_class(name: str = "gpu", *selectors: str, **spec: Any) -> DeviceClass:
    return DeviceClass.model_validate(
        {
            "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": e}} for e in selectors] or None, **spec},
        }
    )


def exactly(name: str, cls: str = "gpu", count: int = 1, *selectors: str, **extra: Any) -> dict[str, Any]:
    body = {
        "deviceClassName": cls,
        "allocationMode": extra.pop("allocationMode", "ExactCount"),
        "selectors": [{"cel": {"expression": e}} for e in selectors] or None,
        **extra,
    }
    if body["allocationMode"] == "ExactCount":
        body["count"] = count
    return {"name": name, "exactly": body}


def make_claim(
    name: str, *requests: dict[str, Any], namespace: str = "default", **devices: Any
) -> ResourceClaim:
    return ResourceClaim.model_validate(
        {
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"devices": {"requests": list(requests), **devices}},
        }
    )


def allocate(
    claims: list[ResourceClaim],
    slices: list[ResourceSlice],
    classes: list[DeviceClass],
    node: str = "node-0",
    allocated: AllocatedState | None = None,
    features: Features | None = None,
    labels: dict[str, str] | None = None,
    cache: SelectorCache | None = None,
) -> Any:
    view = NodeView(node, labels or {})
    feats = features or Features()
    by_pool: dict[tuple[str, str], list[ResourceSlice]] = {}
    for s in slices:
        by_pool.setdefault((s.spec.driver, s.spec.pool.name), []).append(s)
    pools = gather_pools(slices, view, feats, lambda d, p: by_pool.get((d, p), []))
    by_name = {c.metadata.name: c for c in classes}
    counter = itertools.count()
    allocator = Allocator(
        claims,
        view,
        pools,
        allocated or AllocatedState(),
        by_name.get,
        feats,
        cache or SelectorCache(),
        lambda c: c.device.taints or (),
        lambda: f"00000000-0000-4000-8000-{next(counter):012d}",
    )
    return allocator.allocate()


def create_observed(client: Any, plugin: Any, obj: Any) -> Any:
    """Create ``obj`` through the API (a claim's status, if any, through its status subresource, as
    a scheduler or driver writes it) and show the stored object to the DynamicResources ``plugin``
    as its informer would."""
    stored = client.create(obj)
    if isinstance(stored, ResourceClaim) and obj.status is not None:
        body = edit(stored)
        body.status = obj.status
        stored = client.update_status(body)
    plugin.observe(type(stored).__name__, None, stored)
    return stored
