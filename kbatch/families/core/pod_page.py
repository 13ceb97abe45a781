"""``kbatch describe pod``: the page kubectl prints, line for line and aligned by one tabwriter.

The lines follow k8s.io/kubectl 1.37 ``pkg/describe/describe.go`` (``describePod``): Name, Namespace,
Priority, Priority Class Name, Runtime Class Name, Service Account, Node (``NODE/HOST-IP``), Start
Time, Labels, Annotations, Status (``Terminating (lasts AGE)`` and the grace period while a pod is
deleted), Reason, Message, SeccompProfile, IP and IPs, Controlled By, NominatedNodeName, pod-level
Resources, the Init Containers and Containers (:mod:`.pod_containers`), Readiness Gates, Conditions,
Volumes, QoS Class, Node-Selectors, Tolerations, Topology Spread Constraints, SchedulingGroup, then
the pod's events (those naming its namespace, name and uid, as kubectl's ``searchEvents``).

kbatch's addition, after kubectl's lines and before the events: a **Resource Claims** block (DRA),
each of the pod's claims and where it comes from (a ResourceClaim, or a template and the claim made
from it). kubectl 1.37 prints no claims for a pod. Times print in UTC (kubectl: its local zone);
ages are virtual.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.humanize import age
from kbatch.api.printing import DescribeReader
from kbatch.families.core.describe_text import (
    annotation_lines,
    controlled_by,
    events_about,
    map_lines,
    page_and_events,
    rfc1123z,
)
from kbatch.families.core.pod_containers import container_lines, resource_lines
from kbatch.families.core.pod_template import tolerations_lines, topology_spread_lines
from kbatch.families.core.pod_volumes import volume_lines

__all__ = ["describe_pod_page", "pod_page"]

Obj = dict[str, Any]


def _node_and_times(pod: Obj) -> list[str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    node = spec.get("nodeName")
    lines = [f"Node:\t{node}/{status.get('hostIP', '')}" if node else "Node:\t<none>"]
    if status.get("startTime"):
        lines.append(f"Start Time:\t{rfc1123z(status['startTime'])}")
    return lines


def _status(pod: Obj, now: datetime) -> list[str]:
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    phase = status.get("phase", "")
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        lines = [
            f"Status:\tTerminating (lasts {age(meta['deletionTimestamp'], now)})",
            f"Termination Grace Period:\t{meta.get('deletionGracePeriodSeconds', 0)}s",
        ]
    else:
        lines = [f"Status:\t{phase}"]
    lines += [
        f"{title}:\t{status[key]}"
        for title, key in (("Reason", "reason"), ("Message", "message"))
        if status.get(key)
    ]
    return lines


def _seccomp(spec: Obj) -> list[str]:
    profile = (spec.get("securityContext") or {}).get("seccompProfile")
    if not profile:
        return []
    lines = [f"SeccompProfile:\t{profile.get('type', '')}"]
    if profile.get("type") == "Localhost":
        lines.append(f"LocalhostProfile:\t{profile.get('localhostProfile', '')}")
    return lines


def _addresses_and_owner(pod: Obj) -> list[str]:
    meta, status = pod.get("metadata") or {}, pod.get("status") or {}
    ips = [i.get("ip", "") for i in status.get("podIPs") or ()]
    lines = [
        f"IP:\t{status.get('podIP', '')}",
        *(["IPs:", *(f"  IP:\t{ip}" for ip in ips)] if ips else ["IPs:\t<none>"]),
    ]
    lines += controlled_by(meta)
    if status.get("nominatedNodeName"):
        lines.append(f"NominatedNodeName:\t{status['nominatedNodeName']}")
    return lines


def _header(pod: Obj, now: datetime) -> list[str]:
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    labels = meta.get("labels") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    if spec.get("priority") is not None:
        lines.append(f"Priority:\t{spec['priority']}")
    for title, key in (
        ("Priority Class Name", "priorityClassName"),
        ("Runtime Class Name", "runtimeClassName"),
        ("Service Account", "serviceAccountName"),
    ):
        if spec.get(key):
            lines.append(f"{title}:\t{spec[key]}")
    return [
        *lines,
        *_node_and_times(pod),
        *map_lines("Labels", labels),
        *annotation_lines(meta.get("annotations") or {}),
        *_status(pod, now),
        *_seccomp(spec),
        *_addresses_and_owner(pod),
    ]


def _conditions(pod: Obj) -> list[str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    conditions = status.get("conditions") or []
    lines: list[str] = []
    if spec.get("readinessGates"):
        by_type = {c.get("type"): c.get("status") for c in conditions}
        lines += ["Readiness Gates:", "  Type\tStatus"]
        lines += [
            f"  {g.get('conditionType', '')} \t{by_type.get(g.get('conditionType'), '<none>')} "
            for g in spec["readinessGates"]
        ]
    if conditions:
        lines += [
            "Conditions:",
            "  Type\tStatus",
            *(f"  {c.get('type', '')} \t{c.get('status', '')} " for c in conditions),
        ]
    return lines


def _placement(pod: Obj) -> list[str]:
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    selector = spec.get("nodeSelector") or {}
    lines = [
        f"QoS Class:\t{status.get('qosClass') or _qos(spec)}",
        *map_lines("Node-Selectors", selector),
        *tolerations_lines("Tolerations", spec.get("tolerations") or []),
        *topology_spread_lines(spec.get("topologySpreadConstraints") or []),
    ]
    group = spec.get("schedulingGroup")
    if group is not None:
        lines += ["SchedulingGroup:", f"  PodGroupName:\t{group.get('podGroupName', '')}"]
    return lines


def _qos(spec: Obj) -> str:
    """``qos.GetPodQOS`` for a pod whose status has no ``qosClass`` (the API server sets it on create)."""
    from kbatch.api.core_v1 import PodSpec
    from kbatch.api.strategies.core.pod import pod_qos_class

    return pod_qos_class(PodSpec.model_validate(spec))


def _claims(pod: Obj) -> list[str]:
    """kbatch's Resource Claims block (DRA)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    claims = spec.get("resourceClaims") or []
    if not claims:
        return []
    made = {c.get("name"): c.get("resourceClaimName") for c in status.get("resourceClaimStatuses") or ()}
    lines = ["Resource Claims:"]
    for claim in claims:
        source = (
            f"ResourceClaim {claim['resourceClaimName']}"
            if claim.get("resourceClaimName")
            else f"template {claim.get('resourceClaimTemplateName')} -> "
            f"{made.get(claim.get('name')) or '<not created yet>'}"
        )
        lines.append(f"  {claim.get('name')}:\t{source}")
    return lines


