"""Registering the ``jobset`` controller on a control plane (catalog entry
``kbatch.controllers.jobset:setup``).

As upstream's ``SetupWithManager``: the JobSet reconciler is queued by JobSet events and by the
events of the Jobs and Services it controls; with the InPlaceRestart gate also by the events of pods
labelled with a JobSet's name. The exclusive-placement pod controller (``jobset-pod``), which
upstream's manager runs next to it, is set up with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod, Service
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.controllers.jobset.controller import JobSetReconciler
from kbatch.controllers.jobset.placement import (
    BY_EXCLUSIVE_JOB_KEY,
    PlacementReconciler,
    exclusive_job_key,
    watched_leader,
)
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.controller import Controller
from kbatch.runtime.predicate import predicate_func
from kbatch.runtime.reconcile import Request

__all__ = ["POD_CONTROLLER", "jobset_of_owned", "jobset_of_pod", "setup"]

POD_CONTROLLER = "jobset-pod"


def jobset_of_owned(obj: Any) -> Iterable[Request]:
    """``Owns(&Job{})`` / ``Owns(&Service{})``: the JobSet named by the controller reference."""
    ref = obj.metadata.controller_ref()
    if ref is None or ref.kind != "JobSet" or ref.group != c.GROUP:
        return ()
    return (Request(obj.metadata.namespace or "", ref.name),)


def jobset_of_pod(pod: Any) -> Iterable[Request]:
    """In-place restart: a pod's JobSet, by its ``jobset-name`` label."""
    name = (pod.metadata.labels or {}).get(c.JOBSET_NAME_KEY)
    return (Request(pod.metadata.namespace or "", name),) if name else ()


def setup(ctx: ControllerContext) -> Controller:
    builder = (ctx.build().describe("runs JobSets: child Jobs, headless Service, policies, restarts")
               .for_(JobSet).watches(Job, jobset_of_owned).watches(Service, jobset_of_owned))
    if ctx.features.enabled(c.GATE_IN_PLACE_RESTART):
        builder = builder.watches(Pod, jobset_of_pod)
    controller = builder.complete(JobSetReconciler(ctx))
    ctx.cache.add_index(Pod, BY_EXCLUSIVE_JOB_KEY, exclusive_job_key)
    (ctx.build(POD_CONTROLLER).describe("checks exclusive placement: followers in their leader's domain")
     .for_(Pod, predicate_func(watched_leader)).complete(PlacementReconciler(ctx)))
    return controller
