"""The ProvisioningRequest check's AdmissionCheck reconciler (``provisioning_admissioncheck``) and the
event mappers both of its controllers use.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/
admissioncheck_reconciler.go`` (the Active condition, written when its status changes) and
``controller.go``'s handlers: ``acHandler`` (an AdmissionCheck of this controller created, changed
or deleted → the Workloads whose status names it), ``prcHandler`` (a config created or deleted, or
changed in its class, parameters or managed resources → the checks referencing it; for the Workload
controller, their Workloads) and ``Owns(&ProvisioningRequest{})``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck, AdmissionCheckStatus, ProvisioningRequestConfig, Workload
from kbatch.api.policy_helpers import find_condition, set_status_condition
from kbatch.controllers.kueue.provisioning.config import active_condition, config_name, is_provisioning_check
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["CheckActivator", "CheckWorkloads", "ConfigChecks", "ConfigEvents", "HasChecks", "config_changed"]


class CheckActivator:
    """``acReconciler.Reconcile``."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        ac = self.mgr.get(AdmissionCheck, request.name)
        if not is_provisioning_check(ac):
            return None
        wanted = active_condition(ac, lambda n: self.mgr.get(ProvisioningRequestConfig, n))
        current = find_condition(ac.status.conditions if ac.status else None, "Active")
        if current is not None and current.status == wanted.status:
            return None
        obj = ac.model_copy(deep=True)
        status = obj.status or AdmissionCheckStatus()
        status.conditions = set_status_condition(list(status.conditions or ()), wanted, self.mgr.now())
        obj.status = status
        with contextlib.suppress(Conflict, NotFound):  # a conflict brings a newer event back
            self.mgr.ctx.client.update_status(obj)
        return None


def _checks_using(cache: Any, config: str) -> list[str]:
    """``AdmissionCheckUsingConfigKey``."""
    return [ac.metadata.name or "" for ac in cache.list(AdmissionCheck) if config_name(ac) == config]


def _workloads_with(cache: Any, checks: set[str]) -> list[Request]:
    """``WorkloadsWithAdmissionCheckKey``."""
    return [
        Request(wl.metadata.namespace or "", wl.metadata.name or "")
        for wl in cache.list(Workload)
        if any(c.name in checks for c in (wl.status.admission_checks if wl.status else None) or ())
    ]


class _CacheMapper:
    __slots__ = ("cache",)

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def __getstate__(self) -> Any:
        return self.cache

    def __setstate__(self, state: Any) -> None:
        self.cache = state


class CheckWorkloads(_CacheMapper):
    """``acHandler``: a provisioning AdmissionCheck's event → the Workloads naming it."""

    def __call__(self, ac: AdmissionCheck) -> list[Request]:
        if not is_provisioning_check(ac):
            return []
        return _workloads_with(self.cache, {ac.metadata.name or ""})


class ConfigChecks(_CacheMapper):
    """``prcHandler``: a config's event → the checks using it, or (``workloads``) their Workloads."""

    __slots__ = ("workloads",)

    def __init__(self, cache: Any, workloads: bool) -> None:
        super().__init__(cache)
        self.workloads = workloads

    def __call__(self, prc: ProvisioningRequestConfig) -> list[Request]:
        checks = _checks_using(self.cache, prc.metadata.name or "")
        if self.workloads:
            return _workloads_with(self.cache, set(checks))
        return [Request("", name) for name in checks]

    def __getstate__(self) -> Any:
        return (self.cache, self.workloads)

    def __setstate__(self, state: Any) -> None:
        self.cache, self.workloads = state


def config_changed(old: ProvisioningRequestConfig, new: ProvisioningRequestConfig) -> bool:
    """``prcHandler.Update``: class, parameters or managed resources (as a set) changed."""
    a, b = old.spec, new.spec
    return (
        (a.provisioning_class_name if a else None) != (b.provisioning_class_name if b else None)
        or ((a.parameters if a else None) or {}) != ((b.parameters if b else None) or {})
        or sorted((a.managed_resources if a else None) or ())
        != sorted((b.managed_resources if b else None) or ())
    )


class HasChecks:
    """The Workload events that can concern the check: one whose status names admission checks (old
    or new). Upstream reconciles every Workload event; one naming no check has nothing to do."""

    @staticmethod
    def _named(wl: Workload) -> bool:
        return bool(wl.status is not None and wl.status.admission_checks)

    def create(self, obj: Workload) -> bool:
        return self._named(obj)

    def update(self, old: Workload, new: Workload) -> bool:
        return self._named(old) or self._named(new)

    def delete(self, obj: Workload) -> bool:
        return False  # the requests and templates go with it (owner references)


class ConfigEvents:
    """``prcHandler``'s filter for the Workload controller: creates, deletes, and the updates
    :func:`config_changed` accepts."""

    def create(self, obj: ProvisioningRequestConfig) -> bool:
        return True

    def update(self, old: ProvisioningRequestConfig, new: ProvisioningRequestConfig) -> bool:
        return config_changed(old, new)

    def delete(self, obj: ProvisioningRequestConfig) -> bool:
        return True
