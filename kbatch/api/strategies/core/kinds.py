"""Strategies for Node, Namespace, Service, Event and PriorityClass.

Upstream: kubernetes ``pkg/registry/core/{node,namespace,service,event}/strategy.go``,
``pkg/registry/scheduling/priorityclass/strategy.go`` and the matching rules in
``pkg/apis/core/validation`` / ``pkg/apis/scheduling/validation``. Generic metadata checks (name
format, namespace by scope, labels, ...) are the API server's.
"""

from __future__ import annotations

from kbatch.api.core_v1 import Event, Namespace, NamespaceSpec, NamespaceStatus, Node, Service, ServiceSpec
from kbatch.api.errors import FieldError
from kbatch.api.model_copy import copy_model
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.api.strategies.core.events import legacy_errors
from kbatch.api.strategies.core.pod_validation import PREEMPTION_POLICIES
from kbatch.api.strategies.core.scheduling_validation import validate_taints
from kbatch.api.strategy import DefaultStrategy
from kbatch.api.validation import (
    FINALIZER_FOREGROUND,
    FINALIZER_ORPHAN,
    child,
    index,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_qualified_name,
    validate_immutable,
)

__all__ = [
    "EventStrategy",
    "NamespaceFinalizeStrategy",
    "NamespaceStrategy",
    "NodeStrategy",
    "PriorityClassStrategy",
    "ServiceStrategy",
]


class NodeStrategy(DefaultStrategy):
    """Nodes may carry status on create (the kubelet registers itself with its capacity)."""

    has_generation = False  # upstream's strategy sets no metadata.generation

    def prepare_for_create(self, obj: Node) -> None:  # type: ignore[override]
        obj.spec.config_source = None

    def validate(self, obj: Node) -> list[FieldError]:  # type: ignore[override]
        errs = validate_taints(obj.spec.taints, "spec.taints")
        for field in ("capacity", "allocatable"):
            values = getattr(obj.status, field) or {} if obj.status else {}
            for name in sorted(values):
                if values[name].sign() < 0:
                    errs.append(FieldError.invalid(f"status.{field}[{name}]", str(values[name]),
                                                   "must be greater than or equal to 0"))
        return errs

    def validate_update(self, new: Node, old: Node) -> list[FieldError]:  # type: ignore[override]
        errs: list[FieldError] = []
        if old.spec.pod_cidr and new.spec.pod_cidr != old.spec.pod_cidr:
            errs.append(FieldError.forbidden("spec.podCIDR", "node updates may not change podCIDR except "
                                             "from \"\" to valid"))
        if old.spec.provider_id and new.spec.provider_id != old.spec.provider_id:
            errs.append(FieldError.forbidden("spec.providerID", "node updates may not change providerID "
                                             "except from \"\" to valid"))
        return errs

    def validate_status_update(self, new: Node, old: Node) -> list[FieldError]:  # type: ignore[override]
        return self.validate(new)


_KUBERNETES_FINALIZER = "kubernetes"
_STANDARD_FINALIZERS = frozenset({_KUBERNETES_FINALIZER, FINALIZER_ORPHAN, FINALIZER_FOREGROUND})
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
_NOT_QUALIFIED = "name is neither a standard finalizer name nor is it fully qualified"


class NamespaceStrategy(DefaultStrategy):
    """Namespaces: the name label, phase Active and the ``kubernetes`` spec finalizer on create;
    ``spec.finalizers`` changes only through the ``finalize`` subresource."""

    has_generation = False  # upstream's strategy sets no metadata.generation

    def default(self, obj: Namespace) -> None:  # type: ignore[override]
        if obj.metadata.name:
            obj.metadata.labels = {**(obj.metadata.labels or {}), NAMESPACE_NAME_LABEL: obj.metadata.name}

    def prepare_for_create(self, obj: Namespace) -> None:  # type: ignore[override]
        obj.status = NamespaceStatus(phase="Active")
        spec = obj.spec or NamespaceSpec()
        if _KUBERNETES_FINALIZER not in (spec.finalizers or ()):
            spec.finalizers = [*(spec.finalizers or ()), _KUBERNETES_FINALIZER]
        obj.spec = spec

    def prepare_for_update(self, new: Namespace, old: Namespace) -> None:  # type: ignore[override]
        new.status = old.status
        new.spec = copy_model(old.spec) if old.spec else None

    def validate(self, obj: Namespace) -> list[FieldError]:  # type: ignore[override]
        errs: list[FieldError] = []
        for name in (obj.spec.finalizers or ()) if obj.spec else ():
            errs += _finalizer_name_errors(name, "spec.finalizers")
        return errs

    def spec_changed(self, new: Namespace, old: Namespace) -> bool:  # type: ignore[override]
        return False  # namespaces have no generation semantics upstream


