"""Kueue's ProvisioningRequest admission check: the Workload reconciler (``provisioning_workload``).

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/provisioning/controller.go``
``Reconcile``, in its order:

1. a Workload neither holding quota, finished nor evicted is left alone;
2. finished, or evicted with ``CleanupProvisioningRequestsOnEviction`` (beta, on): every request it
   owns is deleted; evicted otherwise: nothing;
3. its checks of this controller (``FilterForController``), each with its config, or none when the
   check or config is missing (an invalid reference fails the reconcile, retried with the
   controller's back-off, as upstream's error is);
4. per check the newest request whose name carries the check and that matches the config's class and
   parameters (``activeOrLastPRForChecks``);
5. the check states from those requests (:mod:`.checkstate`), with ``AdmissionCheckUpdated`` events;
6. the requests it owns but no longer uses are deleted;
7. per check still not Ready: a request (and its pod templates) is created when none is there, or
   when the last one Failed or its booking expired before admission while the check is Pending
   again (the next attempt); the templates pass from the Workload to the request.

Checks are visited in name order (upstream: map order). Creation errors: a ``FailedCreate`` warning
event and the error on the check's message (``handleError``), unless the object already exists but
the cache has not seen it yet; either way the error fails the reconcile, retried with the
controller's back-off.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from kbatch.api.autoscaling_x_v1 import (
    BOOKING_EXPIRED,
    FAILED,
    PodSet,
    ProvisioningRequest,
    ProvisioningRequestSpec,
    Reference,
)
from kbatch.api.core_v1 import PodTemplate
from kbatch.api.errors import AlreadyExists, Conflict, NotFound, StatusError
from kbatch.api.kueue_v1beta2 import (
    AdmissionCheck,
    AdmissionCheckState,
    ProvisioningRequestConfig,
    ResourceFlavor,
    Workload,
    WorkloadStatus,
)
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.api.meta import ObjectMeta
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.provisioning.checkstate import Facts, next_state
from kbatch.controllers.kueue.provisioning.config import BadConfig, config_from_ref, is_provisioning_check
from kbatch.controllers.kueue.provisioning.naming import attempt_of, matches, pod_template_name, request_name
from kbatch.controllers.kueue.provisioning.podsets import (
    merge_pod_sets,
    request_needed,
)
from kbatch.controllers.kueue.provisioning.templates import MANAGED_LABEL, owner_ref, pod_template
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.manager import KueueManager

__all__ = ["PROVREQ_ANNOTATION_PREFIX", "ProvisioningController", "synced_with_config"]

PROVREQ_ANNOTATION_PREFIX = "provreq.kueue.x-k8s.io/"  # ProvReqAnnotationPrefix: passed as parameters
Configs = dict[str, ProvisioningRequestConfig | None]


def _retryable(pr: ProvisioningRequest, admitted: bool) -> bool:
    """The last attempt failed, or its booking expired before the workload was admitted."""
    return pr.true_condition(FAILED) is not None or (
        pr.true_condition(BOOKING_EXPIRED) is not None and not admitted
    )


def _managed(prc: ProvisioningRequestConfig) -> list[str]:
    return list((prc.spec.managed_resources if prc.spec else None) or ())


def synced_with_config(pr: ProvisioningRequest, prc: ProvisioningRequestConfig) -> bool:
    """``provReqSyncedWithConfig``: same class, and every parameter of the config with its value."""
    spec, cfg = pr.spec, prc.spec
    if (spec.provisioning_class_name if spec else None) != (cfg.provisioning_class_name if cfg else None):
        return False
    have = (spec.parameters if spec else None) or {}
    return all(have.get(k) == v for k, v in ((cfg.parameters if cfg else None) or {}).items())


class ProvisioningController:
    """``provisioning.Controller`` (see the module docstring)."""

    def __init__(self, mgr: KueueManager) -> None:
        self.mgr = mgr

    def reconcile(self, request: Request) -> Result | None:
        wl = self.mgr.get(Workload, request.name, request.namespace)
        if wl is None:
            return None
        finished, evicted = W.has(wl.status, Cond.FINISHED), W.has(wl.status, Cond.EVICTED)
        if not W.has(wl.status, Cond.QUOTA_RESERVED) and not finished and not evicted:
            return None
        owned = self._owned(wl)
        if finished or (evicted and self.mgr.settings.on("CleanupProvisioningRequestsOnEviction")):
            self._delete_unused(owned, set())
            return None
        if evicted:
            return None
        # a bad parameters reference (``BadConfig``) or an assignment missing for a pod set
        # (``InconsistentAssignments``) is raised, as upstream returns it: the reconcile is retried
        # with the controller's back-off (5 ms doubling to 1000 s), besides the events that fix it
        configs = self._configs(wl)
        active = self._active_or_last(wl, configs, owned)
        states = self._sync_check_states(wl, configs, active)
        self._delete_unused(owned, {pr.metadata.name or "" for pr in active.values()})
        self._sync_owned(wl, states, configs, active)
        return None

    # --- reading ----------------------------------------------------------------------------------
    def _owned(self, wl: Workload) -> list[ProvisioningRequest]:
        """``RequestsOwnedByWorkloadKey``: the requests with an owner reference of the Workload's name."""
        name = wl.metadata.name
        return [
            pr
            for pr in self.mgr.ctx.cache.list(ProvisioningRequest, wl.metadata.namespace)
            if any(ref.name == name for ref in pr.metadata.owner_references or ())
        ]

    def _configs(self, wl: Workload) -> Configs:
        """Steps 3: this controller's checks with their configs (None: check or config missing)."""
        out: Configs = {}
        for state in (wl.status.admission_checks if wl.status else None) or ():
            ac = self.mgr.get(AdmissionCheck, state.name or "")
            if not is_provisioning_check(ac):
                continue
            try:
                out[state.name or ""] = config_from_ref(
                    ac.spec.parameters, lambda n: self.mgr.get(ProvisioningRequestConfig, n)
                )
            except BadConfig as err:
                if not err.not_found:
                    raise
                out[state.name or ""] = None
        return dict(sorted(out.items()))

    def _active_or_last(
        self, wl: Workload, configs: Configs, owned: list[ProvisioningRequest]
    ) -> dict[str, ProvisioningRequest]:
        """Step 4 (``activeOrLastPRForChecks``)."""
        name, out = wl.metadata.name or "", {}
        for check, prc in configs.items():
            if prc is None or not request_needed(wl, _managed(prc)):
                continue
            candidates = [
                pr
                for pr in owned
                if matches(pr.metadata.name or "", name, check) and synced_with_config(pr, prc)
            ]
            if candidates:
                out[check] = max(candidates, key=lambda pr: attempt_of(pr.metadata.name or "", name, check))
        return out

    # --- step 5 -----------------------------------------------------------------------------------
    def _sync_check_states(
        self, wl: Workload, configs: Configs, active: dict[str, ProvisioningRequest]
    ) -> dict[str, AdmissionCheckState]:
        events: list[str] = []

        def mutate(status: WorkloadStatus, obj: Workload) -> bool:
            events.clear()
            facts = Facts(
                obj,
                W.has(status, Cond.ADMITTED),
                obj.spec is None or obj.spec.active is not False,
                W.has(status, Cond.FINISHED),
            )
            checks = list(status.admission_checks or ())
            for i, current in enumerate(checks):
                if (current.name or "") not in configs:
                    continue
                prc = configs[current.name or ""]
                needed = prc is not None and request_needed(obj, _managed(prc))
                new = next_state(current, facts, prc, needed, active.get(current.name or ""))
                if new is None:
                    return False  # upstream: no request yet for a check that needs one, no write at all
                if new.state != current.state:
                    text = f"Admission check {new.name} updated state from {current.state} to {new.state}"
                    events.append(text + (f" with message: {new.message}" if new.message else ""))
                checks[i] = new
            if checks == list(status.admission_checks or ()):
                return False
            status.admission_checks = checks
            return True

        written = write_status(self.mgr, wl, mutate)
        for text in events if written is not None else ():
            self.mgr.recorder.event(
                written, "Normal", "AdmissionCheckUpdated", W.truncate(text, W.MAX_EVENT_MESSAGE)
            )
        final = written if written is not None else wl
        return {c.name or "": c for c in (final.status.admission_checks if final.status else None) or ()}

    # --- step 6 -----------------------------------------------------------------------------------
    def _delete_unused(self, owned: list[ProvisioningRequest], keep: set[str]) -> None:
        for pr in owned:
            if (pr.metadata.name or "") not in keep:
                with contextlib.suppress(NotFound):
                    self.mgr.ctx.client.delete(
                        ProvisioningRequest, pr.metadata.name or "", pr.metadata.namespace
                    )

    # --- step 7 -----------------------------------------------------------------------------------
    def _sync_owned(
        self,
        wl: Workload,
        states: dict[str, AdmissionCheckState],
        configs: Configs,
        active: dict[str, ProvisioningRequest],
    ) -> None:
        name, admitted = wl.metadata.name or "", W.has(wl.status, Cond.ADMITTED)
        for check, prc in configs.items():
            if prc is None or not request_needed(wl, _managed(prc)):
                continue
            state = states.get(check)
            if state is not None and state.state == "Ready":
                continue
            pr = active.get(check)
            attempt = (state.retry_count or 0) + 1 if state is not None else 1
            create = pr is None
            if pr is not None and _retryable(pr, admitted) and state is not None and state.state == "Pending":
                attempt, create = attempt_of(pr.metadata.name or "", name, check) + 1, True
            if create:
                pr = self._create(wl, state, prc, request_name(name, check, attempt))
                active[check] = pr
            assert pr is not None
            self._adopt_templates(wl, pr)

    def _create(
        self, wl: Workload, state: AdmissionCheckState | None, prc: ProvisioningRequestConfig, name: str
    ) -> ProvisioningRequest:
        """The request and its templates; a failed create is reported (``handleError``) and raised,
        so the reconcile is retried with the controller's back-off, as upstream returns it."""
        client, namespace = self.mgr.ctx.client, wl.metadata.namespace
        spec = prc.spec
        parameters = dict((spec.parameters if spec else None) or {})
        for key, value in sorted((wl.metadata.annotations or {}).items()):  # passProvReqParams
            if key.startswith(PROVREQ_ANNOTATION_PREFIX):
                parameters[key.removeprefix(PROVREQ_ANNOTATION_PREFIX)] = value
        pod_sets: list[PodSet] = []
        for merged in merge_pod_sets(wl, _managed(prc), spec.pod_set_merge_policy if spec else None):
            pt_name = pod_template_name(name, merged.name)
            if self.mgr.get(PodTemplate, pt_name, namespace) is None:
                try:
                    client.create(
                        pod_template(
                            wl,
                            pt_name,
                            merged.pod_set,
                            merged.assignment,
                            lambda f: self.mgr.get(ResourceFlavor, f),
                        )
                    )
                except (StatusError, ValueError) as err:
                    self._handle_error(
                        wl, state, PodTemplate, pt_name, f'Error creating PodTemplate "{pt_name}": {err}', err
                    )
                    raise
            pod_sets.append(PodSet(pod_template_ref=Reference(name=pt_name), count=merged.count))
        pr = ProvisioningRequest(
            metadata=ObjectMeta(
                name=name,
                namespace=namespace,
                labels=dict([MANAGED_LABEL]),
                owner_references=[owner_ref(wl.api_version, wl.kind, wl.metadata)],
            ),
            spec=ProvisioningRequestSpec(
                pod_sets=pod_sets,
                provisioning_class_name=spec.provisioning_class_name if spec else None,
                parameters=parameters,
            ),
        )
        try:
            created = client.create(pr)
        except StatusError as err:
            self._handle_error(
                wl,
                state,
                ProvisioningRequest,
                name,
                f'Error creating ProvisioningRequest "{name}": {err}',
                err,
            )
            raise
        self.mgr.recorder.event(
            wl, "Normal", "ProvisioningRequestCreated", f'Created ProvisioningRequest: "{name}"'
        )
        return created

    def _handle_error(
        self,
        wl: Workload,
        state: AdmissionCheckState | None,
        kind: type,
        name: str,
        message: str,
        err: Exception,
    ) -> None:
        """``handleError``."""
        if isinstance(err, AlreadyExists) and self.mgr.get(kind, name, wl.metadata.namespace) is None:
            return  # created by an earlier reconcile the cache has not caught up with
        self.mgr.recorder.event(wl, "Warning", "FailedCreate", W.truncate(message, W.MAX_EVENT_MESSAGE))
        if state is None:
            return
        now = self.mgr.now()

        def mutate(status: WorkloadStatus, _obj: Workload) -> bool:
            for check in status.admission_checks or ():
                if check.name == state.name:
                    check.message, check.last_transition_time = W.truncate(message), now
                    return True
            return False

        write_status(self.mgr, wl, mutate)

    def _adopt_templates(self, wl: Workload, pr: ProvisioningRequest) -> None:
        """``syncProvisionRequestsPodTemplates``: each template's controller becomes the request."""
        namespace = pr.metadata.namespace
        for ps in (pr.spec.pod_sets if pr.spec else None) or ():
            ref = (ps.pod_template_ref.name if ps.pod_template_ref else None) or ""
            try:  # read from the API: a template this reconcile created is not in the cache yet
                pt = self.mgr.ctx.client.get(PodTemplate, ref, namespace)
            except NotFound:
                continue
            refs = list(pt.metadata.owner_references or ())
            kept = [r for r in refs if not (r.controller and r.uid == wl.metadata.uid)]
            if not any(r.controller and r.uid == pr.metadata.uid for r in kept):
                kept.append(owner_ref(pr.api_version, pr.kind, pr.metadata))
            if kept == refs:
                continue
            obj = pt.model_copy(deep=True)
            obj.metadata.owner_references = kept
            with contextlib.suppress(Conflict, NotFound):
                self.mgr.ctx.client.update(obj)
