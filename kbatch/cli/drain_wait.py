"""``kbatch drain``'s evictions and waits (k8s.io/kubectl ``pkg/drain/drain.go`` ``evictPods``,
``deletePods``, ``waitForDelete``), in virtual time.

Upstream runs one goroutine per pod, each sleeping 5 s between tries while a PodDisruptionBudget
answers 429, and polls every second until the pod is gone, all under one ``--timeout`` per node. Here the
pods take turns in rounds: every pod still refused is tried again after one 5 s step of the clock
(the virtual clock moves, as ``kbatch advance`` moves it; on a real clock the machine's time passes),
the pods already evicted are checked after each step, and the rest are then waited for in order as
``delete --wait`` waits (the clock jumps to the instant each is gone). Lines print in that order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from kbatch.cli import drain as decide
from kbatch.cli.dry_run import DRY_RUN_SUFFIX

__all__ = ["RETRY_DELAY", "WEEK", "DrainRun", "delete_pods", "evict_pods", "ref"]

Obj = dict[str, Any]
RETRY_DELAY = 5.0  # NewDrainCmdOptions' EvictErrorRetryDelay
WEEK = 168 * 3600.0  # --timeout 0: kubectl waits forever; virtual time stops after a week, as delete --wait


@dataclass
class DrainRun:
    """One drain's settings, and the time its waits have used so far."""

    backend: Any
    flags: decide.DrainFlags
    dry_run: str  # none | client | server
    grace_period: int  # negative: the pod's own
    timeout: float  # seconds; 0: none
    disable_eviction: bool
    pod_selector: str | None
    elapsed: float = 0.0  # of the current node: --timeout holds for each node's evictions and waits

    @property
    def limit(self) -> float:
        return self.timeout or WEEK

    def left(self) -> float:
        return max(self.limit - self.elapsed, 0.0)


def ref(pod: Obj) -> str:
    return f"{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}"


def _delete_options(run: DrainRun) -> Obj:
    """``makeDeleteOptions``: the grace period when not negative, ``dryRun: [All]`` on a server dry run."""
    opts: Obj = {}
    if run.grace_period >= 0:
        opts["gracePeriodSeconds"] = run.grace_period
    if run.dry_run == "server":
        opts["dryRun"] = ["All"]
    return opts


def _pause(run: DrainRun, seconds: float) -> None:
    """Let ``seconds`` pass: the virtual clock advances (the cluster runs meanwhile); on a real clock
    the machine's time passes (read only through runtime/clock.py)."""
    backend = run.backend
    if backend.clock().get("virtual", True):
        out = backend.advance(seconds)
        run.elapsed += float(out.get("advancedSeconds", seconds))
        return
    import threading

    from kbatch.runtime.clock import RealClock

    clock = RealClock()
    start = clock.now()
    threading.Event().wait(seconds)  # never set: a bounded pause
    run.elapsed += clock.now() - start


def _current(run: DrainRun, pod: Obj) -> Obj | None:
    """The pod as it is now; None once gone (NotFound, or a pod of that name with another uid, as
    ``waitForDelete`` counts it)."""
    from kbatch.api.errors import NotFound

    backend = run.backend
    try:
        now = backend.get(backend.registry.for_name("pods").info, pod["metadata"].get("namespace"),
                          pod["metadata"]["name"])
    except NotFound:
        return None
    return None if now["metadata"].get("uid") != pod["metadata"].get("uid") else dict(now)


def _gone(run: DrainRun, pod: Obj) -> bool:
    return _current(run, pod) is None


def _skip_after(run: DrainRun, current: Obj) -> float | None:
    """Seconds from now until ``--skip-wait-for-delete-timeout`` stops the wait for this pod
    (``shouldSkipPod``: whole seconds since its deletion more than N), or None."""
    from kbatch.api.base import parse_time

    limit = run.flags.skip_wait_for_delete_timeout
    stamp = current["metadata"].get("deletionTimestamp")
    if limit <= 0 or not stamp:
        return None
    since = (run.backend.now() - parse_time(stamp)).total_seconds()
    return max(limit + 1 - since, 0.0)


def _wait_gone(run: DrainRun, pod: Obj) -> str:
    """Until the pod is gone (``gone``), within what is left of ``--timeout`` (``timeout``):
    ``kbatch.cli.commands.timecmd``'s ``wait_until``, the clock jumping to the instant it goes. With
    ``--skip-wait-for-delete-timeout N`` a pod deleted more than N seconds ago is no longer waited
    for (``skipped``, with kubectl's line)."""
    from kbatch.cli.commands.timecmd import wait_until

    current = _current(run, pod)
    if current is None:
        return "gone"
    skip, budget = _skip_after(run, current), run.left()
    spec: dict[str, object] = {"kind": "pods", "name": pod["metadata"]["name"],
                               "namespace": pod["metadata"].get("namespace"), "delete": True}
    out = wait_until(run.backend, budget if skip is None else min(skip, budget), spec)
    run.elapsed += float(out.get("advancedSeconds") or 0.0)
    if out.get("met"):
        return "gone"
    if skip is not None and skip <= budget:
        typer.echo(f'pod "{pod["metadata"]["name"]}" has DeletionTimestamp older than '
                   f"{run.flags.skip_wait_for_delete_timeout} seconds, skipping")
        return "skipped"
    return "timeout"


