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
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from kbatch.api.base import parse_time
from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.jsonpath import TemplateError, checked_expression, find, go_value
from kbatch.api.quantity import Quantity
from kbatch.api.validation import is_dns1123_label
from kbatch.sim import faults
from kbatch.sim.command import FilesFactory
from kbatch.sim.devices import DeviceTemplate
from kbatch.sim.nodes import NodeTemplate, create_nodes

if TYPE_CHECKING:
    from kbatch.controllers.kubelet.volume_files import TokenSource

__all__ = ["ACTIONS", "ARGUMENTS", "MAX_NODES_PER_CALL", "check_arguments", "first_free_block",
           "node_template", "parse_taint", "pod_log", "wait_predicate"]

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


MAX_NODES_PER_CALL = 100_000  # one call, one settle: a typo such as 2**40 must not hang the server


def first_free_block(names: set[str], prefix: str, count: int) -> int:
    """The lowest start such that ``prefix{start}`` … ``prefix{start + count - 1}`` are all free."""
    suffixes = (name[len(prefix):] for name in names if name.startswith(prefix))
    taken = sorted(int(s) for s in suffixes if s.isascii() and s.isdigit() and s == str(int(s)))
    start = 0
    for index in taken:
        if index >= start + count:
            break
        if index >= start:
            start = index + 1
    return start


def _device_template(dra: Obj) -> DeviceTemplate:
    """``nodes-add``'s ``dra`` argument: a simulated DRA driver's devices (kbatch.sim.devices)."""
    try:
        template = DeviceTemplate(driver=str(dra["driver"]), count=int(dra.get("count", 8)),
                                  model=str(dra.get("model", "A100")), memory=str(dra.get("memory", "80Gi")),
                                  partitions=int(dra.get("partitions", 0)),
                                  device_status=bool(dra.get("deviceStatus", False)),
                                  network=bool(dra.get("network", False)),
                                  binding_conditions=_names(dra.get("bindingConditions")),
                                  binding_failure_conditions=_names(dra.get("bindingFailureConditions")),
                                  binds_to_node=bool(dra.get("bindsToNode", False)),
                                  attach_delay=float(dra.get("attachDelay", 10.0)),
                                  attach_fails=bool(dra.get("attachFails", False)),
                                  attach_fail_devices=_names(dra.get("attachFailDevices")),
                                  attach_fail_rate=float(dra.get("attachFailRate", 0.0)))
        Quantity(template.memory)
    except (KeyError, TypeError, ValueError) as err:
        raise BadRequest(f"invalid DRA device template: {err}") from None
    if template.attach_delay < 0:
        raise BadRequest(f"--attach-delay must not be negative, got {template.attach_delay:g}s")
    _binding_conditions(template)
    _attach_failures(template)
    if not 0 < template.count <= 64 or not 0 <= template.partitions <= 7:
        raise BadRequest("--gpu must be 1..64 and --gpu-partitions 0..7 with --gpu-driver (a ResourceSlice "
                         "holds at most 64 devices that consume counters)")
    return template


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError("condition names must be a list")
    return tuple(str(name) for name in value or ())


def _binding_conditions(template: DeviceTemplate) -> None:
    """Refuse condition names the slices' validation would refuse, before any node is created (the
    ResourceSlice rules: qualified names, at most 4 each, no duplicates or overlap)."""
    from kbatch.api.strategies.resource.slice_validation import validate_binding_conditions

    conditions, failures = list(template.binding_conditions), list(template.failure_conditions())
    errs = validate_binding_conditions(conditions, failures, "")
    if errs:
        raise BadRequest("invalid --binding-conditions/--binding-failure-conditions: "
                         + "; ".join(str(e) for e in errs))


def _attach_failures(template: DeviceTemplate) -> None:
    """``--attach-fail-rate`` is a probability and ``--attach-fail-devices`` names devices the nodes
    publish; both need binding conditions."""
    if (template.attach_fail_devices or template.attach_fail_rate) and not template.binding_conditions:
        raise BadRequest("--attach-fail-devices and --attach-fail-rate need --binding-conditions")
    if not 0.0 <= template.attach_fail_rate <= 1.0:
        raise BadRequest(f"--attach-fail-rate must be between 0 and 1, got {template.attach_fail_rate:g}")
    published = set(template.device_names())
    unknown = [name for name in template.attach_fail_devices if name not in published]
    if unknown:
        last = template.device_name(template.count - 1)
        raise BadRequest(f"--attach-fail-devices: no device {', '.join(unknown)} on these nodes (they "
                         f"publish {template.device_name(0)} … {last})")


