"""The simulated cluster and fault injection: nodes add, node down|up|taint|stop-kubelet|start-kubelet,
fail/evict/condition pod, probe fail|clear."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from kbatch.cli.durations import duration_option
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options

__all__ = ["register"]

nodes_app = typer.Typer(help="Add simulated nodes.", no_args_is_help=True)
node_app = typer.Typer(help="Take a node down, bring it up, stop or start its kubelet, or taint it.",
                       no_args_is_help=True)
fail_app = typer.Typer(help="Make a pod fail.", no_args_is_help=True)
evict_app = typer.Typer(help="Evict a pod (as the eviction API does).", no_args_is_help=True)
condition_app = typer.Typer(help="Set a condition on a pod.", no_args_is_help=True)
probe_app = typer.Typer(help="Make a pod's probes fail, or clear the probe faults.", no_args_is_help=True)
PROBES = ("liveness", "readiness", "startup")



def _act(ctx: typer.Context, name: str, args: dict[str, Any]) -> dict[str, Any]:
    from kbatch.cli.session import session

    with session(global_options(ctx)) as backend:
        return backend.action(name, args)


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    out = {}
    for item in values or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f'invalid {what} "{item}": use key=value')
        out[key] = value
    return out


def _quantity_flag(flag: str, value: str) -> None:
    """A capacity flag that is not a quantity is refused before anything is sent, in pflag's words
    for a flag value it cannot parse (``invalid argument "abc" for "--cpu" flag: …``)."""
    from kbatch.api.quantity import QuantityError, parse_quantity

    try:
        parse_quantity(value)
    except QuantityError as err:
        raise UserError(f'invalid argument "{value}" for "{flag}" flag: {err}') from None


@nodes_app.command("add")
@command
def nodes_add(ctx: typer.Context, count: int = typer.Option(1, "--count", help="How many nodes."),
              cpu: str = typer.Option("4", "--cpu", help="CPU capacity of each node."),
              memory: str = typer.Option("16Gi", "--memory", help="Memory capacity of each node."),
              gpu: int = typer.Option(0, "--gpu", help="nvidia.com/gpu capacity of each node."),
              pods: int = typer.Option(110, "--pods", help="Pod capacity of each node."),
              label: list[str] | None = typer.Option(None, "--label", help="key=value (repeatable)."),
              taint: list[str] | None = typer.Option(None, "--taint", help="key=value:Effect (repeatable)."),
              prefix: str = typer.Option("node", "--prefix",
                                         help="Node names are PREFIX-0, PREFIX-1, …"),
              gpu_driver: str | None = typer.Option(
                  None, "--gpu-driver", help="Publish the --gpu GPUs as DRA devices of this driver (one "
                  "ResourceSlice per node) instead of the nvidia.com/gpu extended resource."),
              gpu_model: str = typer.Option("A100", "--gpu-model", help="DRA devices' model attribute."),
              gpu_memory: str = typer.Option("80Gi", "--gpu-memory", help="DRA devices' memory capacity."),
              gpu_partitions: int = typer.Option(0, "--gpu-partitions",
                                                 help="Also offer each DRA GPU as N partitions sharing its "
                                                      "counters (partitionable devices)."),
              device_status: bool = typer.Option(
                  False, "--device-status", help="With --gpu-driver: the driver reports each device it "
                  "prepared in the ResourceClaim's status.devices (a Ready condition and data)."),
              device_network: bool = typer.Option(
                  False, "--device-network", help="With --gpu-driver: the devices are network interfaces "
                  "(nic-<i>); with --device-status their entries carry networkData."),
              binding_conditions: str | None = typer.Option(
                  None, "--binding-conditions", help="With --gpu-driver: the devices publish these "
                  "bindingConditions (COND[,COND]; KEP-5007): the scheduler binds a pod only once the "
                  "driver has set them True after --attach-delay."),
              binding_failure_conditions: str | None = typer.Option(
                  None, "--binding-failure-conditions", help="With --binding-conditions: the devices' "
                  "bindingFailureConditions (default attach-failed)."),
              attach_delay: str = typer.Option(
                  "10s", "--attach-delay", help="With --binding-conditions: virtual time from the "
                  "allocation until the driver reports the attachment."),
              attach_fail: bool = typer.Option(
                  False, "--attach-fail", help="With --binding-conditions: every attachment fails (the "
                  "driver sets the first failure condition True; the claim is deallocated and the pod "
                  "rescheduled)."),
              attach_fail_devices: str | None = typer.Option(
                  None, "--attach-fail-devices", help="With --binding-conditions: the attachments of "
                  "these devices fail, every attempt (NAME[,NAME], e.g. gpu-1)."),
              attach_fail_rate: float = typer.Option(
                  0.0, "--attach-fail-rate", help="With --binding-conditions: each attempt (one "
                  "allocation of one device) fails with this probability, 0..1, drawn from the "
                  "control plane's seed (the same seed and commands, the same outcomes)."),
              binds_to_node: bool = typer.Option(
                  False, "--binds-to-node", help="With --gpu-driver: the devices publish bindsToNode."),
              runtime_handler: list[str] | None = typer.Option(
                  None, "--runtime-handler", help="A CRI handler the node reports in "
                  "status.runtimeHandlers (repeatable; \"\" is the default). Without it a node runs every "
                  "RuntimeClass's handler; with it, a pod whose class's handler is not listed fails its "
                  "sandbox.")) -> None:
    """Add Ready simulated nodes (optionally with a simulated DRA driver publishing their GPUs)."""
    if count < 1:
        raise UserError("--count must be at least 1")
    for flag, value in (("--cpu", cpu), ("--memory", memory), ("--gpu-memory", gpu_memory)):
        _quantity_flag(flag, value)
    args = {"count": count, "cpu": cpu, "memory": memory, "gpu": gpu, "pods": pods,
            "labels": _pairs(label, "label"), "taints": taint or [], "prefix": prefix}
    if runtime_handler:
        args["runtimeHandlers"] = list(runtime_handler)
    if gpu_driver:
        args["dra"] = {"driver": gpu_driver, "count": gpu or 8, "model": gpu_model, "memory": gpu_memory,
                       "partitions": gpu_partitions, "deviceStatus": device_status, "network": device_network,
                       **_binding_args(binding_conditions, binding_failure_conditions, attach_delay,
                                       _AttachFailures(attach_fail, attach_fail_devices, attach_fail_rate),
                                       binds_to_node)}
    elif device_status or device_network or binding_conditions or binds_to_node:
        raise UserError("--device-status, --device-network, --binding-conditions and --binds-to-node need "
                        "--gpu-driver")
    out = _act(ctx, "nodes-add", args)
    for name in out.get("nodes", []):
        typer.echo(f"node/{name} created")


@dataclass(frozen=True)
class _AttachFailures:
    """``nodes add``'s flags saying which simulated attachments fail."""

    every: bool
    devices: str | None
    rate: float

    def given(self) -> bool:
        return self.every or bool(self.devices) or bool(self.rate)


