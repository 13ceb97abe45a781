"""The ``jobset`` controller's effects: read a JobSet and its Jobs from the cache, decide
(:func:`~kbatch.controllers.jobset.sync.sync_jobset`), apply the plan through the client.

Upstream ``jobset_controller.go`` ``Reconcile``, in its order (:mod:`.actions`): a failing step ends
the reconcile with an error (retried with the queue's back-off) and the status is then not written;
the status is written once, with ``update_status`` on the read version (a conflict is retried), and
its events recorded after the write succeeded. Job and Service creation failures are recorded at
once (``JobCreationFailed``, ``HeadlessServiceCreationFailed``, ``PVCCreationFailed``). Jobs are
deleted with ``Foreground`` propagation, so a restarted Job is recreated only once its pods are gone.
Creations and deletions that upstream runs in parallel run here one after another, in name order.
"""

from __future__ import annotations

import contextlib
from typing import Any

from kbatch.api import edit
from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, Service
from kbatch.api.errors import AlreadyExists, NotFound, StatusError
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset.actions import JobCreate, JobResume, Plan
from kbatch.controllers.jobset.adapt import child_view, jobset_view, pod_view, status_model
from kbatch.controllers.jobset.build import (
    build_claims,
    build_job,
    build_service,
    merge_for_resume,
    subdomain,
)
from kbatch.controllers.jobset.sync import sync_jobset
from kbatch.controllers.jobset.webhook import gates_of
from kbatch.runtime.cache.indexer import BY_CONTROLLER_UID
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Request, Result

__all__ = ["JobSetReconciler", "ReconcileError"]


class ReconcileError(Exception):
    """A reconcile that failed part-way (upstream returns the error): retried with back-off."""


class JobSetReconciler:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx
        self.gates = gates_of(ctx.features)

    def reconcile(self, request: Request) -> Result | None:
        try:
            js = self.ctx.cache.get(JobSet, request.name, request.namespace)
        except NotFound:
            return None
        view = jobset_view(js)
        if view.deleting or c.external_manager(view.managed_by) is not None:
            return None
        jobs = self.ctx.cache.list(Job, request.namespace, index=(BY_CONTROLLER_UID, js.metadata.uid or ""))
        pods = None
        if self.gates.in_place_restart and view.restart_strategy == c.IN_PLACE_RESTART:
            pods = tuple(pod_view(p) for p in self.ctx.cache.list(Pod, request.namespace,
                                                                  labels={c.JOBSET_NAME_KEY: js.name}))
        now = self.ctx.clock.now_datetime()
        plan = sync_jobset(view, [child_view(j) for j in jobs], now, self.gates, pods)
        return self._apply(js, plan, {j.name: j for j in jobs})

    # -- the plan, in upstream's order ----------------------------------------------------------------
    def _apply(self, js: JobSet, plan: Plan, jobs: dict[str, Job]) -> Result | None:
        self._delete_jobs(js, plan.delete_active)
        if plan.delete_jobset:
            self._delete(JobSet, js.name, js.namespace)
        self._delete_jobs(js, plan.delete_previous)
        if plan.ensure_service:
            self._ensure_service(js)
        if plan.ensure_claims:
            self._ensure_claims(js)
        self._scale(js, plan)
        for group in plan.creates:
            self._create_jobs(js, group)
        for name in plan.suspend:
            self._suspend(jobs[name])
        for resume in plan.resume:
            self._resume(js, jobs[resume.name], resume)
        if plan.error:
            raise ReconcileError(plan.error)
        if plan.status is not None:
            updated = edit(js)
            updated.status = status_model(plan.status)
            self.ctx.client.update_status(updated)
            for event in plan.events:
                self.ctx.recorder.event(js, event.type, event.reason, event.message)
        return Result(requeue_after=plan.requeue_after) if plan.requeue_after else None

    def _delete(self, kind: type[Any], name: str, namespace: str | None) -> None:
        with contextlib.suppress(NotFound):
            self.ctx.client.delete(kind, name, namespace, propagation_policy="Foreground")

    def _delete_jobs(self, js: JobSet, names: tuple[str, ...]) -> None:
        errors = []
        for name in names:
            try:
                self._delete(Job, name, js.namespace)
            except StatusError as err:
                errors.append(str(err))
        if errors:
            raise ReconcileError("\n".join(errors))

    def _ensure_service(self, js: JobSet) -> None:
        """``createHeadlessSvcIfNecessary``: create it when no Service of that name exists."""
        try:
            self.ctx.cache.get(Service, subdomain(js), js.namespace)
            return
        except NotFound:
            pass
        try:
            self.ctx.client.create(build_service(js))
        except StatusError as err:
            self.ctx.recorder.event(js, "Warning", c.HEADLESS_SERVICE_CREATION_FAILED_REASON, err.message)
            raise

    def _ensure_claims(self, js: JobSet) -> None:
        """``reconcileVolumeClaimPolicies``: create each claim (one that exists is left alone); a
        policy stops at its first failure, the errors of all policies are returned together."""
        errors, failed = [], set()
        for policy, claim in build_claims(js):
            if policy in failed:
                continue
            try:
                self.ctx.client.create(claim)
            except AlreadyExists:
                continue
            except StatusError as err:
                self.ctx.recorder.event(js, "Warning", c.PVC_CREATION_FAILED_REASON, err.message)
                errors.append(err.message)
                failed.add(policy)
        if errors:
            raise ReconcileError("\n".join(errors))

    def _scale(self, js: JobSet, plan: Plan) -> None:
        errors = []
        for scale in plan.scale:
            patch = {"spec": {"parallelism": scale.parallelism, "completions": scale.completions}}
            try:
                self.ctx.client.patch(Job, scale.name, patch, js.namespace)
            except StatusError as err:
                errors.append(f'failed to patch job "{scale.name}" for scaling: {err.message}')
        if errors:
            raise ReconcileError("\n".join(errors))

    def _create_jobs(self, js: JobSet, group: tuple[JobCreate, ...]) -> None:
        """``createJobs`` for one replicated job: every create is tried, the failures reported together."""
        errors = []
        for create in group:
            try:
                self.ctx.client.create(build_job(js, create.rjob, create.index, create.job_restart))
            except StatusError as err:
                errors.append(f'job "{create.name}" creation failed with error: {err.message}')
        if errors:
            message = "\n".join(errors)
            self.ctx.recorder.event(js, "Warning", c.JOB_CREATION_FAILED_REASON, message)
            raise ReconcileError(message)

    def _suspend(self, job: Job) -> None:
        updated = edit(job)
        updated.spec.suspend = True
        self.ctx.client.update(updated)

    def _resume(self, js: JobSet, job: Job, resume: JobResume) -> None:
        """``resumeJob``: reset ``startTime`` (a started Job's template is immutable), merge the
        replicated job's pod template fields, unsuspend."""
        if resume.reset_start_time:
            reset = edit(job)
            assert reset.status is not None
            reset.status.start_time = None
            job = self.ctx.client.update_status(reset)
        rjob = next(r for r in js.spec.replicated_jobs or () if r.name == resume.rjob)
        updated = edit(job)
        assert rjob.template is not None
        merge_for_resume(updated, rjob.template.spec.template)
        self.ctx.client.update(updated)