def _capacity(name: str, value: Any) -> None:
    """A node's ``cpu``/``memory`` capacity is a quantity (a JSON number is one too, as
    apimachinery's ``Quantity.UnmarshalJSON`` reads it); anything else is one 400 line naming it,
    not the Node model's validation dump."""
    if value is None or value == "":
        return
    try:
        Quantity(str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value)
    except (TypeError, ValueError) as err:
        raise BadRequest(f'invalid {name} "{value}": {err}') from None


def node_template(args: Obj) -> NodeTemplate:
    """``nodes-add``'s arguments (``cpu``, ``memory``, ``gpu``, ``pods``, ``labels``, ``taints``,
    ``dra``, ``runtimeHandlers``) as a node template; also what an experiment file's ``nodes`` entries
    become."""
    dra = args.get("dra")
    devices = _device_template(dra) if dra else None
    for name in ("cpu", "memory"):
        _capacity(name, args.get(name))
    return NodeTemplate(cpu=str(args.get("cpu") or "8"), memory=str(args.get("memory") or "32Gi"),
                        pods=int(args.get("pods") or 110), gpus=0 if devices else int(args.get("gpu") or 0),
                        labels=dict(args.get("labels") or {}),
                        taints=tuple(parse_taint(t) for t in args.get("taints") or ()), devices=devices,
                        runtime_handlers=_runtime_handlers(args.get("runtimeHandlers")))


def _runtime_handlers(names: list[str] | None) -> tuple[str, ...]:
    """``--runtime-handler`` values: CRI handler names, as a RuntimeClass's ``handler`` (a DNS label),
    or "" for the default handler."""
    for name in names or ():
        messages = is_dns1123_label(name) if name else []
        if messages:
            raise BadRequest(f'--runtime-handler "{name}": {messages[0]}')
    return tuple(names or ())


def nodes_add(backend: Any, args: Obj) -> Obj:
    count = int(args.get("count", 1))
    if count < 1:
        raise BadRequest("--count must be at least 1")
    if count > MAX_NODES_PER_CALL:
        raise BadRequest(f"--count must be at most {MAX_NODES_PER_CALL} per call")
    prefix = f"{args.get('prefix') or 'node'}-"
    existing = {n["metadata"]["name"] for n in backend.list(_info(backend, "nodes"), None)["items"]}
    start = first_free_block(existing, prefix, count)
    created = create_nodes(backend.control_plane, count, node_template(args), prefix=prefix, start=start)
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
    try:
        faults.fail_pod(backend.control_plane, args["name"], args.get("namespace") or "default",
                        exit_code=code, container=args.get("container"), reason=args.get("reason") or "Error")
    except ValueError as err:  # a completed pod
        raise BadRequest(str(err)) from None
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
    from kbatch.store.errors import CompactedError, FutureRevisionError

    store = backend.control_plane.store
    revision = int(args.get("revision") or store.revision)
    try:
        store.compact(revision)
    except CompactedError:  # already compacted that far (etcd's ErrCompacted): nothing more to drop
        return {"compacted": store.compact_revision}
    except FutureRevisionError as err:  # etcd's ErrFutureRev
        raise BadRequest(str(err)) from None
    return {"compacted": revision}


def trace(backend: Any, args: Obj) -> Obj:
    tr = backend.control_plane.trace
    return {"lines": tr.lines(), "digest": tr.digest()}


def pod_log(backend: Any, namespace: str, name: str, container: str | None = None, *,
            previous: bool = False) -> str:
    lines = pod_log_lines(backend, namespace, name, container, previous=previous)
    return "".join(text + "\n" for _, text in lines)


def pod_log_lines(backend: Any, namespace: str, name: str, container: str | None = None, *,
                  previous: bool = False, run_started: str | None = None) -> list[tuple[datetime, str]]:
    """The lines the container's run (or its previous run) has written so far, each with its time:
    the run's ``startedAt`` plus when its command printed the line, in time order. A running
    container has written only the lines its command has reached by now (``startedAt`` is whole
    seconds, so a line may show up to a second early). ``run_started``: the run that started then,
    which the kubelet has replaced since (the same command, so the same lines)."""
    from kbatch.sim.clock_text import stamp
    from kbatch.sim.command import DEFAULT_DURATION, interpret
    from kbatch.sim.deleted_run import deleted_run
    from kbatch.sim.images import image_argv, owned_by_job, unknown_duration

    pod = backend.get(_info(backend, "pods"), namespace, name)
    chosen = _log_container(pod, name, container, previous)
    status = _container_status(pod, chosen["name"])
    earlier = max(int(status.get("restartCount") or 0) - (1 if previous else 0), 0)  # runs before it
    env, files = _container_env(backend, pod, chosen["name"], earlier)
    argv = image_argv(str(chosen.get("image") or ""), tuple(chosen.get("command") or ()),
                      tuple(chosen.get("args") or ()))
    owners = (str(ref.get("kind")) for ref in pod.get("metadata", {}).get("ownerReferences") or ())
    default = unknown_duration(owned_by_job(owners), DEFAULT_DURATION)
    run = interpret(argv, env, default, files=files)
    state = status.get("lastState") if previous else status.get("state")
    if run_started is not None:  # a run that has ended since (a followed log's): all it wrote
        state = {"terminated": {"startedAt": run_started}}
    running = "running" in (state or {})
    started_raw = next((v.get("startedAt") for v in (state or {}).values() if isinstance(v, dict)), None)
    now = backend.now()
    started = parse_time(started_raw) if started_raw else now
    deletion = (pod.get("metadata") or {}).get("deletionTimestamp")
    if not previous and deletion:  # the stop signal may have changed what it printed
        run = deleted_run(pod, chosen, argv, env, started, parse_time(deletion), default, files) or run
    lines = sorted(((when, stamp(text, when)) for text, at in zip(run.logs, run.log_offsets, strict=True)
                    for when in (started + timedelta(seconds=at),)), key=lambda line: line[0])
    return [line for line in lines if not running or line[0] <= now]


