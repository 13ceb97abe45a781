"""kbatch's cluster and fault-injection actions, at the API level (``POST …/actions/NAME``).

Each action is ``fn(backend, args) -> dict`` and calls the simulated cluster (``kbatch.sim``), which
acts through the API so that every fault is in the trace: ``nodes-add`` creates Ready nodes from a
template (KWOK-style); ``node-down`` stops the node's kubelet and marks Ready ``Unknown`` (a node
that went away); ``evict-pod`` is the eviction subresource's DisruptionTarget-then-delete; ``fail-pod`` asks
the simulated kubelet to end a container with an exit code; ``condition-pod`` sets a pod
condition. ``compact`` compacts the store (clients then see 410 Expired), ``trace`` returns the
trace. Pod logs are what the container's command would print (``kbatch.sim.command``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kbatch.api.errors import BadRequest, NotFound
from kbatch.sim import faults
from kbatch.sim.nodes import NodeTemplate, create_nodes

__all__ = ["ACTIONS", "parse_taint", "pod_log", "wait_predicate"]

Obj = dict[str, Any]
Action = Callable[[Any, Obj], Obj]


def _info(backend: Any, kind: str) -> Any:
    return backend.registry.for_name(kind).info


def parse_taint(text: str) -> Obj:
    """``key=value:Effect`` or ``key:Effect`` (kubectl taint syntax)."""
    body, sep, effect = text.rpartition(":")
    if not sep or not body or effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
        raise BadRequest(f'invalid taint "{text}": use key[=value]:NoSchedule|PreferNoSchedule|NoExecute')
    key, _, value = body.partition("=")
    taint: Obj = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    return taint


def nodes_add(backend: Any, args: Obj) -> Obj:
    count = int(args.get("count", 1))
    if count < 1:
        raise BadRequest("--count must be at least 1")
    prefix = f"{args.get('prefix') or 'node'}-"
    existing = {n["metadata"]["name"] for n in backend.list(_info(backend, "nodes"), None)["items"]}
    start = 0
    while any(f"{prefix}{i}" in existing for i in range(start, start + count)):
        start += 1
    template = NodeTemplate(cpu=str(args.get("cpu") or "8"), memory=str(args.get("memory") or "32Gi"),
                            pods=int(args.get("pods") or 110), gpus=int(args.get("gpu") or 0),
                            labels=dict(args.get("labels") or {}),
                            taints=tuple(parse_taint(t) for t in args.get("taints") or ()))
    created = create_nodes(backend.control_plane, count, template, prefix=prefix, start=start)
    return {"nodes": [n.metadata.name for n in created]}


def node_down(backend: Any, args: Obj) -> Obj:
    """The node is down: its kubelet stops (no Lease, no status posts, no pod progress) and Ready is
    ``Unknown`` at once, what node lifecycle writes after the grace period. Marking ``Unknown``
    alone would not last: a running kubelet posts its own Ready at its next status update."""
    cp = backend.control_plane
    faults.stop_kubelet(cp, args["name"])
    faults.mark_node_not_ready(cp, args["name"], unknown=True)
    return {"node": args["name"], "ready": "Unknown"}


def node_up(backend: Any, args: Obj) -> Obj:
    """Undoes ``node-down``: the kubelet starts again and Ready is ``True``."""
    cp = backend.control_plane
    faults.start_kubelet(cp, args["name"])
    faults.mark_node_ready(cp, args["name"])
    return {"node": args["name"], "ready": "True"}


def node_taint(backend: Any, args: Obj) -> Obj:
    cp = backend.control_plane
    for text in args.get("add") or ():
        taint = parse_taint(text)
        faults.taint_node(cp, args["name"], taint["key"], taint.get("value", ""), taint["effect"])
    for text in args.get("remove") or ():
        faults.untaint_node(cp, args["name"], text.rstrip("-").partition(":")[0].partition("=")[0])
    return {"node": args["name"]}


def fail_pod(backend: Any, args: Obj) -> Obj:
    code = int(args.get("exitCode", 1))
    faults.fail_pod(backend.control_plane, args["name"], args.get("namespace") or "default", exit_code=code,
                    container=args.get("container"), reason=args.get("reason") or "Error")
    return {"pod": args["name"], "exitCode": code}


def condition_pod(backend: Any, args: Obj) -> Obj:
    faults.add_pod_condition(backend.control_plane, args["name"], args["type"],
                             args.get("namespace") or "default", status=args.get("status") or "True",
                             reason=args.get("reason") or "", message=args.get("message") or "")
    return {"pod": args["name"], "condition": args["type"]}


def evict_pod(backend: Any, args: Obj) -> Obj:
    faults.evict_pod(backend.control_plane, args["name"], args.get("namespace") or "default")
    return {"pod": args["name"], "evicted": True}


def node_stop_kubelet(backend: Any, args: Obj) -> Obj:
    faults.stop_kubelet(backend.control_plane, args["name"])
    return {"node": args["name"], "kubelet": "stopped"}


def node_start_kubelet(backend: Any, args: Obj) -> Obj:
    faults.start_kubelet(backend.control_plane, args["name"])
    return {"node": args["name"], "kubelet": "started"}


def probe_fail(backend: Any, args: Obj) -> Obj:
    """``after``/``for`` are seconds from now (``for`` absent: for good)."""
    cp, probe = backend.control_plane, args.get("probe") or "liveness"
    start = cp.clock.now() + float(args.get("after") or 0.0)
    length = args.get("for")
    try:
        faults.fail_probe(cp, args["name"], args.get("namespace") or "default", probe=probe,
                          container=args.get("container"), start=start,
                          until=start + float(length) if length is not None else None)
    except ValueError as err:
        raise BadRequest(str(err)) from None
    return {"pod": args["name"], "probe": probe}


def probe_clear(backend: Any, args: Obj) -> Obj:
    faults.clear_probe_faults(backend.control_plane, args["name"], args.get("namespace") or "default")
    return {"pod": args["name"]}


def compact(backend: Any, args: Obj) -> Obj:
    """Compact the store's history up to the current revision (or ``revision``), as etcd does every
    five minutes: watches and lists from an older resourceVersion then get 410 Expired."""
    store = backend.control_plane.store
    revision = int(args.get("revision") or store.revision)
    store.compact(revision)
    return {"compacted": revision}


def trace(backend: Any, args: Obj) -> Obj:
    tr = backend.control_plane.trace
    return {"lines": tr.lines(), "digest": tr.digest()}


def pod_log(backend: Any, namespace: str, name: str, container: str | None = None) -> str:
    info = _info(backend, "pods")
    pod = backend.get(info, namespace, name)
    from kbatch.sim.command import interpret

    containers = pod["spec"]["containers"]
    chosen = next((c for c in containers if c["name"] == container), None) if container else containers[0]
    if chosen is None:
        raise BadRequest(f'container {container} is not valid for pod {name}')
    if (pod.get("status") or {}).get("phase") in (None, "Pending"):
        raise BadRequest(f'container "{chosen["name"]}" in pod "{name}" is waiting to start: '
                         "ContainerCreating")
    env = {e["name"]: _env_value(pod, e) for e in chosen.get("env") or () if "name" in e}
    run = interpret([*(chosen.get("command") or ()), *(chosen.get("args") or ())], env)
    return "".join(line + "\n" for line in run.logs)


def _env_value(pod: Obj, var: Obj) -> str:
    """An env var's value, resolving the downward-API ``fieldRef`` forms the Job controller uses
    (``metadata.annotations['batch.kubernetes.io/job-completion-index']``)."""
    if "value" in var:
        return str(var["value"])
    path = ((var.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath", "")
    meta = pod.get("metadata") or {}
    for field in ("annotations", "labels"):
        prefix = f"metadata.{field}['"
        if path.startswith(prefix) and path.endswith("']"):
            return str((meta.get(field) or {}).get(path[len(prefix):-2], ""))
    simple = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
              "spec.nodeName": (pod.get("spec") or {}).get("nodeName"),
              "status.podIP": (pod.get("status") or {}).get("podIP")}
    return str(simple.get(path) or "")


def wait_predicate(backend: Any, spec: Obj) -> Callable[[], bool]:
    """``{"kind", "name", "namespace", "condition", "status"}`` or ``{…, "delete": true}``."""
    info = _info(backend, spec["kind"])
    namespace, name = spec.get("namespace") or "default", spec["name"]
    wanted, status = spec.get("condition"), str(spec.get("status") or "True")

    def holds() -> bool:
        try:
            obj = backend.get(info, namespace, name)
        except NotFound:
            return bool(spec.get("delete"))
        if spec.get("delete"):
            return False
        return any(c.get("type", "").lower() == str(wanted).lower() and c.get("status") == status
                   for c in (obj.get("status") or {}).get("conditions") or ())

    return holds


ACTIONS: dict[str, Action] = {
    "nodes-add": nodes_add,
    "node-down": node_down,
    "node-up": node_up,
    "node-taint": node_taint,
    "fail-pod": fail_pod,
    "evict-pod": evict_pod,
    "condition-pod": condition_pod,
    "node-stop-kubelet": node_stop_kubelet,
    "node-start-kubelet": node_start_kubelet,
    "probe-fail": probe_fail,
    "probe-clear": probe_clear,
    "trace": trace,
    "compact": compact,
}
