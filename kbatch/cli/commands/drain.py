"""``kbatch cordon``, ``uncordon`` and ``drain``, as kubectl 1.37's (k8s.io/kubectl
``pkg/cmd/drain/drain.go`` over ``pkg/drain``): the decisions are :mod:`kbatch.cli.drain`'s; this
module reads the nodes and pods, patches, evicts (or deletes) and waits.

Waiting moves the virtual clock as ``kbatch wait`` and ``delete --wait`` do (on a real clock the
machine's time passes): a PodDisruptionBudget's 429 is retried every 5 s of that time, and each
evicted pod is waited for until it is gone, all within one ``--timeout`` per node.
"""

from __future__ import annotations

from typing import Any

import typer

from kbatch.cli import drain as decide
from kbatch.cli.drain_wait import DrainRun, delete_pods, evict_pods, ref
from kbatch.cli.dry_run import DRY_RUN_SUFFIX as _SUFFIX
from kbatch.cli.dry_run import dry_run_strategy as _dry
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import global_options

__all__ = ["register"]

Obj = dict[str, Any]

NODES = typer.Argument(None, help="Node names.")
SELECTOR = typer.Option(None, "-l", "--selector", help="Label selector of the nodes.")
DRY_RUN = typer.Option("none", "--dry-run", help="none, client or server.")


def _nodes(backend: Any, names: list[str], selector: str | None, verb: str) -> list[Obj]:
    """``DrainCmdOptions.Complete``: NODE… or ``--selector``, not both; each named node read in
    turn (the first that is missing is the command's error, before anything is changed)."""
    info = backend.registry.for_name("nodes").info
    if not names and selector is None:
        raise UserError(f"USAGE: {verb} NODE [flags]\nSee 'kbatch {verb} -h' for help and examples")
    if names and selector:
        raise UserError("error: cannot specify both a node name and a --selector option\n"
                        f"See 'kbatch {verb} -h' for help and examples")
    if selector is not None:
        return list(backend.list(info, None, label_selector=selector).get("items") or ())
    return [backend.get(info, None, name) for name in names]


def _cordon(backend: Any, nodes: list[Obj], desired: bool, dry_run: str) -> None:
    """``RunCordonOrUncordon``: a strategic merge patch of ``spec.unschedulable`` where it differs
    (``CordonHelper``; false is written as its removal, the field being omitempty), then
    ``node/NAME cordoned``; a failed patch is reported and the next node tried."""
    from kbatch.api.errors import StatusError
    from kbatch.cli.errors import describe_error
    from kbatch.server.backend import WriteOptions

    info = backend.registry.for_name("nodes").info
    for node in nodes:
        name = node["metadata"]["name"]
        needed, word = decide.cordon_operation(desired, bool((node.get("spec") or {}).get("unschedulable")))
        if needed and dry_run != "client":
            patch = {"spec": {"unschedulable": True if desired else None}}
            try:
                backend.patch(info, None, name, patch, "strategic", WriteOptions(dry_run=dry_run == "server"))
            except StatusError as err:
                verb = "cordon" if desired else "uncordon"
                typer.echo(f'error: unable to {verb} node "{name}": {describe_error(err)}', err=True)
                continue
        typer.echo(f"node/{name} {word}{_SUFFIX[dry_run]}")


@command
def cordon(ctx: typer.Context, nodes: list[str] | None = NODES, selector: str | None = SELECTOR,
           dry_run: str = DRY_RUN) -> None:
    """Mark nodes as unschedulable (kubectl cordon)."""
    _cordon_command(ctx, nodes or [], selector, _dry(dry_run), desired=True)


@command
def uncordon(ctx: typer.Context, nodes: list[str] | None = NODES, selector: str | None = SELECTOR,
             dry_run: str = DRY_RUN) -> None:
    """Mark nodes as schedulable (kubectl uncordon)."""
    _cordon_command(ctx, nodes or [], selector, _dry(dry_run), desired=False)


def _cordon_command(ctx: typer.Context, names: list[str], selector: str | None, dry_run: str, *,
                    desired: bool) -> None:
    from kbatch.cli.session import session

    with session(global_options(ctx)) as backend:
        _cordon(backend, _nodes(backend, names, selector, "cordon" if desired else "uncordon"), desired,
                dry_run)