class NamespaceFinalizeStrategy(NamespaceStrategy):
    """The ``namespaces/{name}/finalize`` subresource (upstream ``namespaceFinalizeStrategy`` in
    ``pkg/registry/core/namespace/strategy.go``): the only write that may change ``spec.finalizers``.
    Status is kept from the stored object; validation is ValidateNamespaceFinalizeUpdate's, each
    finalizer name checked at its index (object-meta update rules are the server's, as for any update)."""

    def prepare_for_update(self, new: Namespace, old: Namespace) -> None:  # type: ignore[override]
        new.status = copy_model(old.status) if old.status else None

    def validate(self, obj: Namespace) -> list[FieldError]:  # type: ignore[override]
        return []  # upstream's finalize ValidateUpdate does not run ValidateNamespace

    def validate_update(self, new: Namespace, old: Namespace) -> list[FieldError]:  # type: ignore[override]
        names = (new.spec.finalizers or ()) if new.spec else ()
        return [err for i, name in enumerate(names)
                for err in _finalizer_name_errors(name, f"spec.finalizers[{i}]")]


def _finalizer_name_errors(name: str, path: str) -> list[FieldError]:
    """validateFinalizerName: a qualified name, and one without a ``/`` must be a standard finalizer
    (``kubernetes``, ``orphan``, ``foregroundDeletion``: IsStandardFinalizerName)."""
    errs = [FieldError.invalid(path, name, m) for m in is_qualified_name(name)]
    if "/" not in name and name not in _STANDARD_FINALIZERS:
        errs.append(FieldError.invalid(path, name, _NOT_QUALIFIED))
    return errs


SERVICE_TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]
_PROTOCOLS = ["SCTP", "TCP", "UDP"]


class ServiceStrategy(DefaultStrategy):
    """Services: type, sessionAffinity, ports' protocol and targetPort defaults; headless allowed."""

    has_generation = False  # upstream's strategy sets no metadata.generation

    def default(self, obj: Service) -> None:  # type: ignore[override]
        spec = obj.spec
        spec.type = spec.type or "ClusterIP"
        spec.session_affinity = spec.session_affinity or "None"
        for port in spec.ports or ():
            port.protocol = port.protocol or "TCP"
            if port.target_port is None or port.target_port in (0, ""):
                port.target_port = port.port
        if spec.type in ("ClusterIP", "NodePort", "LoadBalancer") and not spec.internal_traffic_policy:
            spec.internal_traffic_policy = "Cluster"
        if spec.cluster_ip and not spec.cluster_ips:
            spec.cluster_ips = [spec.cluster_ip]

    def validate(self, obj: Service) -> list[FieldError]:  # type: ignore[override]
        errs: list[FieldError] = []
        name = obj.metadata.name or ""
        if name and not is_dns1123_subdomain(name):  # the server reports subdomain errors itself
            errs += [FieldError.invalid("metadata.name", name, m) for m in is_dns1035_label(name)]
        spec = obj.spec
        if spec.type not in SERVICE_TYPES:
            errs.append(FieldError.not_supported("spec.type", spec.type, SERVICE_TYPES))
        if spec.type != "ExternalName" and not spec.ports and spec.cluster_ip != "None":
            errs.append(FieldError.required("spec.ports"))
        errs += self._port_errors(obj)
        if spec.type == "ExternalName":
            errs += _external_name_errors(spec)
        return errs

    def prepare_for_update(self, new: Service, old: Service) -> None:  # type: ignore[override]
        super().prepare_for_update(new, old)
        _drop_type_dependent_fields(new, old)

    @staticmethod
    def _port_errors(obj: Service) -> list[FieldError]:
        errs: list[FieldError] = []
        ports = obj.spec.ports or []
        names: set[str] = set()
        for i, port in enumerate(ports):
            at = index("spec.ports", i)
            if len(ports) > 1 and not port.name:
                errs.append(FieldError.required(child(at, "name")))
            elif port.name:
                if port.name in names:
                    errs.append(FieldError.duplicate(child(at, "name"), port.name))
                names.add(port.name)
            if not 1 <= port.port <= 65535:
                errs.append(FieldError.invalid(child(at, "port"), port.port,
                                               "must be between 1 and 65535, inclusive"))
            if port.protocol not in _PROTOCOLS:
                errs.append(FieldError.not_supported(child(at, "protocol"), port.protocol, _PROTOCOLS))
        return errs

    def validate_update(self, new: Service, old: Service) -> list[FieldError]:  # type: ignore[override]
        # validateUpgradeDowngradeClusterIPs: no check when changing from, to or on ExternalName
        if "ExternalName" in (old.spec.type, new.spec.type):
            return []
        if old.spec.cluster_ip and new.spec.cluster_ip != old.spec.cluster_ip:
            return validate_immutable(new.spec.cluster_ip, old.spec.cluster_ip, "spec.clusterIP")
        return []