def pod_page(pod: Obj, events: list[Obj], now: datetime) -> str:
    """The whole ``kubectl describe pod`` text (without a trailing newline)."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    lines = _header(pod, now)
    if spec.get("resources") is not None:
        lines += ["Resources:", *resource_lines(spec["resources"], 1)]
    if spec.get("initContainers"):
        lines += container_lines(
            "Init Containers", spec["initContainers"], status.get("initContainerStatuses"), pod
        )
    lines += container_lines("Containers", spec.get("containers") or [], status.get("containerStatuses"), pod)
    if spec.get("ephemeralContainers"):
        lines += container_lines(
            "Ephemeral Containers", spec["ephemeralContainers"], status.get("ephemeralContainerStatuses"), pod
        )
    lines += [*_conditions(pod), *volume_lines(spec.get("volumes") or []), *_placement(pod), *_claims(pod)]
    return page_and_events(lines, events, now)


def describe_pod_page(reader: DescribeReader, pod: Obj) -> str:
    """The core family's Pod page: the pod and its events (kubectl's ``searchEvents``: the events whose
    involved object has the pod's namespace, name and uid)."""
    events = events_about(reader.list("events"), pod.get("metadata") or {})  # kubectl clears a pod ref's kind
    return pod_page(pod, events, reader.now())
