"""The ``Warning:`` texts kube-apiserver returns for a pod spec and its metadata, shared by the Pod
strategy and the strategies that carry a pod template (Job, CronJob).

Upstream: kubernetes pkg/api/pod/warnings.go (``GetWarningsForPod``, ``GetWarningsForPodTemplate``,
``warningsForPodSpecAndMeta``; read at commit 04669c5d64 of the stored copy, the newest there: it
warns of duplicate port names) and pkg/api/node/util.go
(deprecated node labels). A pure function of the spec and metadata; the caller sends the texts.
Map keys (nodeSelector) are walked in sorted order where Go walks a map in random order.

The volume checks are :mod:`.pod_volume_warnings`.
"""

from __future__ import annotations

from collections.abc import Iterator

from kbatch.api.core_v1 import Container, PodSpec
from kbatch.api.core_v1.affinity import NodeSelectorTerm
from kbatch.api.quantity import Quantity
from kbatch.api.strategies.core.pod_volume_warnings import volume_warnings

__all__ = ["pod_spec_warnings"]

# pkg/api/node/util.go deprecatedNodeLabels
DEPRECATED_NODE_LABELS = {
    "beta.kubernetes.io/arch": 'deprecated since v1.14; use "kubernetes.io/arch" instead',
    "beta.kubernetes.io/os": 'deprecated since v1.14; use "kubernetes.io/os" instead',
    "failure-domain.beta.kubernetes.io/region":
        'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
    "failure-domain.beta.kubernetes.io/zone":
        'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
    "beta.kubernetes.io/instance-type":
        'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
    "app.kubernetes.io/created-by": "deprecated since v1.9",
    "scheduler.alpha.kubernetes.io/preferAvoidPods":
        "deprecated since v1.22; use Taints and Tolerations instead",
    "node-role.kubernetes.io/master": 'use "node-role.kubernetes.io/control-plane" instead',
}
_DEPRECATED_ANNOTATIONS = (
    ("scheduler.alpha.kubernetes.io/critical-pod",
     'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls",
     'non-functional in v1.11+; use the "sysctls" field instead'),
)
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
_APPARMOR_CONTAINER = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_MSG = 'non-functional in v1.27+; use the "seccompProfile" field instead'
_APPARMOR_MSG = 'deprecated since v1.30; use the "appArmorProfile" field instead'
_NULL_SELECTOR = "a null labelSelector results in matching no pod"
_BYTE_RESOURCES = ("memory", "ephemeral-storage")
# every annotation some check reads starts with one of these
_WARNED_ANNOTATION_PREFIXES = ("scheduler.alpha.kubernetes.io/", "security.alpha.kubernetes.io/",
                               "seccomp.security.alpha.kubernetes.io/", "container.")


def pod_spec_warnings(spec: PodSpec, annotations: dict[str, str] | None,
                      path: str | None = None) -> list[str]:
    """``warningsForPodSpecAndMeta``: ``path`` is None for a Pod (paths start at ``spec``/``metadata``)
    or the template's path (``spec.template``). The old spec/metadata upstream passes is unused by
    every check, so it is not taken here. The usual pod (containers with resources, no ports, no
    repeated env, none of the fields below) only needs the fractional-bytes check."""
    pre = f"{path}." if path else ""
    if not _may_warn(spec, annotations):
        warnings: list[str] = []
        for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers)):
            for i, c in enumerate(containers or ()):
                res = c.resources
                if res is not None and ((res.requests and _has_fraction(res.requests))
                                        or (res.limits and _has_fraction(res.limits))):
                    warnings += _resource_warnings(c, f"{pre}spec.{field}[{i}]")
        return warnings
    return _all_warnings(spec, annotations or {}, pre, path is not None)


def _may_warn(spec: PodSpec, annotations: dict[str, str] | None) -> bool:
    """Whether anything but a container's resources could be warned about (a cheap early exit)."""
    if (spec.node_selector or spec.affinity or spec.topology_spread_constraints or spec.volumes
            or spec.host_aliases or spec.image_pull_secrets or spec.overhead or spec.ephemeral_containers
            or (spec.termination_grace_period_seconds or 0) < 0):
        return True
    if annotations:
        for key in annotations:
            if key.startswith(_WARNED_ANNOTATION_PREFIXES):
                return True
    for containers in (spec.init_containers, spec.containers):
        for c in containers or ():
            if c.ports or (c.env and len(c.env) > 1):
                return True
    return False