@command
def drain(ctx: typer.Context, nodes: list[str] | None = NODES, selector: str | None = SELECTOR,
          dry_run: str = DRY_RUN,
          force: bool = typer.Option(False, "--force", help="Continue even if there are pods that do not "
                                     "declare a controller."),
          ignore_daemonsets: bool = typer.Option(False, "--ignore-daemonsets",
                                                 help="Ignore DaemonSet-managed pods."),
          delete_emptydir_data: bool = typer.Option(False, "--delete-emptydir-data",
                                                    help="Continue even if there are pods using emptyDir."),
          grace_period: int = typer.Option(-1, "--grace-period", help="Seconds each pod is given to "
                                           "terminate; negative: the pod's own."),
          timeout: str = typer.Option("0s", "--timeout", help="How long to wait before giving up (Go "
                                      "duration; virtual time); 0: a week."),
          pod_selector: str | None = typer.Option(None, "--pod-selector",
                                                  help="Label selector of the pods on the node."),
          disable_eviction: bool = typer.Option(False, "--disable-eviction", help="Delete instead of "
                                                "evicting, bypassing PodDisruptionBudgets."),
          skip_wait: int = typer.Option(0, "--skip-wait-for-delete-timeout", help="Skip pods deleted more "
                                        "than N seconds ago.")) -> None:
    """Cordon nodes, then evict their pods and wait until they are gone (kubectl drain)."""
    from kbatch.api.errors import BadRequest
    from kbatch.api.selectors import parse_label_selector
    from kbatch.cli.durations import duration_option
    from kbatch.cli.session import session

    dry = _dry(dry_run)
    if pod_selector:
        try:
            parse_label_selector(pod_selector)
        except BadRequest:
            raise UserError("--pod-selector=<pod_selector> must be a valid label selector") from None
    flags = decide.DrainFlags(force=force, ignore_daemonsets=ignore_daemonsets,
                              delete_emptydir_data=delete_emptydir_data,
                              skip_wait_for_delete_timeout=skip_wait)
    seconds = duration_option(timeout, "--timeout")
    with session(global_options(ctx)) as backend:
        targets = _nodes(backend, nodes or [], selector, "drain")
        _cordon(backend, targets, True, dry)
        run = DrainRun(backend, flags, dry, grace_period, seconds, disable_eviction, pod_selector or None)
        _drain_nodes(run, [n["metadata"]["name"] for n in targets])


def _drain_nodes(run: DrainRun, names: list[str]) -> None:
    """``RunDrain``: each node in turn; a node that fails is reported and the next one drained, and
    the command fails at the end with every failed node's error."""
    failed: list[tuple[str, decide.NodeError]] = []
    for name in names:
        error = _drain_node(run, name)
        if error is None:
            typer.echo(f"node/{name} drained{_SUFFIX[run.dry_run]}")
            continue
        typer.echo(f'error: unable to drain node "{name}" due to error: {decide.aggregate(error.messages)}, '
                   "continuing command...", err=True)
        failed.append((name, error))
    if failed:
        typer.echo("There are pending nodes to be drained:\n"
                   + "".join(f" {name}\n" for name, _ in failed), err=True, nl=False)
        typer.echo(decide.final_error([e for _, e in failed]), err=True, nl=False)
        raise typer.Exit(1)


def _pods(run: DrainRun, node: str) -> list[tuple[Obj, decide.Verdict]]:
    """``GetPodsForDeletion``: the node's pods in every namespace, through the filters."""
    backend = run.backend
    info = backend.registry.for_name("pods").info
    pods = backend.list(info, None, label_selector=run.pod_selector,
                        field_selector=f"spec.nodeName={node}").get("items") or []
    return decide.filter_pods(pods, run.flags, lambda ns, name: _daemonset(backend, ns, name), backend.now())


def _daemonset(backend: Any, namespace: str, name: str) -> tuple[str, bool] | None:
    """The DaemonSet filter's GET: kbatch serves no DaemonSets, so the answer is the API server's
    404 for an unserved resource, a NotFound (apierrors.IsNotFound) that client-go words as
    ``the server could not find the requested resource (get daemonsets.apps NAME)``."""
    from kbatch.api.errors import NotFound, StatusError

    try:
        info = backend.registry.for_name("daemonsets.apps").info
    except StatusError:
        return (f"the server could not find the requested resource (get daemonsets.apps {name})", True)
    try:
        backend.get(info, namespace, name)
    except StatusError as err:
        return (err.message, isinstance(err, NotFound))
    return None


def _drain_node(run: DrainRun, node: str) -> decide.NodeError | None:
    """``deleteOrEvictPodsSimple``: refuse the node when a filter says so; otherwise warn, then evict
    (or delete) and wait; after a failure, list the node's pods still to go."""
    items = _pods(run, node)
    refusals = decide.errors(items)
    if refusals:
        return decide.NodeError(refusals)
    warning = decide.warnings(items)
    if warning:
        typer.echo(f"Warning: {warning}", err=True)  # printers.WarningPrinter
    pods = decide.evictable(items)
    if run.dry_run == "client":
        for pod in pods:
            typer.echo(f"evicting pod {ref(pod)} (dry run)")
        return None
    error = delete_pods(run, pods) if run.disable_eviction else evict_pods(run, pods)
    if error is not None:
        pending = decide.evictable(_pods(run, node))
        if pending:
            typer.echo(f'There are pending pods in node "{node}" when an error occurred: '
                       f"{decide.aggregate(error.messages)}", err=True)
            typer.echo("".join(f"pod/{p['metadata']['name']}\n" for p in pending), err=True, nl=False)
    return error


def register(app: typer.Typer) -> None:
    app.command()(cordon)
    app.command()(uncordon)
    app.command()(drain)