_WAITING = {"ErrImagePull": "image can't be pulled", "ImagePullBackOff": "trying and failing to pull image"}


def _log_container(pod: Obj, name: str, container: str | None, previous: bool) -> Obj:
    """The container whose log is asked for, checked as the kubelet checks it (k8s.io/kubernetes
    ``pkg/kubelet/kubelet_pods.go`` ``validateContainerLogStatus``): any of the pod's containers, init
    and ephemeral ones too; a previous run needs ``lastState.terminated`` (kbatch's kubelet sets no
    containerID to check); a waiting container without a terminated run has no log yet."""
    spec = pod["spec"]
    every = [*spec["containers"], *(spec.get("initContainers") or ()),
             *(spec.get("ephemeralContainers") or ())]
    chosen = next((c for c in every if c["name"] == container), None) if container else spec["containers"][0]
    if chosen is None:
        raise BadRequest(f'container {container} is not valid for pod {name}')
    status = _container_status(pod, chosen["name"])
    last_run = (status.get("lastState") or {}).get("terminated")
    if previous and not last_run:
        raise BadRequest(f'previous terminated container "{chosen["name"]}" in pod "{name}" not found')
    waiting = (status.get("state") or {}).get("waiting")
    if waiting is not None and not last_run:
        reason = waiting.get("reason") or "ContainerCreating"
        raise BadRequest(f'container "{chosen["name"]}" in pod "{name}" is waiting to start: '
                         f'{_WAITING.get(reason, reason)}')
    if not status and (pod.get("status") or {}).get("phase") in (None, "Pending"):
        raise BadRequest(f'container "{chosen["name"]}" in pod "{name}" is waiting to start: '
                         "ContainerCreating")
    return dict(chosen)


def _container_status(pod: Obj, container: str) -> Obj:
    """The container's status, from whichever list the kubelet keeps it in (``{}`` when none)."""
    status = pod.get("status") or {}
    for key in ("containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"):
        found = next((s for s in status.get(key) or () if s.get("name") == container), None)
        if found is not None:
            return dict(found)
    return {}


def _container_env(backend: Any, pod: Obj, container: str,
                   earlier_runs: int = 0) -> tuple[dict[str, str], FilesFactory]:
    """The environment the kubelet gives the container (its ``container_env``: values, the
    downward-API ``fieldRef`` forms, ``envFrom`` and ``configMapKeyRef``/``secretKeyRef`` read from
    the ConfigMaps and Secrets as they are now, the image's ``ENV``, the service variables of the
    Services as they are now), and its files as the kubelet mounts them (read
    from the objects as they are now, when the command first touches one), after ``earlier_runs``
    runs of its own (what they left in an emptyDir:
    :func:`kbatch.controllers.kubelet.volume_files.files_factory`)."""
    from kbatch.api.core_v1 import Pod
    from kbatch.controllers.kubelet.behaviour import container_env
    from kbatch.controllers.kubelet.service_env import pod_service_env
    from kbatch.controllers.kubelet.volume_files import files_factory

    model = Pod.from_dict(pod)
    spec = model.spec
    every = [*spec.containers, *(spec.init_containers or ()), *(spec.ephemeral_containers or ())]
    chosen = next(c for c in every if c.name == container)

    def lookup(kind: str, namespace: str, name: str) -> Any:
        spec = backend.registry.for_name(kind)
        try:
            return spec.model.from_dict(backend.get(spec.info, namespace, name))
        except NotFound:
            return None

    def services(namespace: str) -> list[Any]:
        spec = backend.registry.for_name("Service")
        return [spec.model.from_dict(o) for o in backend.list(spec.info, namespace)["items"]]

    svc = pod_service_env(model.metadata.namespace or "", spec.enable_service_links, services)

    def env(other: Any) -> dict[str, str]:
        return container_env(model, other, lookup, services=svc)

    return env(chosen), files_factory(model, chosen, lookup, env, _kubelet_tokens(backend), earlier_runs)