def _binding_args(conditions: str | None, failures: str | None, delay: str, fail: _AttachFailures,
                  binds_to_node: bool) -> dict[str, object]:
    """``nodes add``'s binding-condition flags as the action's ``dra`` fields (KEP-5007)."""
    def names(text: str | None) -> list[str]:
        return [name.strip() for name in (text or "").split(",") if name.strip()]

    if not conditions and (failures or fail.given()):
        raise UserError("--binding-failure-conditions, --attach-fail, --attach-fail-devices and "
                        "--attach-fail-rate need --binding-conditions")
    out: dict[str, object] = {"bindsToNode": binds_to_node}
    if conditions:
        out |= {"bindingConditions": names(conditions), "bindingFailureConditions": names(failures),
                "attachDelay": duration_option(delay, "--attach-delay"), "attachFails": fail.every}
        if fail.devices:
            out["attachFailDevices"] = names(fail.devices)
        if fail.rate:
            out["attachFailRate"] = fail.rate
    return out


@node_app.command("down")
@command
def node_down(ctx: typer.Context, name: str = typer.Argument(..., help="Node name.")) -> None:
    """Take the node down: its kubelet stops and Ready is Unknown now (see stop-kubelet for the
    slow way, where node lifecycle notices after the grace period)."""
    _act(ctx, "node-down", {"name": name})
    typer.echo(f"node/{name} down")


@node_app.command("up")
@command
def node_up(ctx: typer.Context, name: str = typer.Argument(..., help="Node name.")) -> None:
    """Bring the node back: its kubelet starts and Ready is True (undoes node down)."""
    _act(ctx, "node-up", {"name": name})
    typer.echo(f"node/{name} up")


@node_app.command("stop-kubelet")
@command
def node_stop_kubelet(ctx: typer.Context, name: str = typer.Argument(..., help="Node name.")) -> None:
    """Stop the node's kubelet: no Lease renewal, no pod progress; node lifecycle times it out."""
    _act(ctx, "node-stop-kubelet", {"name": name})
    typer.echo(f"node/{name} kubelet stopped")


@node_app.command("start-kubelet")
@command
def node_start_kubelet(ctx: typer.Context, name: str = typer.Argument(..., help="Node name.")) -> None:
    """Start the node's kubelet again: it renews its Lease and posts Ready=True at once."""
    _act(ctx, "node-start-kubelet", {"name": name})
    typer.echo(f"node/{name} kubelet started")