def _all_warnings(spec: PodSpec, annotations: dict[str, str], pre: str, is_template: bool) -> list[str]:
    warnings: list[str] = []
    if spec.node_selector or spec.affinity or spec.topology_spread_constraints:
        warnings += _scheduling_warnings(spec, pre)
    for key, msg in _DEPRECATED_ANNOTATIONS:
        if key in annotations:
            warnings.append(f"{pre}metadata.annotations[{key}]: {msg}")
    if spec.volumes:
        warnings += volume_warnings(spec, pre)
    if spec.host_aliases or spec.image_pull_secrets or spec.overhead:
        warnings += _list_warnings(spec, pre)
    if _SECCOMP_POD in annotations and not _pod_seccomp(spec):
        warnings.append(f"{pre}metadata.annotations[{_SECCOMP_POD}]: {_SECCOMP_MSG}")
    warnings += _container_warnings(spec, annotations, pre, is_template)
    warnings += _port_warnings(spec, pre)
    warnings += _port_name_warnings(spec, pre)
    grace = spec.termination_grace_period_seconds
    if grace is not None and grace < 0:
        warnings.append(f"{pre}spec.terminationGracePeriodSeconds: must be >= 0; negative values are "
                        "invalid and will be treated as 1")
    if spec.affinity is not None:
        warnings += _pod_affinity_warnings(spec, pre)
    return warnings


def _pod_seccomp(spec: PodSpec) -> bool:
    return spec.security_context is not None and spec.security_context.seccomp_profile is not None


def _term_warnings(term: NodeSelectorTerm, path: str) -> list[str]:
    """``GetWarningsForNodeSelectorTerm`` (matchExpressions keys only)."""
    return [f"{path}.matchExpressions[{i}].key: {e.key} is {DEPRECATED_NODE_LABELS[e.key]}"
            for i, e in enumerate(term.match_expressions or ()) if e.key in DEPRECATED_NODE_LABELS]


