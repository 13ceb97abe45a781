"""The DRA family's admission plugin ``DynamicResourceAllocation``: what upstream's resource
strategies do with the API server's help (``pkg/registry/resource/resourceclaim/strategy.go``,
``devicetaintrule/strategy.go``, ``resourceslice/strategy.go``):

* a ResourceClaim or ResourceClaimTemplate with a request asking for ``adminAccess: true`` is allowed
  only in a namespace labelled ``resource.kubernetes.io/admin-access: "true"`` (KEP-5018); otherwise
  ``Invalid``: "admin access to devices requires the `resource.kubernetes.io/admin-access: true` label
  on the containing namespace";
* a device taint without ``timeAdded`` (in a ResourceSlice or a DeviceTaintRule) gets the server's
  current time on create, and keeps the stored value on update;
* a DeviceTaintRule update that changes the taint's effect and leaves ``timeAdded`` as it was (or
  unset) gets the current time (``PrepareForUpdate``: the time the *effect* was added, from which
  tolerationSeconds count).

kbatch difference: these are one admission plugin (switchable with ``--disable-admission-plugins``)
because kbatch's strategies have no namespace lister and no clock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import FieldError, Invalid, NotFound
from kbatch.api.resource_v1 import (
    ADMIN_ACCESS_NAMESPACE_LABEL,
    DeviceTaintRule,
    ResourceClaim,
    ResourceClaimTemplate,
    ResourceSlice,
)
from kbatch.apiserver.admission import AdmissionRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ADMIN_ACCESS_MESSAGE", "install"]

ADMIN_ACCESS_MESSAGE = (
    "admin access to devices requires the `resource.kubernetes.io/admin-access: true` "
    "label on the containing namespace"
)


class _Plugin:
    def __init__(self, server: APIServer) -> None:
        self.server = server

    def _namespace_allows_admin(self, name: str) -> bool:
        try:
            ns = self.server.get(Namespace, name)
        except NotFound:
            return False
        return (ns.metadata.labels or {}).get(ADMIN_ACCESS_NAMESPACE_LABEL) == "true"

    def admin_access(self, request: AdmissionRequest) -> None:
        obj = request.obj
        if not isinstance(obj, ResourceClaim | ResourceClaimTemplate):  # (registered for those two)
            return
        claim = obj.spec.spec.devices if isinstance(obj, ResourceClaimTemplate) else obj.spec.devices
        if request.operation != "CREATE":
            return
        prefix = (
            "spec.spec.devices.requests"
            if isinstance(obj, ResourceClaimTemplate)
            else "spec.devices.requests"
        )
        wanted = [
            i for i, r in enumerate(claim.requests or ()) if r.exactly is not None and r.exactly.admin_access
        ]
        if not wanted or self._namespace_allows_admin(obj.metadata.namespace or ""):
            return
        kind = obj.api_info
        errors = [
            FieldError.forbidden(f"{prefix}[{i}].exactly.adminAccess", ADMIN_ACCESS_MESSAGE) for i in wanted
        ]
        raise Invalid.of(kind.group_kind, obj.metadata.name or obj.metadata.generate_name or "", errors)

    def _now(self) -> Any:
        return self.server.timestamp()

    def slice_taints(self, request: AdmissionRequest) -> None:
        obj, stored = request.obj, request.old
        if not isinstance(obj, ResourceSlice):  # (registered for ResourceSlice)
            return
        old: dict[tuple[str, str, str], Any] = {}
        if isinstance(stored, ResourceSlice):
            for device in stored.spec.devices or ():
                for taint in device.taints or ():
                    old[(device.name, taint.key, taint.effect)] = taint.time_added
        for device in obj.spec.devices or ():
            for taint in device.taints or ():
                if taint.time_added is None:
                    taint.time_added = old.get((device.name, taint.key, taint.effect)) or self._now()

    def rule_taint(self, request: AdmissionRequest) -> None:
        obj, stored = request.obj, request.old
        if not isinstance(obj, DeviceTaintRule):  # (registered for DeviceTaintRule)
            return
        taint = obj.spec.taint
        before = stored.spec.taint if isinstance(stored, DeviceTaintRule) else None
        effect_changed = before is not None and taint.effect != before.effect
        if effect_changed and taint.time_added in (None, before.time_added if before else None):
            taint.time_added = self._now()
        elif taint.time_added is None:
            taint.time_added = (before.time_added if before is not None else None) or self._now()


def install(server: APIServer) -> None:
    plugin = _Plugin(server)
    server.admission.add_validating(ResourceClaim, plugin.admin_access, main_resource_only=True)
    server.admission.add_validating(ResourceClaimTemplate, plugin.admin_access, main_resource_only=True)
    server.admission.add_mutating(ResourceSlice, plugin.slice_taints, main_resource_only=True)
    server.admission.add_mutating(DeviceTaintRule, plugin.rule_taint, main_resource_only=True)
