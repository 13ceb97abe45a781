"""The Incremental dispatcher: nominate workers a few at a time, a new round every five minutes.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/workloaddispatcher/incrementaldispatcher.go``
(table ``incrementaldispatcher_test.go``), run when the Configuration's ``multiKueue.dispatcherName``
is ``kueue.x-k8s.io/multikueue-dispatcher-incremental``. For a Workload with quota, not finished,
whose MultiKueue check is Pending with no cluster recorded: if no round is running (or the last
started more than 5 minutes ago), the next ``stepSize`` clusters of its MultiKueueConfig not yet
nominated are added to ``status.nominatedClusterNames`` (3, or ``incrementalDispatcherConfig.stepSize``
with ``MultiKueueIncrementalDispatcherConfig``; in the config's order with
``MultiKueueIncrementalDispatcherRespectConfigOrder``, else by name); with none left, the reconcile
fails ("no more workers to nominate") and is retried. The workload reconciler then creates copies on
the nominated workers only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.kueue_v1beta2 import Workload, WorkloadStatus
from kbatch.api.kueue_v1beta2.constants import Cond
from kbatch.controllers.kueue import workloads as W
from kbatch.controllers.kueue.multikueue.configs import config_from_ref, multikueue_check_state
from kbatch.controllers.kueue.scheduler import write_status
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["ROUND_TIMEOUT", "IncrementalDispatcher", "NoMoreWorkers", "next_nominated"]

ROUND_TIMEOUT = 300.0  # incrementalDispatcherRoundTimeout
DEFAULT_STEP_SIZE = 3


class NoMoreWorkers(Exception):
    """``ErrNoMoreWorkers``."""


def next_nominated(nominated: list[str], clusters: list[str], step: int, respect_order: bool) -> list[str]:
    """``getNextNominatedWorkers``: up to ``step`` clusters not nominated yet."""
    left = [c for c in clusters if c not in set(nominated)]
    if not respect_order:
        left.sort()
    if not left:
        raise NoMoreWorkers("no more workers to nominate")
    return left[:step]


def skip_nomination(wl: Workload, check_state: str | None) -> bool:
    """``ShouldSkipClusterNomination`` for any Workload with a ``clusterName``, elastic slices
    included: upstream exempts those (a scale-up's slice carries its predecessor's ``clusterName``)
    and then fails to write ``nominatedClusterNames`` beside it (the CRD's rule "clusterName and
    nominatedClusterNames are mutually exclusive"), retrying until the check is Ready; kbatch skips
    the doomed write. The workload reconciler sends such a slice to its ``clusterName``
    (:mod:`.elastic`)."""
    return check_state != "Pending" or bool(wl.status is not None and wl.status.cluster_name)


class IncrementalDispatcher:
    def __init__(self, mk: MultiKueueContext, step_size: int | None) -> None:
        self.mk = mk
        self.step = (
            step_size
            if step_size is not None and mk.mgr.settings.on("MultiKueueIncrementalDispatcherConfig")
            else DEFAULT_STEP_SIZE
        )
        self.round_starts: dict[tuple[str, str], float] = {}

    def reconcile(self, request: Request) -> Result | None:
        key = (request.namespace, request.name)
        wl = self.mk.get(Workload, request.name, request.namespace)
        if wl is None or wl.metadata.deletion_timestamp is not None:
            self.round_starts.pop(key, None)
            return None
        acs = multikueue_check_state(wl, self.mk.get)
        if acs is None or skip_nomination(wl, acs.state):
            return None
        config = config_from_ref(self.mk.get_check(acs.name or ""), self.mk.get)
        clusters = list((config.spec.clusters if config.spec else None) or ())
        if W.has(wl.status, Cond.FINISHED) or not W.has(wl.status, Cond.QUOTA_RESERVED):
            self.round_starts.pop(key, None)
            return None
        now = self.mk.now()
        started = self.round_starts.get(key)
        # upstream waits while ``now - start <= timeout``; its requeue lands just past the timeout on a
        # real clock, but at exactly the timeout on a virtual one, so the round ends there
        if started is not None and now - started < ROUND_TIMEOUT:
            return Result(requeue_after=ROUND_TIMEOUT - (now - started))
        have = list(wl.status.nominated_cluster_names or ())
        respect = self.mk.mgr.settings.on("MultiKueueIncrementalDispatcherRespectConfigOrder")
        wanted = have + next_nominated(have, clusters, self.step, respect)  # NoMoreWorkers: retried

        def nominate(status: WorkloadStatus, _: Workload) -> bool:
            status.nominated_cluster_names = wanted
            return True

        write_status(self.mk.mgr, wl, nominate)
        self.round_starts[key] = now
        return None
