"""Parse Kubernetes resource paths (api-concepts, "Resource URIs").

``/api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]`` for the core group and
``/apis/GROUP/VERSION[/namespaces/NS]/RESOURCE[/NAME[/SUBRESOURCE]]`` for the others. A path
starting with ``namespaces/NAME`` names the Namespace object itself when nothing or only a
namespace subresource (``status``, ``finalize``) follows.

A path no route matches is answered as kube-apiserver's handler chain answers it (k8s.io/apiserver
``pkg/server/handler.go``, the director): under ``/api`` or a built-in group, go-restful claims the
path and its 404 becomes a Status through ``serviceErrorHandler`` (``NewGenericServerResponse(404)``:
"the server could not find the requested resource", no resource named); a custom resource's group
(apiextensions-apiserver ``customresource_handler.go``) passes an unknown resource, a version it does
not serve or a scope that does not fit to its delegate, and a path no one claims reaches the
``NotFoundHandler`` (``pkg/util/notfoundhandler``): Go's plain-text ``404 page not found``
(:class:`PageNotFound`); a custom resource's unknown subresource is the resource's ``NotFound``.

A family's virtual resources (:mod:`kbatch.api.virtual`: the reviews, metrics.k8s.io) are routed here
too (:meth:`Router.virtual`); their groups are built-in ones, and :mod:`kbatch.server.virtual` decides
which verbs their paths take.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.api.errors import MethodNotAllowed, NotFound, StatusDetails
from kbatch.api.registry import KindSpec, Registry
from kbatch.api.virtual import VirtualResource
from kbatch.server.crd_openapi import is_custom_resource_group

__all__ = ["PageNotFound", "ResourcePath", "Router", "VirtualPath", "route_not_found"]

_NAMESPACE_SUBRESOURCES = ("status", "finalize")


class PageNotFound(Exception):
    """A path no handler claims: answered with Go's ``http.NotFound``, plain text, not a Status."""


def route_not_found() -> NotFound:
    """go-restful's 404 as a Status (``NewGenericServerResponse``: empty details, no causes)."""
    return NotFound("the server could not find the requested resource", details=StatusDetails())


@dataclass(frozen=True, slots=True)
class ResourcePath:
    spec: KindSpec
    namespace: str | None
    name: str | None
    subresource: str | None


@dataclass(frozen=True, slots=True)
class VirtualPath:
    resource: VirtualResource
    namespace: str | None
    name: str | None


class Router:
    """Maps (group, version, plural) to a kind, and paths to :class:`ResourcePath` (or, for a virtual
    resource, :class:`VirtualPath`)."""

    def __init__(self, registry: Registry) -> None:
        self._kinds = {(s.info.group, s.info.version, s.info.plural): s for s in registry.served()}
        self._versions = {(group, version) for group, version, _ in self._kinds}
        self._builtin_groups = {g for g, _ in self._versions if not is_custom_resource_group(g)} | {""}
        self._virtual = {(r.group, r.version, r.plural): r for r in registry.virtual()}
        self._virtual_only = {(g, v) for g, v, _ in self._virtual} - self._versions

    def virtual(self, group: str, version: str, rest: list[str]) -> VirtualPath | None:
        """The virtual resource ``rest`` names under ``group/version``; ``None`` when it names none
        (and a stored kind may); in a group version only virtual resources serve, go-restful's 404."""
        namespace = None
        if len(rest) >= 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        resource = self._virtual.get((group, version, rest[0])) if rest else None
        if resource is None:
            if (group, version) in self._virtual_only:
                raise route_not_found()
            return None
        if len(rest) == 3:  # NAME/SUBRESOURCE: the subresource's own route (visibility's pendingworkloads)
            sub = resource.subresource(rest[2])
            if sub is None:
                raise route_not_found()
            return VirtualPath(resource.subresource_target(sub), namespace, rest[1])
        if len(rest) > 2:
            raise route_not_found()
        return VirtualPath(resource, namespace, rest[1] if len(rest) == 2 else None)

    def not_found(self, group: str) -> Exception:
        """What a path under ``group`` that no route matches is answered with (module docstring)."""
        return route_not_found() if group in self._builtin_groups else PageNotFound()

    def group_version(self, path: str) -> tuple[str, str, list[str]] | None:
        """``("batch", "v1", rest)`` for ``/apis/batch/v1/...``; ``None`` for other paths."""
        parts = [p for p in path.split("/") if p]
        if len(parts) >= 2 and parts[0] == "api":
            return "", parts[1], parts[2:]
        if len(parts) >= 3 and parts[0] == "apis":
            return parts[1], parts[2], parts[3:]
        return None

    def resolve(self, group: str, version: str, rest: list[str], method: str = "GET") -> ResourcePath:
        namespace = None
        if (len(rest) >= 3 and rest[0] == "namespaces"
                and not (len(rest) == 3 and rest[2] in _NAMESPACE_SUBRESOURCES and not group)):
            namespace, rest = rest[1], rest[2:]
        spec = self._kinds.get((group, version, rest[0])) if rest else None
        if spec is not None and len(rest) > 3 and rest[2] == "proxy" and spec.info.kind == "Pod":
            rest = rest[:3]  # pods/NAME/proxy/PATH: the path goes to the pod (PodProxyOptions.path)
        if spec is None or len(rest) > 3 or (spec.info.namespaced is False and namespace is not None):
            raise self.not_found(group)
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if spec.info.namespaced and namespace is None and (name is not None or method != "GET"):
            raise self._outside_namespaces(group, name)
        # beyond status, the subresources the kind's family declares (pods/log, serviceaccounts/token)
        if sub is not None and sub not in spec.info.subresources and spec.subresource(sub) is None:
            if group in self._builtin_groups:
                raise route_not_found()
            raise NotFound.of(f"{rest[0]}.{group}", name or "")  # customresource_handler.go's default case
        return ResourcePath(spec, namespace, name, sub)

    def _outside_namespaces(self, group: str, name: str | None) -> Exception:
        """A namespaced kind's path without a namespace serves only list and watch: go-restful has no
        route for a name there (404) and no other method on the collection (405, as
        ``NewGenericServerResponse``); a custom resource's handler passes any other verb to its
        delegate (``possiblyAcrossAllNamespacesVerbs``), hence the plain-text 404."""
        if group not in self._builtin_groups:
            return PageNotFound()
        if name is not None:
            return route_not_found()
        return MethodNotAllowed("the server does not allow this method on the requested resource",
                                details=StatusDetails())