def _try_evict(run: DrainRun, pod: Obj, failures: list[str]) -> str:
    """One try of ``evictPods``' loop: ``done`` (evicted, or already gone), ``retry`` (429) or
    ``failed``; kubectl's lines."""
    from kbatch.api.cron import format_go_duration
    from kbatch.api.errors import NotFound, StatusError, TooManyRequests

    meta = pod["metadata"]
    name, namespace = meta["name"], meta.get("namespace") or "default"
    typer.echo(f"evicting pod {namespace}/{name}{DRY_RUN_SUFFIX[run.dry_run]}")  # none or server here
    if run.elapsed >= run.limit:
        failures.append(f'error when evicting pods/"{name}" -n "{namespace}": global timeout reached: '
                        f"{format_go_duration(run.limit)}")
        return "failed"
    body = {"metadata": {"name": name, "namespace": namespace}, "deleteOptions": _delete_options(run)}
    try:
        run.backend.evict(namespace, name, body)
    except NotFound:
        return "gone"
    except TooManyRequests as err:
        typer.echo(f'error when evicting pods/"{name}" -n "{namespace}" (will retry after '
                   f"{format_go_duration(RETRY_DELAY)}): {err.message}", err=True)
        return "retry"
    except StatusError as err:
        failures.append(f'error when evicting pods/"{name}" -n "{namespace}": {err.message}')
        return "failed"
    return "done"


def evict_pods(run: DrainRun, pods: list[Obj]) -> decide.NodeError | None:
    """``evictPods``: evict each pod (``evicting pod NS/NAME``), a 429 retried every 5 s until
    ``--timeout``; then each evicted pod is waited for until gone (``pod/NAME evicted``)."""
    run.elapsed = 0.0  # the timeout is each node's (evictPods makes its context per call)
    failures: list[str] = []
    pending, evicted = list(pods), []
    while pending:
        outcomes = [(pod, _try_evict(run, pod, failures)) for pod in pending]
        evicted += [pod for pod, outcome in outcomes if outcome == "done"]
        pending = [pod for pod, outcome in outcomes if outcome == "retry"]
        if pending:  # a server dry run's evictions meet the budgets too: retried as kubectl's
            _pause(run, RETRY_DELAY)
            evicted = [pod for pod in evicted if not _reported_gone(run, pod, "evicted")]
    if run.dry_run != "server":
        for pod in evicted:
            outcome = _wait_gone(run, pod)
            if outcome == "gone":
                typer.echo(f"pod/{pod['metadata']['name']} evicted")
            elif outcome == "timeout":
                meta = pod["metadata"]
                failures.append(f'error when waiting for pod "{meta["name"]}" in namespace '
                                f'"{meta.get("namespace")}" to terminate: context deadline exceeded')
    return decide.NodeError(failures) if failures else None


def _reported_gone(run: DrainRun, pod: Obj, word: str) -> bool:
    if _gone(run, pod):
        typer.echo(f"pod/{pod['metadata']['name']} {word}")
        return True
    return False


def delete_pods(run: DrainRun, pods: list[Obj]) -> decide.NodeError | None:
    """``deletePods`` (``--disable-eviction``): delete each pod (a missing one is fine; another error
    stops), then wait for them all (``pod/NAME deleted``) within ``--timeout``."""
    from kbatch.api.errors import NotFound, StatusError
    from kbatch.cli.errors import describe_error
    from kbatch.server.backend import DeleteOptions

    run.elapsed = 0.0  # each node's, as deletePods' timeout
    info = run.backend.registry.for_name("pods").info
    opts = DeleteOptions(grace_period_seconds=run.grace_period if run.grace_period >= 0 else None,
                         dry_run=run.dry_run == "server")
    for pod in pods:
        try:
            run.backend.delete(info, pod["metadata"].get("namespace"), pod["metadata"]["name"], opts)
        except NotFound:
            continue
        except StatusError as err:  # the node's error: its message, and CheckErr's line at the end
            return decide.NodeError([err.message], aggregate=False, final=describe_error(err))
    if run.dry_run == "server":
        return None
    for pod in pods:
        outcome = _wait_gone(run, pod)
        if outcome == "timeout":
            return decide.NodeError(["context deadline exceeded"], aggregate=False)
        if outcome == "gone":
            typer.echo(f"pod/{pod['metadata']['name']} deleted")
    return None
