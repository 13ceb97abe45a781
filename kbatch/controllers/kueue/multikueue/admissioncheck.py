"""The MultiKueue AdmissionCheck reconciler: the check's ``Active`` condition from its clusters.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/admissioncheck.go``
(``ACReconciler.Reconcile``; table ``admissioncheck_test.go``). For a check with
``controllerName: kueue.x-k8s.io/multikueue``:

* parameters that do not lead to a MultiKueueConfig → ``False``/``BadConfig``, "Cannot load the
  AdmissionChecks parameters: <error>";
* every cluster of the config present and ``Active`` → ``True``/``Active``, "The admission check is
  active";
* some missing or inactive → ``True``/``SomeActiveClusters``; all → ``False``/``NoUsableClusters``;
  the message lists them: "Missing clusters: [a b], Inactive clusters: [c]".

The check is requeued when a MultiKueueConfig naming it changes its clusters, or a MultiKueueCluster
of such a config is created, deleted or changes its ``Active`` state (``mkConfigHandler``,
``mkClusterHandler``).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kbatch.api import edit
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_v1beta2 import AdmissionCheck, AdmissionCheckStatus, MultiKueueCluster, MultiKueueConfig
from kbatch.api.kueue_v1beta2.multikueue import CLUSTER_ACTIVE, CONTROLLER_NAME
from kbatch.api.meta import Condition
from kbatch.api.policy_helpers import cmp_condition_state, find_condition
from kbatch.controllers.kueue.multikueue.configs import BadConfig, config_from_ref
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = [
    "ACReconciler",
    "ActiveChanged",
    "ActiveState",
    "ClustersChanged",
    "active_condition",
    "active_state",
    "checks_using_cluster",
    "checks_using_config",
]


@dataclass(frozen=True)
class ActiveState:
    status: str
    reason: str
    message: str


def _go_list(names: list[str]) -> str:
    return "[" + " ".join(names) + "]"


def active_state(config: MultiKueueConfig | BadConfig, cluster_active: dict[str, bool | None]) -> ActiveState:
    """The check's Active condition: ``cluster_active`` maps a cluster name to whether its ``Active``
    condition is true (``None``: no such MultiKueueCluster)."""
    if isinstance(config, BadConfig):
        return ActiveState("False", "BadConfig", f"Cannot load the AdmissionChecks parameters: {config}")
    clusters = list((config.spec.clusters if config.spec else None) or ())
    missing = [c for c in clusters if cluster_active.get(c) is None]
    inactive = [c for c in clusters if cluster_active.get(c) is False]
    unusable = len(missing) + len(inactive)
    if unusable == 0:
        return ActiveState("True", "Active", "The admission check is active")
    parts = [f"Missing clusters: {_go_list(missing)}"] if missing else []
    if inactive:
        parts.append(f"Inactive clusters: {_go_list(inactive)}")
    if unusable < len(clusters):
        return ActiveState("True", "SomeActiveClusters", ", ".join(parts))
    return ActiveState("False", "NoUsableClusters", ", ".join(parts))


def is_active(cluster: MultiKueueCluster | None) -> bool | None:
    if cluster is None:
        return None
    return any(
        c.type == CLUSTER_ACTIVE and c.status == "True"
        for c in (cluster.status.conditions if cluster.status else None) or ()
    )


def active_condition(cluster: MultiKueueCluster) -> Condition | None:
    return find_condition(cluster.status.conditions if cluster.status else None, CLUSTER_ACTIVE)


class ActiveChanged:
    """The MultiKueueCluster filter of ``mkClusterHandler`` (and of the ClusterQueue reconciler's
    ``cqClusterHandler``): creates and deletes, and updates changing the cluster's ``Active`` condition's
    status, reason or message (``cmpConditionState``); a label or another condition passes nothing."""

    def create(self, obj: MultiKueueCluster) -> bool:
        return True

    def update(self, old: MultiKueueCluster, new: MultiKueueCluster) -> bool:
        return not cmp_condition_state(active_condition(old), active_condition(new))

    def delete(self, obj: MultiKueueCluster) -> bool:
        return True


class ClustersChanged:
    """``mkConfigHandler``'s filter: creates and deletes, and updates changing ``spec.clusters``
    (``equality.Semantic.DeepEqual``: a missing list equals an empty one)."""

    def create(self, obj: MultiKueueConfig) -> bool:
        return True

    def update(self, old: MultiKueueConfig, new: MultiKueueConfig) -> bool:
        return _clusters(old) != _clusters(new)

    def delete(self, obj: MultiKueueConfig) -> bool:
        return True


def _clusters(config: MultiKueueConfig) -> list[str]:
    return list((config.spec.clusters if config.spec else None) or ())


def checks_using_config(cache: Any, config_name: str) -> list[str]:
    """``AdmissionCheckUsingConfigKey``: the MultiKueue checks whose parameters name the config."""
    out = []
    for ac in cache.list(AdmissionCheck):
        spec = ac.spec
        if (
            spec is not None
            and spec.controller_name == CONTROLLER_NAME
            and spec.parameters is not None
            and spec.parameters.name == config_name
        ):
            out.append(ac.metadata.name or "")
    return sorted(out)


def checks_using_cluster(cache: Any, cluster_name: str) -> list[str]:
    """``UsingMultiKueueClusters``, then the checks of each config naming the cluster."""
    out: set[str] = set()
    for config in cache.list(MultiKueueConfig):
        if cluster_name in ((config.spec.clusters if config.spec else None) or ()):
            out.update(checks_using_config(cache, config.metadata.name or ""))
    return sorted(out)


class ACReconciler:
    """``ACReconciler.Reconcile`` (see the module docstring)."""

    def __init__(self, mk: MultiKueueContext) -> None:
        self.mk = mk

    def reconcile(self, request: Request) -> Result | None:
        ac = self.mk.get(AdmissionCheck, request.name)
        if ac is None or ac.spec is None or ac.spec.controller_name != CONTROLLER_NAME:
            return None
        config: MultiKueueConfig | BadConfig
        try:
            config = config_from_ref(ac, self.mk.get)
        except BadConfig as err:
            config = err
        names = (
            []
            if isinstance(config, BadConfig)
            else list((config.spec.clusters if config.spec else None) or ())
        )
        state = active_state(config, {n: is_active(self.mk.get(MultiKueueCluster, n)) for n in names})
        new = Condition(type="Active", status=state.status, reason=state.reason, message=state.message,
                        observed_generation=ac.metadata.generation)
        if cmp_condition_state(find_condition(ac.status.conditions if ac.status else None, "Active"), new):
            return None
        obj = edit(ac)
        obj.status = obj.status or AdmissionCheckStatus()
        self.mk.set_condition(obj.status, new)
        with contextlib.suppress(Conflict, NotFound):
            self.mk.client.update_status(obj)
        return None
