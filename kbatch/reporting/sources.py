"""Where a report's objects come from: a control plane, a backend (a state directory or ``kbatch
serve``), or files of ``kubectl get -o json`` / ``-o yaml`` output.

Only the kinds a report reads are listed: pods, nodes, DRA's ResourceSlices, ResourceClaims and
DeviceClasses, Kueue's ClusterQueues and LocalQueues, and every kind of the
:class:`~kbatch.reporting.kinds.KindRegistry` that the server serves (a kind it does not serve, e.g.
JobSet without its family, is skipped). The claims' history (claim_history.py) comes from a control
plane's trace, or from a state directory's trace files.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from kbatch.api.errors import NotFound
from kbatch.reporting.kinds import KindRegistry, default_kinds

__all__ = ["claim_history_of", "claim_history_of_state", "claims_used", "from_backend", "from_control_plane",
           "from_files", "in_namespace"]

Obj = dict[str, Any]
_CORE = (("", "Pod"), ("", "Node"), ("resource.k8s.io", "ResourceSlice"),
         ("resource.k8s.io", "ResourceClaim"), ("resource.k8s.io", "DeviceClass"),
         ("kueue.x-k8s.io", "ClusterQueue"), ("kueue.x-k8s.io", "LocalQueue"))


def _served(registry: Any, group: str, kind: str) -> Any | None:
    for spec in registry:
        info = spec.info
        if info.group == group and info.kind == kind:
            return info
    return None


def from_backend(backend: Any, kinds: KindRegistry | None = None) -> tuple[list[Obj], datetime]:
    """Every object a report reads, across namespaces, and the backend's current time."""
    kinds = kinds or default_kinds()
    objects: list[Obj] = []
    for group, kind in (*_CORE, *kinds.keys()):
        info = _served(backend.registry, group, kind)
        if info is None:
            continue
        try:
            listed = backend.list(info, None)
        except NotFound:  # a kind the client knows but the server does not serve (a gate off)
            continue
        version = info.api_version
        for item in listed.get("items") or ():
            objects.append({"apiVersion": version, "kind": kind, **item})  # list items may omit them
    return objects, backend.now()


def in_namespace(objects: Sequence[Obj], namespace: str | None) -> list[Obj]:
    """The objects of ``namespace`` and the cluster-scoped ones (nodes, ResourceSlices: the capacity
    the namespace's workloads ran on); ``None`` keeps everything (``kbatch report -n NS``)."""
    if namespace is None:
        return list(objects)
    return [o for o in objects if (o.get("metadata") or {}).get("namespace") in (None, "", namespace)]


def from_control_plane(cp: Any, kinds: KindRegistry | None = None) -> tuple[list[Obj], datetime]:
    from kbatch.server.facade import ControlPlaneBackend

    return from_backend(ControlPlaneBackend(cp), kinds)


def from_files(paths: Sequence[str | Path]) -> list[Obj]:
    """Objects from files (``-`` for standard input): JSON or YAML, ``List``s expanded, as ``apply -f``
    reads them (:func:`kbatch.apiserver.manifests.load_manifests`)."""
    import sys

    from kbatch.apiserver.manifests import load_manifests

    objects: list[Obj] = []
    for path in paths:
        text = sys.stdin.read() if str(path) == "-" else Path(path).read_text()
        objects.extend(load_manifests(text, name="STDIN" if str(path) == "-" else str(path)))
    return objects



def claim_history_of(cp: Any) -> list[Obj]:
    """The allocated versions of claims a control plane's trace holds (its retained lines; none
    without a trace)."""
    from kbatch.reporting.claim_history import claims_from_trace

    lines = getattr(getattr(cp, "trace", None), "lines", None)
    try:
        return claims_from_trace(lines()) if callable(lines) else []
    except RuntimeError:  # ControlPlane(trace=False): attach a ClaimRecorder and pass its claims instead
        return []


def claim_history_of_state(state: str | Path, cp: Any = None) -> list[Obj]:
    """The allocated versions of claims in a state directory's trace files (``trace.1.jsonl``, then
    ``trace.jsonl``), then in this command's own lines of ``cp`` (not yet in the files)."""
    from kbatch.reporting.claim_history import claims_from_trace

    def lines() -> Any:
        for name in ("trace.1.jsonl", "trace.jsonl"):
            path = Path(state) / name
            if path.is_file():
                with path.open("rb") as f:
                    yield from f

    return claims_from_trace(lines()) + claim_history_of(cp)


def claims_used(objects: Sequence[Obj]) -> bool:
    """Whether any pod uses a ResourceClaim (else the claims' history is not worth reading: a state's
    trace files may be large)."""
    return any((o.get("spec") or {}).get("resourceClaims") for o in objects if o.get("kind") == "Pod")