@node_app.command("taint")
@command
def node_taint(ctx: typer.Context, name: str = typer.Argument(..., help="Node name."),
               taints: list[str] = typer.Argument(...,
                                                  help="key=value:Effect to add; key- to remove.")) -> None:
    """Add or remove taints (kubectl taint syntax)."""
    add = [t for t in taints if not t.endswith("-")]
    remove = [t for t in taints if t.endswith("-")]
    _act(ctx, "node-taint", {"name": name, "add": add, "remove": remove})
    typer.echo(f"node/{name} tainted" if add else f"node/{name} untainted")


@fail_app.command("pod")
@command
def fail_pod(ctx: typer.Context, name: str = typer.Argument(..., help="Pod name."),
             exit_code: int = typer.Option(1, "--exit-code", help="The container's exit code."),
             container: str | None = typer.Option(None, "--container",
                                                  help="Which container (default: first)."),
             reason: str | None = typer.Option(None, "--reason", help="Termination reason (default: Error)."),
             namespace: str | None = NAMESPACE) -> None:
    """End a pod's container now with an exit code."""
    _act(ctx, "fail-pod", {"name": name, "namespace": namespace or "default", "exitCode": exit_code,
                           "container": container, "reason": reason})
    typer.echo(f"pod/{name} failed (exit code {exit_code})")


@evict_app.command("pod")
@command
def evict_pod(ctx: typer.Context, name: str = typer.Argument(..., help="Pod name."),
              namespace: str | None = NAMESPACE) -> None:
    """Evict a pod: DisruptionTarget condition, then deletion."""
    _act(ctx, "evict-pod", {"name": name, "namespace": namespace or "default"})
    typer.echo(f"pod/{name} evicted")


@condition_app.command("pod")
@command
def condition_pod(ctx: typer.Context, name: str = typer.Argument(..., help="Pod name."),
                  type_: str = typer.Argument(..., metavar="TYPE", help="Condition type, e.g. ConfigIssue."),
                  status: str = typer.Option("True", "--status", help="True, False or Unknown."),
                  reason: str | None = typer.Option(None, "--reason", help="Condition reason."),
                  message: str | None = typer.Option(None, "--message", help="Condition message."),
                  namespace: str | None = NAMESPACE) -> None:
    """Set a condition on a pod's status (e.g. ConfigIssue, DisruptionTarget)."""
    if status not in ("True", "False", "Unknown"):
        raise UserError(f'--status must be True, False or Unknown, got "{status}"')
    _act(ctx, "condition-pod", {"name": name, "namespace": namespace or "default", "type": type_,
                                "status": status, "reason": reason, "message": message})
    typer.echo(f"pod/{name} condition {type_}={status}")


@probe_app.command("fail")
@command
def probe_fail(ctx: typer.Context, name: str = typer.Argument(..., help="Pod name."),
               probe: str = typer.Option("liveness", "--probe", help="liveness, readiness or startup."),
               container: str | None = typer.Option(None, "--container",
                                                    help="Which container (default: first)."),
               after: str | None = typer.Option(None, "--after", help="Start this long from now."),
               for_: str | None = typer.Option(None, "--for", help="Fail this long (default: for good)."),
               namespace: str | None = NAMESPACE) -> None:
    """Make a container's probe fail (faults accumulate until cleared)."""
    if probe not in PROBES:
        raise UserError(f'--probe must be liveness, readiness or startup, got "{probe}"')
    start = duration_option(after, "--after") if after is not None else 0.0
    length = duration_option(for_, "--for") if for_ is not None else None
    _act(ctx, "probe-fail", {"name": name, "namespace": namespace or "default", "probe": probe,
                             "container": container, "after": start, "for": length})
    typer.echo(f"pod/{name} {probe} probe failing")


@probe_app.command("clear")
@command
def probe_clear(ctx: typer.Context, name: str = typer.Argument(..., help="Pod name."),
                namespace: str | None = NAMESPACE) -> None:
    """Clear a pod's probe faults: every probe answers as its handler says again."""
    _act(ctx, "probe-clear", {"name": name, "namespace": namespace or "default"})
    typer.echo(f"pod/{name} probe faults cleared")


def register(app: typer.Typer) -> None:
    app.add_typer(nodes_app, name="nodes")
    app.add_typer(node_app, name="node")
    app.add_typer(fail_app, name="fail")
    app.add_typer(evict_app, name="evict")
    app.add_typer(condition_app, name="condition")
    app.add_typer(probe_app, name="probe")
