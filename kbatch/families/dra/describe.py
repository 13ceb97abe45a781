"""``kubectl describe`` lines of the resource.k8s.io kinds after the common header (kubectl has no
dedicated describers for them and prints spec and status; kbatch prints the parts people read)."""

from __future__ import annotations

from kbatch.api.printing import Obj, at
from kbatch.families.dra.printers import claim_state

__all__ = ["describe_device_class", "describe_resource_claim", "describe_resource_slice"]


def _selectors(selectors: list[dict] | None) -> list[str]:
    return [at(s, "cel", "expression") or "" for s in selectors or ()]


def _lines(title: str, values: list[str]) -> list[tuple[str, str]]:
    if not values:
        return [(title, "<none>")]
    return [(title, values[0])] + [("", v) for v in values[1:]]


def describe_device_class(obj: Obj) -> list[tuple[str, str]]:
    out = _lines("Selectors", _selectors(at(obj, "spec", "selectors")))
    out.append(("Extended Resource Name", at(obj, "spec", "extendedResourceName") or "<none>"))
    return out


def _request_line(request: Obj) -> str:
    exactly = request.get("exactly")
    if exactly is not None:
        mode = exactly.get("allocationMode") or "ExactCount"
        count = f"{exactly.get('count', 1)}" if mode == "ExactCount" else "all"
        return f"{request.get('name')}: {count} of class {exactly.get('deviceClassName')}"
    subs = [f"{s.get('name')} ({s.get('deviceClassName')})" for s in request.get("firstAvailable") or ()]
    return f"{request.get('name')}: first available of " + ", ".join(subs)


def describe_resource_claim(obj: Obj) -> list[tuple[str, str]]:
    out = [("State", claim_state(obj))]
    out += _lines("Requests", [_request_line(r) for r in at(obj, "spec", "devices", "requests") or ()])
    results = at(obj, "status", "allocation", "devices", "results") or ()
    out += _lines(
        "Allocated Devices",
        [
            f"{r.get('request')}: {r.get('driver')}/{r.get('pool')}/{r.get('device')}"
            + (f" (share {r['shareID']})" if r.get("shareID") else "")
            for r in results
        ],
    )
    out += _lines(
        "Reserved For",
        [f"{r.get('resource')}/{r.get('name')}" for r in at(obj, "status", "reservedFor") or ()],
    )
    return out


def describe_resource_slice(obj: Obj) -> list[tuple[str, str]]:
    spec = obj.get("spec") or {}
    pool = spec.get("pool") or {}
    out = [
        ("Driver", spec.get("driver") or ""),
        ("Node", spec.get("nodeName") or "<none>"),
        (
            "Pool",
            f"{pool.get('name')} (generation {pool.get('generation', 0)}, "
            f"{pool.get('resourceSliceCount', 0)} slice(s))",
        ),
    ]
    out += _lines("Devices", [d.get("name", "") for d in spec.get("devices") or ()])
    return out
