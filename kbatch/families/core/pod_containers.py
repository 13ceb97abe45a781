"""The containers block of ``kubectl describe pod``, one container after another.

k8s.io/kubectl 1.37 ``pkg/describe/describe.go`` (``describeContainers`` and what it calls): the
container's name, Container ID, Image, Image ID (the IDs only when the container has a status), Port
and Host Port (``80/TCP (http)``, several joined by ``, `` under the plural title), SeccompProfile,
Command and Args (one line per element and embedded line), State and Last State (Running with
Started; Waiting with its Reason; Terminated with Reason, Message, Exit Code, Signal, Started and
Finished), Ready and Restart Count, Limits and Requests (sorted by name), the Liveness, Readiness and
Startup probes, Environment Variables from, Environment (values, resolved ``fieldRef`` and
``resourceFieldRef`` values, Secret and ConfigMap keys) and Mounts (sorted by path) and Devices.
"""

from __future__ import annotations

import math
from typing import Any

from kbatch.api.quantity import Quantity
from kbatch.families.core.describe_text import rfc1123z

__all__ = ["container_lines", "probe_text", "resource_lines"]

Obj = dict[str, Any]
_ZERO_TIME = "Mon, 01 Jan 0001 00:00:00 +0000"  # Go's zero time.Time as RFC 1123Z


def resource_lines(resources: Obj, level: int) -> list[str]:
    """``describeResources``: Limits then Requests, each resource sorted by name."""
    pad = "  " * level
    lines: list[str] = []
    for title, key in (("Limits", "limits"), ("Requests", "requests")):
        values = resources.get(key) or {}
        if values:
            lines.append(f"{pad}{title}:")
            lines += [f"{pad}  {name}:\t{Quantity(values[name]).canonical()}" for name in sorted(values)]
    return lines


def _ports(ports: list[Obj], field: str) -> str:
    return ", ".join(
        f"{p.get(field, 0)}/{p.get('protocol', 'TCP')}" + (f" ({p['name']})" if p.get("name") else "")
        for p in ports
    )


def _basic(container: Obj, status: Obj | None, space: str) -> list[str]:
    lines = [f"  {' ' if space else ''}{container.get('name', '')}:"]
    if status is not None:
        lines.append(f"    Container ID:\t{status.get('containerID', '')}")
    lines.append(f"    Image:\t{container.get('image', '')}")
    if status is not None:
        lines.append(f"    Image ID:\t{status.get('imageID', '')}")
    for singular, plural, field in (
        ("Port", "Ports", "containerPort"),
        ("Host Port", "Host Ports", "hostPort"),
    ):
        text = _ports(container.get("ports") or [], field)
        lines.append(f"    {plural}:\t{text}" if "," in text else f"    {singular}:\t{text or '<none>'}")
    profile = (container.get("securityContext") or {}).get("seccompProfile")
    if profile:
        lines.append(f"    SeccompProfile:\t{profile.get('type', '')}")
        if profile.get("type") == "Localhost":
            lines.append(f"      LocalhostProfile:\t{profile.get('localhostProfile', '')}")
    for title, key in (("Command", "command"), ("Args", "args")):
        if container.get(key):
            lines.append(f"    {title}:")
            lines += [f"      {part}" for item in container[key] for part in item.split("\n")]
    return lines


def _when(value: Any) -> str:
    return rfc1123z(value) if value else _ZERO_TIME


def _state(title: str, state: Obj) -> list[str]:
    """``describeStatus``: Running, else Waiting, else Terminated, else Waiting."""
    if state.get("running") is not None:
        return [f"    {title}:\tRunning", f"      Started:\t{_when(state['running'].get('startedAt'))}"]
    if state.get("waiting") is not None or state.get("terminated") is None:
        reason = (state.get("waiting") or {}).get("reason")
        return [f"    {title}:\tWaiting", *([f"      Reason:\t{reason}"] if reason else [])]
    t = state["terminated"]
    lines = [f"    {title}:\tTerminated"]
    lines += [
        f"      {name}:\t{t[key]}"
        for name, key in (("Reason", "reason"), ("Message", "message"))
        if t.get(key)
    ]
    lines.append(f"      Exit Code:\t{t.get('exitCode', 0)}")
    if (t.get("signal") or 0) > 0:
        lines.append(f"      Signal:\t{t['signal']}")
    return [
        *lines,
        f"      Started:\t{_when(t.get('startedAt'))}",
        f"      Finished:\t{_when(t.get('finishedAt'))}",
    ]