def _kubelet_tokens(backend: Any) -> TokenSource | None:
    """The token manager of the kubelet this process runs (what the pod's token file holds); none
    when it runs no kubelet (the file is then absent)."""
    cp = getattr(backend, "control_plane", None)
    try:
        kubelet = cp.manager.get("kubelet").reconciler if cp is not None else None
    except KeyError:
        return None
    manager = getattr(kubelet, "tokens", None)
    return manager.token if manager is not None else None


_WAIT_FIELDS = {"kind": str, "name": str, "namespace": str, "condition": str, "status": str, "delete": bool,
                "jsonpath": str, "value": str}


def _check_wait_for(spec: Obj) -> None:
    """``waitFor`` names its object with strings (a 400 otherwise, never a crash: found by fuzzing)."""
    for field in ("kind", "name"):
        if not spec.get(field):
            raise BadRequest(f"waitFor.{field} is required")
    for field, kind in _WAIT_FIELDS.items():
        value = spec.get(field)
        if value is not None and not isinstance(value, kind):
            raise BadRequest(f"waitFor.{field} must be a {'boolean' if kind is bool else 'string'}, "
                             f"got {value!r}")


def wait_predicate(backend: Any, spec: Obj) -> Callable[[], bool]:
    """``{"kind", "name", "namespace", "condition", "status"}``, ``{…, "jsonpath"[, "value"]}`` or
    ``{…, "delete": true}``."""
    _check_wait_for(spec)
    info = _info(backend, spec["kind"])
    namespace, name = spec.get("namespace") or "default", spec["name"]
    if spec.get("jsonpath") is not None:
        return _jsonpath_predicate(backend, info, namespace, name, spec["jsonpath"], spec.get("value"))
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


def _jsonpath_predicate(backend: Any, info: Any, namespace: str, name: str, expression: str,
                        value: str | None) -> Callable[[], bool]:
    """kubectl's ``JSONPathWait`` (``pkg/cmd/wait/json.go`` ``checkCondition``): the expression must
    find exactly one value (several are an error, as a map or list is), which equals ``value`` as Go
    prints it (``fmt.Sprintf("%v")``, spaces trimmed); without ``value`` any found value will do. An
    absent object or field does not hold yet."""
    try:
        path = checked_expression(expression)
    except TemplateError as err:
        raise BadRequest(f"waitFor.jsonpath: {err}") from None

    def holds() -> bool:
        try:
            obj = backend.get(info, namespace, name)
        except NotFound:
            return False
        found = find(path, obj)
        if not found:
            return False
        if len(found) > 1:
            raise BadRequest("given jsonpath expression matches more than one value")
        if value is None:
            return True
        if isinstance(found[0], (dict, list)):
            raise BadRequest("jsonpath leads to a nested object or list which is not supported")
        return go_value(found[0]).strip() == value.strip()

    return holds


# The JSON types of every action argument (``null`` means absent). A value of another type is a 400
# naming the argument, never an exception inside an action (found by fuzzing: ``{"name": 1}``,
# ``{"taints": [1]}``, ``{"after": "x"}`` were 500s).
_STRING, _INTEGER, _SECONDS = "a string", "an integer", "a number of seconds"
ARGUMENTS: dict[str, str] = {
    **dict.fromkeys(("name", "namespace", "container", "reason", "type", "status", "message", "probe",
                     "prefix"), _STRING),
    **dict.fromkeys(("count", "pods", "gpu", "exitCode", "revision"), _INTEGER),
    **dict.fromkeys(("after", "for"), _SECONDS),
    "cpu": "a quantity", "memory": "a quantity",
    "labels": "an object of strings",
    **dict.fromkeys(("taints", "add", "remove", "runtimeHandlers"), "a list of strings"),
}


def _valid(kind: str, value: Any) -> bool:
    if kind == _STRING:
        return isinstance(value, str)
    if kind == _INTEGER:
        return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63
    if kind == _SECONDS:
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e12
    if kind == "a quantity":
        return isinstance(value, str | int | float) and not isinstance(value, bool)
    if kind == "an object of strings":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def check_arguments(action: str, args: Obj) -> None:
    for name, value in args.items():
        kind = ARGUMENTS.get(name)
        if value is not None and kind is not None and not _valid(kind, value):
            raise BadRequest(f"action {action}: {name} must be {kind}, got {value!r}")


def _checked(name: str, handler: Action) -> Action:
    def run(backend: Any, args: Obj) -> Obj:
        check_arguments(name, args)
        return handler(backend, args)

    run.__doc__ = handler.__doc__
    return run


ACTIONS: dict[str, Action] = {name: _checked(name, handler) for name, handler in {
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
}.items()}