def _external_name_errors(spec: ServiceSpec) -> list[FieldError]:
    """``ValidateService`` for ``type: ExternalName``: no cluster IPs, families or policy; a DNS subdomain
    (a trailing dot allowed) as ``externalName``."""
    errs = [FieldError.forbidden(f"spec.{field}", "may not be set for ExternalName services")
            for field, value in (("clusterIPs", spec.cluster_ips), ("ipFamilies", spec.ip_families),
                                 ("ipFamilyPolicy", spec.ip_family_policy)) if value]
    cname = (spec.external_name or "").removesuffix(".")
    if not cname:
        return [*errs, FieldError.required("spec.externalName")]
    return errs + [FieldError.invalid("spec.externalName", cname, m) for m in is_dns1123_subdomain(cname)]


def _drop_type_dependent_fields(new: Service, old: Service) -> None:
    """``dropTypeDependentFields`` (kubernetes ``pkg/registry/core/service/strategy.go``): switching to a
    type that needs no cluster IP (ExternalName) wipes the cluster IPs, families, policy and internal
    traffic policy the user left as they were; switching to one without node ports wipes unchanged
    node ports."""
    spec, before = new.spec, old.spec
    if before.type != "ExternalName" and spec.type == "ExternalName":
        if (spec.cluster_ip, spec.cluster_ips) == (before.cluster_ip, before.cluster_ips):
            spec.cluster_ip, spec.cluster_ips = None, None
        if spec.ip_families == before.ip_families:
            spec.ip_families = None
        if spec.ip_family_policy == before.ip_family_policy:
            spec.ip_family_policy = None
        if spec.internal_traffic_policy == before.internal_traffic_policy:
            spec.internal_traffic_policy = None
    if before.type in ("NodePort", "LoadBalancer") and spec.type not in ("NodePort", "LoadBalancer") \
            and [p.node_port for p in spec.ports or ()] == [p.node_port for p in before.ports or ()]:
        for port in spec.ports or ():
            port.node_port = None


class EventStrategy(DefaultStrategy):
    """core/v1 Events: no status; upstream's legacy validation."""

    has_generation = False  # upstream's strategy sets no metadata.generation
    has_status = False

    def validate(self, obj: Event) -> list[FieldError]:  # type: ignore[override]
        """upstream ``legacyValidateEvent`` (:mod:`.events`); events.k8s.io/v1 writes add the strict
        rules at the version's seam (``ServedVersion.validate``)."""
        return legacy_errors(obj)

    def spec_changed(self, new: Event, old: Event) -> bool:  # type: ignore[override]
        return False


HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_PRIORITY_CLASSES = {"system-cluster-critical": 2_000_000_000, "system-node-critical": 2_000_001_000}


class PriorityClassStrategy(DefaultStrategy):
    """PriorityClass: ``preemptionPolicy`` defaults to PreemptLowerPriority; value immutable."""

    has_status = False

    def default(self, obj: PriorityClass) -> None:  # type: ignore[override]
        if obj.preemption_policy is None:
            obj.preemption_policy = "PreemptLowerPriority"

    def validate(self, obj: PriorityClass) -> list[FieldError]:  # type: ignore[override]
        errs: list[FieldError] = []
        name = obj.metadata.name or ""
        if name.startswith("system-"):
            known = SYSTEM_PRIORITY_CLASSES.get(name)
            if known is None or known != obj.value:
                why = (f"{name} is not a known system priority class" if known is None
                       else f"value of {name} PriorityClass must be {known}")
                errs.append(FieldError.forbidden(
                    "metadata.name",
                    "priority class names with 'system-' prefix are reserved for system use only. "
                    f"error: {why}"))
        elif obj.value > HIGHEST_USER_DEFINABLE_PRIORITY:
            errs.append(FieldError.forbidden("value", "maximum allowed value of a user defined priority is "
                                             f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
        if obj.preemption_policy is not None and obj.preemption_policy not in PREEMPTION_POLICIES:
            errs.append(FieldError.not_supported("preemptionPolicy", obj.preemption_policy,
                                                 PREEMPTION_POLICIES))
        return errs

    def validate_update(  # type: ignore[override]
        self, new: PriorityClass, old: PriorityClass,
    ) -> list[FieldError]:
        errs: list[FieldError] = []
        if new.value != old.value:
            errs.append(FieldError.forbidden("value", "may not be changed in an update."))
        errs += validate_immutable(new.preemption_policy, old.preemption_policy, "preemptionPolicy")
        return errs

    def spec_changed(self, new: PriorityClass, old: PriorityClass) -> bool:  # type: ignore[override]
        return False