def _status_lines(status: Obj) -> list[str]:
    lines = _state("State", status.get("state") or {})
    last = status.get("lastState") or {}
    if last.get("terminated") is not None:
        lines += _state("Last State", last)
    return [
        *lines,
        f"    Ready:\t{'True' if status.get('ready') else 'False'}",
        f"    Restart Count:\t{status.get('restartCount', 0)}",
    ]


def probe_text(probe: Obj) -> str:
    """``DescribeProbe`` (1.37: ``successThreshold=``/``failureThreshold=``; 1.32 printed ``#success=``)."""
    attrs = (
        f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 0)}s "
        f"period={probe.get('periodSeconds', 0)}s successThreshold={probe.get('successThreshold', 0)} "
        f"failureThreshold={probe.get('failureThreshold', 0)}"
    )
    if probe.get("exec") is not None:
        return f"exec [{' '.join(probe['exec'].get('command') or ())}] {attrs}"
    if probe.get("httpGet") is not None:
        get = probe["httpGet"]
        host, port = get.get("host", ""), str(get.get("port", ""))
        netloc = (f"[{host}]:{port}" if ":" in host else f"{host}:{port}") if port else host
        return f"http-get {str(get.get('scheme', '')).lower()}://{netloc}{get.get('path', '')} {attrs}"
    if probe.get("tcpSocket") is not None:
        return f"tcp-socket {probe['tcpSocket'].get('host', '')}:{probe['tcpSocket'].get('port', '')} {attrs}"
    if probe.get("grpc") is not None:
        return f"grpc <pod>:{probe['grpc'].get('port')} {probe['grpc'].get('service', '')} {attrs}"
    return f"unknown {attrs}"


def _field_value(pod: Obj | None, path: str) -> str:
    """kubectl's ``EnvValueRetriever``: the path goes through its scheme's ``ConvertFieldLabel``, which
    for a Pod is apimachinery's ``DefaultMetaV1FieldSelectorConversion`` (kubectl registers no Pod
    field-label conversions): only ``metadata.name`` and ``metadata.namespace`` resolve, any other
    path prints as empty. A pod template has no resolver (``pod`` None): nothing resolves."""
    if pod is not None and path in ("metadata.name", "metadata.namespace"):
        return str((pod.get("metadata") or {}).get(path.partition(".")[2]) or "")
    return ""


def _resource_value(ref: Obj, container: Obj) -> str:
    """``ExtractContainerResourceValue``: the limit or request over the divisor, rounded up; a zero
    divisor (unset: the server writes Go's zero Quantity, ``divisor: "0"``) counts as 1 (k8s.io/kubectl
    ``pkg/util/resource/resource.go``)."""
    kind, _, name = (ref.get("resource") or "").partition(".")
    value = ((container.get("resources") or {}).get(kind) or {}).get(name)
    quantity = Quantity(value) if value is not None else Quantity("0")
    divisor = Quantity(ref.get("divisor") or "1")
    if not divisor.milli_value():
        divisor = Quantity("1")
    if name == "cpu":
        return str(math.ceil(quantity.milli_value() / max(divisor.milli_value(), 1)))
    if name in ("memory", "ephemeral-storage") or name.startswith("hugepages-"):
        return str(math.ceil(quantity.value() / max(divisor.value(), 1)))
    return ""


