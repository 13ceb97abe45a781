"""The Pod Template block every controller's ``kubectl describe`` page ends with, and the pieces of a
pod's page it shares: tolerations and topology spread constraints.

k8s.io/kubectl 1.37 ``pkg/describe/describe.go``: ``DescribePodTemplate`` (Labels, Annotations when
there are any, Service Account, the Init Containers and Containers of the template, indented by two
spaces and without statuses or resolved ``fieldRef`` values, Volumes, Topology Spread Constraints,
Priority Class Name, Node-Selectors, Tolerations, SchedulingGroup), ``printTolerationsMultilineWithIndent``
(sorted by key: ``key=value:Effect``, ``op=Exists``, ``for Ns``) and ``describeTopologySpreadConstraints``
(sorted by topology key).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.printing import format_selector
from kbatch.families.core.describe_text import annotation_lines, map_lines, multiline
from kbatch.families.core.pod_containers import container_lines
from kbatch.families.core.pod_volumes import volume_lines

__all__ = ["pod_template_lines", "toleration_text", "tolerations_lines", "topology_spread_lines"]

Obj = dict[str, Any]


def toleration_text(t: Obj) -> str:
    text = t.get("key", "") + (f"={t['value']}" if t.get("value") else "")
    text += f":{t['effect']}" if t.get("effect") else ""
    if t.get("operator") == "Exists" and not t.get("value"):
        text += " op=Exists" if t.get("key") or t.get("effect") else "op=Exists"
    if t.get("tolerationSeconds") is not None:
        text += f" for {t['tolerationSeconds']}s"
    return text


def tolerations_lines(title: str, tolerations: list[Obj]) -> list[str]:
    return multiline(title, [toleration_text(t) for t in sorted(tolerations, key=lambda t: t.get("key", ""))])


def topology_spread_lines(constraints: list[Obj], space: str = "") -> list[str]:
    lines = []
    for i, c in enumerate(sorted(constraints, key=lambda c: c.get("topologyKey", ""))):
        text = (
            f"{c.get('topologyKey', '')}:{c.get('whenUnsatisfiable', '')} when max skew "
            f"{c.get('maxSkew')} is exceeded"
        )
        if c.get("labelSelector") is not None:
            text += f" for selector {format_selector(c['labelSelector'])}"
        lines.append((f"{space}Topology Spread Constraints:\t" if i == 0 else f"{space}\t") + text)
    return lines


def pod_template_lines(template: Obj | None) -> list[str]:
    """``DescribePodTemplate``."""
    if template is None:
        return ["Pod Template:", "  <unset>"]
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    labels, annotations = meta.get("labels") or {}, meta.get("annotations") or {}
    lines = ["Pod Template:", *map_lines("  Labels", labels)]
    if annotations:
        first, *rest = annotation_lines(annotations)
        lines += [f"  {first}", *rest]
    if spec.get("serviceAccountName"):
        lines.append(f"  Service Account:\t{spec['serviceAccountName']}")
    if spec.get("initContainers"):
        lines += container_lines("Init Containers", spec["initContainers"], None, None, "  ")
    lines += container_lines("Containers", spec.get("containers") or [], None, None, "  ")
    lines += volume_lines(spec.get("volumes") or [], "  ")
    lines += topology_spread_lines(spec.get("topologySpreadConstraints") or [], "  ")
    if spec.get("priorityClassName"):
        lines.append(f"  Priority Class Name:\t{spec['priorityClassName']}")
    selector = spec.get("nodeSelector") or {}
    lines += map_lines("  Node-Selectors", selector)
    lines += tolerations_lines("  Tolerations", spec.get("tolerations") or [])
    if spec.get("schedulingGroup") is not None:
        lines += [
            "  SchedulingGroup:",
            f"    PodGroupName:\t{spec['schedulingGroup'].get('podGroupName', '')}",
        ]
    return lines
