"""Parse Kubernetes resource paths (api-concepts, "Resource URIs").

``/api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]`` for the core group and
``/apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]`` for the others. A path
starting with ``namespaces/NAME`` names the Namespace object itself when nothing or only a
namespace subresource (``status``, ``finalize``) follows.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.errors import NotFound
from kbatch.api.registry import KindSpec, Registry

__all__ = ["ResourcePath", "Router"]

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


@dataclass(frozen=True, slots=True)
class ResourcePath:
    spec: KindSpec
    namespace: str | None
    name: str | None
    subresource: str | None


class Router:
    """Maps (group, version, plural) to a kind, and paths to :class:`ResourcePath`."""

    def __init__(self, registry: Registry) -> None:
        self._kinds = {(s.info.group, s.info.version, s.info.plural): s for s in registry.served()}

    def group_version(self, path: str) -> tuple[str, str, list[str]] | None:
        """``("batch", "v1", rest)`` for ``/apis/batch/v1/...``; ``None`` for other paths."""
        parts = [p for p in path.split("/") if p]
        if len(parts) >= 2 and parts[0] == "api":
            return "", parts[1], parts[2:]
        if len(parts) >= 3 and parts[0] == "apis":
            return parts[1], parts[2], parts[3:]
        return None

    def _kind(self, group: str, version: str, plural: str) -> KindSpec:
        spec = self._kinds.get((group, version, plural))
        if spec is None:
            gv = f"{group}/{version}" if group else version
            raise NotFound(f"the server could not find the requested resource ({plural} in {gv})")
        return spec

    def resolve(self, group: str, version: str, rest: list[str]) -> ResourcePath:
        namespace = None
        if (len(rest) >= 3 and rest[0] == "namespaces"
                and not (len(rest) == 3 and rest[2] in _NAMESPACE_SUBRESOURCES and not group)):
            namespace, rest = rest[1], rest[2:]
        if not rest or len(rest) > 3:
            raise NotFound("the server could not find the requested resource")
        spec = self._kind(group, version, rest[0])
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if spec.info.namespaced is False and namespace is not None:
            raise NotFound(f"the server could not find the requested resource ({rest[0]} is cluster-scoped)")
        is_log = sub in ("log", "eviction") and spec.info.kind == "Pod"  # pods/log, pods/eviction
        if sub is not None and sub not in spec.info.subresources and not is_log:
            raise NotFound(f'the server could not find the requested resource ({rest[0]}/{sub})')
        return ResourcePath(spec, namespace, name, sub)