def _env_line(var: Obj, pod: Obj | None, container: Obj) -> list[str]:
    name, source = var.get("name", ""), var.get("valueFrom")
    if source is None:
        first, *rest = (var.get("value") or "").split("\n")
        return [f"      {name}:\t{first}", *(f"      \t{line}" for line in rest)]
    if source.get("fieldRef") is not None:
        ref = source["fieldRef"]
        value = _field_value(pod, ref.get("fieldPath", ""))
        return [f"      {name}:\t{value} ({ref.get('apiVersion', '')}:{ref.get('fieldPath', '')})"]
    if source.get("resourceFieldRef") is not None:
        ref = source["resourceFieldRef"]
        value = _resource_value(ref, container)
        if value == "0" and ref.get("resource") in ("limits.cpu", "limits.memory"):
            value = "node allocatable"
        return [f"      {name}:\t{value} ({ref.get('resource', '')})"]
    for key, words in (("secretKeyRef", "in secret"), ("configMapKeyRef", "of config map")):
        ref = source.get(key)
        if ref is not None:
            optional = "true" if ref.get("optional") else "false"
            return [
                f"      {name}:\t<set to the key '{ref.get('key', '')}' {words} '{ref.get('name', '')}'>\t"
                f"Optional: {optional}"
            ]
    return []


def _environment(container: Obj, pod: Obj | None) -> list[str]:
    lines: list[str] = []
    if container.get("envFrom"):
        lines.append("    Environment Variables from:")
        for source in container["envFrom"]:
            ref, kind = (
                (source["configMapRef"], "ConfigMap")
                if source.get("configMapRef") is not None
                else (source.get("secretRef") or {}, "Secret" if source.get("secretRef") is not None else "")
            )
            prefix = f" with prefix '{source['prefix']}'" if source.get("prefix") else ""
            optional = "true" if ref.get("optional") else "false"
            lines.append(f"      {ref.get('name', '')}\t{kind}{prefix}\tOptional: {optional}")
    env = container.get("env") or []
    lines.append("    Environment:" + ("" if env else "\t<none>"))
    return lines + [line for var in env for line in _env_line(var, pod, container)]


def _mounts(container: Obj) -> list[str]:
    mounts = sorted(container.get("volumeMounts") or (), key=lambda m: m.get("mountPath", ""))
    lines = ["    Mounts:" + ("" if mounts else "\t<none>")]
    for m in mounts:
        flags = ["ro" if m.get("readOnly") else "rw"] + (
            [f'path="{m["subPath"]}"'] if m.get("subPath") else []
        )
        lines.append(f"      {m.get('mountPath', '')} from {m.get('name', '')} ({','.join(flags)})")
    devices = sorted(container.get("volumeDevices") or (), key=lambda d: d.get("devicePath", ""))
    if devices:
        lines.append("    Devices:" + ("" if mounts else "\t<none>"))
        lines += [f"      {d.get('devicePath', '')} from {d.get('name', '')}" for d in devices]
    return lines


def container_lines(
    label: str, containers: list[Obj], statuses: list[Obj] | None, pod: Obj | None, space: str = ""
) -> list[str]:
    """``describeContainers``: the block titled ``label`` (``<none>`` when empty); ``space`` indents the
    title and, by one more space, each name (a pod template's, ``pod`` None: no statuses, and
    ``fieldRef`` values are not resolved)."""
    by_name = {s.get("name"): s for s in statuses or ()}
    lines = [f"{space}{label}:" + ("" if containers else " <none>")]
    for container in containers:
        status = by_name.get(container.get("name"))
        lines += _basic(container, status, space)
        if status is not None:
            lines += _status_lines(status)
        lines += resource_lines(container.get("resources") or {}, 2)
        lines += [
            f"    {title}:\t{probe_text(container[key])}"
            for title, key in (
                ("Liveness", "livenessProbe"),
                ("Readiness", "readinessProbe"),
                ("Startup", "startupProbe"),
            )
            if container.get(key) is not None
        ]
        lines += _environment(container, pod) + _mounts(container)
    return lines
