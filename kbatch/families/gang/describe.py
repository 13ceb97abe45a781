"""``kubectl describe`` lines of scheduling.k8s.io/v1beta1 Workload and PodGroup (kube has no printer
for them: ``kubectl get`` shows Name, Age; kubectl describes them generically, field by field)."""

from __future__ import annotations

from typing import Any

from kbatch.api.printing import Obj, at

__all__ = ["describe_pod_group", "describe_workload", "policy_text"]


def policy_text(policy: Any) -> str:
    """``gang (minCount 4)`` / ``basic`` / ``<none>``."""
    if not policy:
        return "<none>"
    if policy.get("gang") is not None:
        count = (policy["gang"] or {}).get("minCount")
        return f"gang (minCount {count})" if count is not None else "gang (minCount <default>)"
    return "basic" if policy.get("basic") is not None else "<none>"


def _disruption(mode: Any) -> str:
    if not mode:
        return "single (default)"
    return "all" if mode.get("all") is not None else "single"


def describe_workload(wl: Obj) -> list[tuple[str, str]]:
    ref = at(wl, "spec", "controllerRef")
    out = [("Controller", f"{ref.get('kind')}/{ref.get('name')}" if ref else "<none>")]
    for template in at(wl, "spec", "podGroupTemplates") or ():
        out.append(("Pod Group Template", template.get("name", "")))
        out.append(("  Scheduling Policy", policy_text(template.get("schedulingPolicy"))))
        out.append(("  Disruption Mode", _disruption(template.get("disruptionMode"))))
        if template.get("priorityClassName"):
            out.append(("  Priority Class", template["priorityClassName"]))
    return out


def describe_pod_group(pg: Obj) -> list[tuple[str, str]]:
    ref = at(pg, "spec", "workloadRef")
    workload = f"{ref.get('workloadName')} (template {ref.get('templateName')})" if ref else "<none>"
    out = [("Workload", workload),
           ("Scheduling Policy", policy_text(at(pg, "spec", "schedulingPolicy"))),
           ("Disruption Mode", _disruption(at(pg, "spec", "disruptionMode"))),
           ("Priority", str(at(pg, "spec", "priority") or 0) + (
               f" ({at(pg, 'spec', 'priorityClassName')})" if at(pg, "spec", "priorityClassName") else ""))]
    return out  # the conditions follow as describe's one Conditions table (kbatch/cli/describe.py)