def _scheduling_warnings(spec: PodSpec, pre: str) -> list[str]:
    warnings = [f"{pre}spec.nodeSelector[{k}]: {DEPRECATED_NODE_LABELS[k]}"
                for k in sorted(spec.node_selector or ()) if k in DEPRECATED_NODE_LABELS]
    node = spec.affinity.node_affinity if spec.affinity is not None else None
    if node is not None:
        base = f"{pre}spec.affinity.nodeAffinity"
        required = node.required_during_scheduling_ignored_during_execution
        if required is not None:
            for i, term in enumerate(required.node_selector_terms or ()):
                warnings += _term_warnings(
                    term, f"{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]")
        for i, pref in enumerate(node.preferred_during_scheduling_ignored_during_execution or ()):
            warnings += _term_warnings(
                pref.preference, f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference")
    for i, tsc in enumerate(spec.topology_spread_constraints or ()):
        tpath = f"{pre}spec.topologySpreadConstraints[{i}]"
        if tsc.topology_key in DEPRECATED_NODE_LABELS:
            warnings.append(f"{tpath}.topologyKey: {tsc.topology_key} is "
                            f"{DEPRECATED_NODE_LABELS[tsc.topology_key]}")
        if tsc.label_selector is None:
            warnings.append(f"{tpath}.labelSelector: {_NULL_SELECTOR}")
    return warnings


def _duplicates(values: list[str]) -> Iterator[tuple[int, str]]:
    seen: set[str] = set()
    for i, value in enumerate(values):
        if value in seen:
            yield i, value
        seen.add(value)


def _list_warnings(spec: PodSpec, pre: str) -> list[str]:
    """Duplicate hostAliases IPs and imagePullSecrets names, empty pull-secret names, fractional
    byte quantities in the overhead."""
    warnings = [f'{pre}spec.hostAliases[{i}].ip: duplicate ip "{ip}"'
                for i, ip in _duplicates([a.ip for a in spec.host_aliases or ()])]
    names = [s.name or "" for s in spec.image_pull_secrets or ()]
    warnings += [f'{pre}spec.imagePullSecrets[{i}].name: duplicate name "{n}"' for i, n in _duplicates(names)]
    warnings += [f'{pre}spec.imagePullSecrets[{i}].name: invalid empty name ""'
                 for i, n in enumerate(names) if not n]
    warnings += _fractional_bytes(spec.overhead, f"{pre}spec.overhead")
    return warnings


def _fractional_bytes(quantities: dict[str, Quantity] | None, path: str) -> list[str]:
    """``path`` is built only for a warning (this runs for every pod created)."""
    if not quantities:
        return []
    warnings = []
    for name in _BYTE_RESOURCES:
        q = quantities.get(name)
        if q is not None and q.milli_value() % 1000:
            warnings.append(f'{path}[{name}]: fractional byte value "{q}" is invalid, must be an integer')
    return warnings


def _visit(spec: PodSpec, pre: str) -> Iterator[tuple[Container, str]]:
    """``VisitContainersWithPath``: init, regular, then ephemeral containers."""
    for field, containers in (("initContainers", spec.init_containers), ("containers", spec.containers),
                              ("ephemeralContainers", spec.ephemeral_containers)):
        for i, c in enumerate(containers or ()):
            yield c, f"{pre}spec.{field}[{i}]"


def _container_warnings(spec: PodSpec, annotations: dict[str, str], pre: str,
                        is_template: bool) -> list[str]:
    warnings: list[str] = []
    pod_apparmor = spec.security_context is not None and spec.security_context.app_armor_profile is not None
    for c, cpath in _visit(spec, pre):
        if annotations:
            warnings += _container_annotation_warnings(c, annotations, pre, is_template and not pod_apparmor)
        warnings += _resource_warnings(c, cpath)
        if c.env and len(c.env) > 1:
            warnings += _env_warnings(c, cpath)
    return warnings


def _resource_warnings(c: Container, cpath: str) -> list[str]:
    res = c.resources
    if res is None:
        return []
    warnings = []
    for kind, quantities in (("limits", res.limits), ("requests", res.requests)):
        if quantities and _has_fraction(quantities):
            warnings += _fractional_bytes(quantities, f"{cpath}.resources.{kind}")
    return warnings


def _has_fraction(quantities: dict[str, Quantity]) -> bool:
    for name in _BYTE_RESOURCES:
        q = quantities.get(name)
        if q is not None and q.milli_value() % 1000:
            return True
    return False


def _container_annotation_warnings(c: Container, annotations: dict[str, str], pre: str,
                                   check_apparmor: bool) -> list[str]:
    """Seccomp/AppArmor annotations for a container without the matching field (the AppArmor one for
    templates only: a Pod's is emitted by upstream's applyAppArmorVersionSkew, not modelled)."""
    warnings = []
    ctx = c.security_context
    key = _SECCOMP_CONTAINER + c.name
    if (ctx is None or ctx.seccomp_profile is None) and key in annotations:
        warnings.append(f"{pre}metadata.annotations[{key}]: {_SECCOMP_MSG}")
    key = _APPARMOR_CONTAINER + c.name
    if check_apparmor and (ctx is None or ctx.app_armor_profile is None) and key in annotations:
        warnings.append(f"{pre}metadata.annotations[{key}]: {_APPARMOR_MSG}")
    return warnings


def _env_warnings(c: Container, cpath: str) -> list[str]:
    """A repeated env name whose later entry does not build on the earlier value."""
    warnings = []
    seen: set[str] = set()
    for i, env in enumerate(c.env or ()):
        if env.name not in seen:
            seen.add(env.name)
            continue
        ref, value = f"$({env.name})", env.value or ""
        if env.value_from is not None or value == ref or ref not in value:
            warnings.append(f'{cpath}.env[{i}]: hides previous definition of "{env.name}", which may be '
                            "dropped when using apply")
    return warnings


def _port_text(p: object) -> str:
    """Go's ``%+v`` of a ContainerPort."""
    return (f"{{Name:{getattr(p, 'name', None) or ''} HostPort:{getattr(p, 'host_port', None) or 0} "
            f"ContainerPort:{getattr(p, 'container_port', 0)} Protocol:{getattr(p, 'protocol', None) or ''} "
            f"HostIP:{getattr(p, 'host_ip', None) or ''}}}")


def _port_warnings(spec: PodSpec, pre: str) -> list[str]:
    warnings: list[str] = []
    seen: dict[str, list[tuple[str, str, int]]] = {}
    for c, cpath in _visit(spec, pre):
        for i, p in enumerate(c.ports or ()):
            ppath, ip, hport = f"{cpath}.ports[{i}]", p.host_ip or "", p.host_port or 0
            if ip and not hport:
                warnings.append(f"{ppath}: hostIP set without hostPort: {_port_text(p)}")
            others = seen.setdefault(f"{p.container_port}/{p.protocol or ''}", [])
            for opath, oip, ohport in others:
                if ip == oip and hport == ohport:
                    warnings.append(f"{ppath}: duplicate port definition with {opath}")
                elif not hport or not ohport:
                    warnings.append(f"{ppath}: overlapping port definition with {opath}")
                elif hport == ohport and (not ip) != (not oip):
                    warnings.append(f"{ppath}: dangerously ambiguous port definition with {opath}")
            others.append((ppath, ip, hport))
    return warnings


def _port_name_warnings(spec: PodSpec, pre: str) -> list[str]:
    """A port name used again: services and probes that select ports by name take the first."""
    warnings = []
    first: dict[str, str] = {}
    for c, cpath in _visit(spec, pre):
        for i, p in enumerate(c.ports or ()):
            if not p.name:
                continue
            if p.name in first:
                other = first[p.name]
                warnings.append(f'{cpath}.ports[{i}]: duplicate port name "{p.name}" with {other}, services '
                                f"and probes that select ports by name will use {other}")
            else:
                first[p.name] = f"{cpath}.ports[{i}]"
    return warnings


def _pod_affinity_warnings(spec: PodSpec, pre: str) -> list[str]:
    warnings = []
    aff = spec.affinity
    assert aff is not None
    for name, pa in (("podAffinity", aff.pod_affinity), ("podAntiAffinity", aff.pod_anti_affinity)):
        if pa is None:
            continue
        base = f"{pre}spec.affinity.{name}"
        warnings += [f"{base}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector: "
                     f"{_NULL_SELECTOR}"
                     for i, t in enumerate(pa.required_during_scheduling_ignored_during_execution or ())
                     if t.label_selector is None]
        warnings += [f"{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm."
                     f"labelSelector: {_NULL_SELECTOR}"
                     for i, t in enumerate(pa.preferred_during_scheduling_ignored_during_execution or ())
                     if t.pod_affinity_term.label_selector is None]
    return warnings
