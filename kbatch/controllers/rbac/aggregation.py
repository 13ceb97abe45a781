"""The ``clusterrole-aggregation`` controller (kube-controller-manager's
"clusterrole-aggregation-controller"; upstream ``pkg/controller/clusterroleaggregation``, Kubernetes
1.37).

A ClusterRole with an ``aggregationRule`` gets as its rules those of every other ClusterRole one of its
selectors matches: selector by selector in the rule's order, the matched roles by name, each rule once
(the first time it is met; rules compare as whole values), the role itself skipped. When that list
differs from the role's rules, the controller server-side-applies it with the field manager
``clusterrole-aggregation-controller`` (forced), so a rule no matched role has any more is dropped.

Triggers: any ClusterRole event requeues every aggregated ClusterRole and nothing else (upstream's
``enqueue``, registered as AddFunc, UpdateFunc and DeleteFunc: the set is small and the dependency graph
unknown; it reads neither event object, so an update lists the roles once). A ClusterRole without an
``aggregationRule`` is never queued for itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.rbac_v1 import ClusterRole, PolicyRule
from kbatch.api.selectors import selector_from_model
from kbatch.apiserver.client import Applier
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.handler import new_object_only
from kbatch.runtime.reconcile import Request

__all__ = ["FIELD_MANAGER", "ClusterRoleAggregation", "aggregated_rules", "setup"]

FIELD_MANAGER = "clusterrole-aggregation-controller"


def aggregated_rules(role: ClusterRole, roles: Iterable[ClusterRole]) -> list[PolicyRule]:
    """The decision: ``role``'s rules gathered from ``roles`` (upstream ``syncClusterRole``).
    ``BadRequest`` for a selector that does not parse (upstream returns the error and retries)."""
    by_name = sorted(roles, key=lambda r: r.metadata.name or "")
    rules: list[PolicyRule] = []
    for selector in (role.aggregation_rule.cluster_role_selectors or ()) if role.aggregation_rule else ():
        matches = selector_from_model(selector)
        for other in by_name:
            if other.metadata.name == role.metadata.name or not matches.matches(other.metadata.labels):
                continue
            for rule in other.rules or ():
                if rule not in rules:  # ruleExists: checked against the rules gathered so far
                    rules.append(rule)
    return rules


class ClusterRoleAggregation:
    def __init__(self, ctx: ControllerContext) -> None:
        self.ctx = ctx

    def reconcile(self, request: Request) -> None:
        try:
            role = self.ctx.cache.get(ClusterRole, request.name)
        except NotFound:
            return
        if role.aggregation_rule is None:
            return
        try:
            rules = aggregated_rules(role, self.ctx.cache.list(ClusterRole))
        except BadRequest:
            return  # validation lets no such selector in; nothing to retry
        if rules == list(role.rules or ()):
            return
        self._write(role, rules)

    def aggregated_roles(self, _: Any) -> list[Request]:
        """The mapper of every ClusterRole event: every aggregated ClusterRole (a bound method, so that a
        saved control plane pickles it)."""
        return [Request("", r.metadata.name or "") for r in self.ctx.cache.list(ClusterRole)
                if r.aggregation_rule is not None]

    def _write(self, role: ClusterRole, rules: list[PolicyRule]) -> None:
        client: Any = self.ctx.client
        wanted = ClusterRole.model_validate({"metadata": {"name": role.metadata.name},
                                             "rules": [r.to_dict() for r in rules] or None})
        try:
            if isinstance(client, Applier):
                client.apply(wanted, field_manager=FIELD_MANAGER, force=True)
            else:  # upstream falls back to an update when apply is not served
                client.patch(ClusterRole, role.metadata.name,
                             {"rules": [r.to_dict() for r in rules] or None,
                              "metadata": {"resourceVersion": role.metadata.resource_version}})
        except NotFound:
            return


def setup(ctx: ControllerContext) -> ClusterRoleAggregation:
    controller = ClusterRoleAggregation(ctx)
    (ctx.build().describe("fills the rules of ClusterRoles with an aggregationRule from the ClusterRoles "
                          "their selectors match")
     .watches(ClusterRole, new_object_only(controller.aggregated_roles)).complete(controller))
    return controller
