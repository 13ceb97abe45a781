"""Resources served without storage: the create-only reviews, the aggregated metrics and Kueue's
visibility API.

Upstream, a resource is whatever REST storage an API group installs, and some of those have no store
behind them: ``pkg/registry/authorization/*/rest.go`` (SubjectAccessReview, SelfSubjectAccessReview,
LocalSubjectAccessReview, SelfSubjectRulesReview) and ``pkg/registry/authentication/{tokenreview,
selfsubjectreview}`` implement only ``rest.Creater`` (plus ``NamespaceScoped``, ``New``,
``GetSingularName``): the installer (k8s.io/apiserver ``pkg/endpoints/installer.go``) gives them a
``POST`` route and nothing else, discovery lists them with the ``create`` verb, and the answer is the
request with its ``status`` filled in, never stored. metrics.k8s.io is not kube-apiserver's at all:
metrics-server registers ``v1beta1.metrics.k8s.io`` as an APIService (k8s.io/kube-aggregator), so its
``nodes`` and ``pods`` (Getter and Lister only) are proxied, and the aggregator lists its group after the
local ones; Kueue's visibility server likewise (``v1beta2.visibility.kueue.x-k8s.io``), whose only
routes are subresources under a name (``clusterqueues/NAME/pendingworkloads``:
:attr:`VirtualResource.subresources`).

A :class:`VirtualResource` declares one such resource for a family (``Family.virtual``); the server's
discovery (legacy and aggregated), OpenAPI, routing and RBAC attributes and the CLI read it from the
registry (:meth:`kbatch.api.registry.Registry.virtual`). ``handler`` answers one call: a callable or a
``"module:attribute"`` reference above the API layer (``kbatch.server.virtual.VirtualCall`` is what it
gets).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Subresource", "VirtualResource"]


@dataclass(frozen=True, slots=True)
class VirtualResource:
    """One resource without storage. ``verbs`` are discovery's and the routes: ``create`` is a ``POST``
    on the collection (upstream's ``Creater``), ``list`` a ``GET`` on it (``Lister``), ``get`` a ``GET``
    of a name (``Getter``). ``singular``: discovery's ``singularName`` (``None``: the kind in lower
    case, as ``GetSingularName`` returns; metrics-server's storage has none, so ``""``).
    ``aggregated``: served through an APIService (the name, e.g. ``v1beta1.metrics.k8s.io``), which
    puts the group after kube-apiserver's own in discovery. ``table``: the resource's own
    ``rest.TableConvertor`` (``"module:function"`` taking the answer of a get or list and the
    ``includeObject`` option), for clients that ask for a Table; ``None``: the answer as is.
    ``subresources``: what is served under a name (``NAME/SUB``), each answered by its own
    ``handler``: Kueue's visibility API serves only ``clusterqueues/NAME/pendingworkloads``, its
    ``clusterqueues`` storage has no verb (``pkg/visibility/storage/storage.go``)."""

    group: str
    version: str
    plural: str
    kind: str
    handler: str | Callable[..., Any]
    namespaced: bool = False
    verbs: tuple[str, ...] = ("create",)
    singular: str | None = None
    aggregated: str = ""
    table: str | None = None
    subresources: tuple[Subresource, ...] = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def singular_name(self) -> str:
        return self.kind.lower() if self.singular is None else self.singular

    def discovery_entry(self) -> dict[str, Any]:
        """The ``APIResource`` of a legacy ``APIResourceList`` (k8s.io/apimachinery ``meta/v1``)."""
        return {"name": self.plural, "singularName": self.singular_name, "namespaced": self.namespaced,
                "kind": self.kind, "verbs": list(self.verbs)}

    def subresource(self, name: str) -> Subresource | None:
        return next((s for s in self.subresources if s.name == name), None)

    def subresource_target(self, sub: Subresource) -> VirtualResource:
        """``sub`` as the resource a call names: ``plural/sub``, its own kind, verbs and handler."""
        return VirtualResource(self.group if sub.group is None else sub.group,
                               self.version if sub.version is None else sub.version,
                               f"{self.plural}/{sub.name}", sub.kind or self.kind, sub.handler or "",
                               namespaced=self.namespaced, verbs=sub.verbs, singular="",
                               aggregated=self.aggregated)


@dataclass(frozen=True, slots=True)
class Subresource:
    """A stored kind's subresource beyond ``status`` (which :attr:`ApiInfo.subresources` lists): what
    upstream installs as a further storage under the resource's path (``pods/log``, ``pods/eviction``,
    ``pods/exec``, ``serviceaccounts/token``: ``pkg/registry/core/pod/rest/``,
    ``pkg/registry/core/serviceaccount/storage/token.go``). ``kind``: the response kind (``""``: the
    parent's); ``group``/``version``: the kind's group version when it is not the parent's (an
    Eviction is policy/v1, a TokenRequest authentication.k8s.io/v1), as discovery spells them;
    ``handler``: a ``"module:attribute"`` reference to what answers it
    (``kbatch.server.virtual.VirtualCall``), or ``None`` when the kind's own REST handlers serve it."""

    name: str
    verbs: tuple[str, ...]
    kind: str = ""
    group: str | None = None
    version: str | None = None
    handler: str | Callable[..., Any] | None = None

    def discovery_entry(self, plural: str, kind: str, namespaced: bool) -> dict[str, Any]:
        """Its ``APIResource`` under the parent ``plural`` (k8s.io/apimachinery ``meta/v1``)."""
        entry: dict[str, Any] = {"name": f"{plural}/{self.name}", "singularName": "",
                                 "namespaced": namespaced}
        if self.group is not None:
            entry |= {"group": self.group, "version": self.version or ""}
        return entry | {"kind": self.kind or kind, "verbs": list(self.verbs)}
