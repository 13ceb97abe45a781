"""What a container does when it runs: fault injection, then stage rules, then its command.

The order is the issue's: an injected fault ends a container whatever it was doing (applied by
the engine, :func:`kbatch.controllers.kubelet.engine.apply_fault`); otherwise the first matching
KWOK-style stage rule (app containers only) decides the run's duration and exit code; otherwise
the command is read by the vocabulary of :mod:`kbatch.sim.command`.

The container environment used for ``$VAR`` substitution holds each ``env`` entry's ``value`` and
the ``fieldRef`` sources the kubelet resolves itself (upstream ``pkg/kubelet/kubelet_pods.go``
``podFieldSelectorRuntimeValue``): ``metadata.name``, ``metadata.namespace``, ``metadata.uid``,
``metadata.labels['k']``, ``metadata.annotations['k']``, ``spec.nodeName``,
``spec.serviceAccountName``, and the addresses ``status.hostIP``, ``status.hostIPs``,
``status.podIP``, ``status.podIPs`` (the ``IPs`` forms joined by commas; from the kubelet's own view
of the pod, :class:`~.podips.Addresses`, since the container starts before the status that shows
them is written; without one, read off the pod's status; an address the pod lacks is the empty
string). A ``value`` is ``$(VAR)``-expanded against the variables defined before
it (``makeEnvironmentVariables`` with ``expansion.MappingFuncFor``: undefined references stay as
written, ``$$`` is a dollar); ``envFrom`` and ``configMapKeyRef``/``secretKeyRef`` entries are read
from the objects when the container is created (:mod:`.references`, through the controller's
lookup). A container whose references are missing is not created: the planner answers a
:class:`~kbatch.controllers.kubelet.engine.ConfigError` and the engine tries again later.
"""

from __future__ import annotations

import functools
import random
import re
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kbatch.controllers.kubelet.engine import APP, ConfigError, Planner, Proc, Stopper
from kbatch.controllers.kubelet.hostname import pod_hostname
from kbatch.controllers.kubelet.podips import Addresses
from kbatch.controllers.kubelet.probes import LIVENESS, READINESS, STARTUP, ProbeSpec
from kbatch.controllers.kubelet.references import Lookup, container_references, resolve_env
from kbatch.controllers.kubelet.service_env import ServiceSource, pod_service_env
from kbatch.controllers.kubelet.volume_files import TokenSource, after_run, files_factory
from kbatch.sim.command import (
    DEFAULT_DURATION,
    ContainerRun,
    FilesFactory,
    expand_k8s_refs,
    interpret,
    stopped_run,
)
from kbatch.sim.images import image_argv, image_env, owned_by_job, stop_rule, unknown_duration
from kbatch.sim.signals import DEFAULT_STOP_SIGNAL, StopSignal, signal_name
from kbatch.sim.stages import StageRule, pick_stage

__all__ = [
    "Vars",
    "command_run",
    "container_command",
    "container_env",
    "env_parts",
    "env_reads",
    "field_ref_value",
    "make_planner",
    "make_stopper",
    "probe_specs",
    "touches_files",
]

# the file utilities, the filters that take file operands, redirections, file tests
_FILE_WORDS = re.compile(r"[<>]|\b(?:cat|ls|cd|touch|mkdir|rm|grep|wc|head|tail|sort|cut|rev)\b"
                         r"|(?:^|\s)-[aedfsrwx](?:\s|$)")
Vars = Mapping[str, str]  # a layer of variables (the service ones, an image's)
_MAP_REF = re.compile(r"^metadata\.(labels|annotations)\[['\"](.+)['\"]\]$")


def _status_addresses(pod: Any) -> Addresses:
    """The addresses the API shows for ``pod`` (a reader that is not the kubelet: ``kubectl exec``)."""
    status = pod.status
    if status is None:
        return Addresses()
    host = tuple(h.ip for h in status.host_ips or ()) or ((status.host_ip,) if status.host_ip else ())
    ips = tuple(p.ip for p in status.pod_ips or ()) or ((status.pod_ip,) if status.pod_ip else ())
    return Addresses(host, ips)


_ADDRESS_PATHS = {"status.hostIP": ("host", False), "status.hostIPs": ("host", True),
                  "status.podIP": ("pod", False), "status.podIPs": ("pod", True)}


def field_ref_value(pod: Any, path: str, addresses: Addresses | None = None) -> str | None:
    """The value of a downward-API ``fieldRef`` path (None when kbatch does not resolve it)."""
    meta, spec = pod.metadata, pod.spec
    address = _ADDRESS_PATHS.get(path)
    if address is not None:
        ips: tuple[str, ...] = getattr(addresses or _status_addresses(pod), address[0])
        return ",".join(ips) if address[1] else (ips[0] if ips else "")
    simple = {
        "metadata.name": meta.name, "metadata.namespace": meta.namespace, "metadata.uid": meta.uid,
        "spec.nodeName": spec.node_name, "spec.serviceAccountName": spec.service_account_name,
    }
    if path in simple:
        return simple[path]
    match = _MAP_REF.match(path)
    if match:
        source = (meta.labels if match.group(1) == "labels" else meta.annotations) or {}
        return source.get(match.group(2))
    return None


def container_env(pod: Any, container: Any, lookup: Lookup | None = None,
                  addresses: Addresses | None = None, services: Vars | None = None) -> dict[str, str]:
    """Everything the container's process sees (:func:`env_parts` joined: its own variables win)."""
    layers, own = env_parts(pod, container, lookup, addresses, services)
    return {**layers, **own}


def env_parts(pod: Any, container: Any, lookup: Lookup | None = None, addresses: Addresses | None = None,
              services: Mapping[str, str] | None = None, hostname: bool = True,
              reads: frozenset[str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """(what the runtime and the kubelet put under the container's variables, the container's own).

    The layers, later ones winning (containerd's CRI ``WithEnv`` order, then the kubelet's
    ``makeEnvironmentVariables``): the runtime's ``HOSTNAME`` (:mod:`.hostname`; computed only with
    ``hostname``), the image's ``ENV`` (:func:`kbatch.sim.images.image_env`), the service variables
    (:mod:`.service_env`, ``services``); a ``$(VAR)`` in an ``env`` value sees the container's
    earlier variables, then the service ones. ``reads`` (None: any) keeps only those layer variables
    the command may read, so that pods of one template share one run (:func:`command_run`)."""
    services = services or {}
    own: dict[str, str] = {}
    seen: Mapping[str, str] = ChainMap(own, dict(services)) if services else own
    for var in container.env or ():
        if var.value is not None or var.value_from is None:  # no value at all: defined, empty
            own[var.name] = expand_k8s_refs(var.value, seen) if var.value else ""
        elif var.value_from is not None and var.value_from.field_ref is not None:
            value = field_ref_value(pod, var.value_from.field_ref.field_path, addresses)
            if value is not None:
                own[var.name] = value
    if lookup is not None:
        own = resolve_env(container, pod.metadata.namespace or "", lookup, own, services)[0]
    layers = {"HOSTNAME": pod_hostname(pod)} if hostname else {}
    layers.update(image_env(container.image or ""))
    layers.update(services)
    if reads is not None:
        layers = {k: v for k, v in layers.items() if k in reads}
    return layers, own


Command = tuple[tuple[str, ...], tuple[tuple[str, str], ...]]  # argv, sorted environment


def container_command(pod: Any, container: Any, lookup: Lookup | None = None,
                      addresses: Addresses | None = None, services: Vars | None = None) -> Command:
    """What ``container`` runs (``command + args`` joined with its image's ENTRYPOINT and CMD,
    :func:`kbatch.sim.images.image_argv`) and its environment, as plain hashable values: of the
    layered variables only those the command may read (:func:`env_reads`; the same run for every pod
    of a template, the shared cache's key)."""
    argv = image_argv(container.image or "", tuple(container.command or ()), tuple(container.args or ()))
    reads = env_reads(argv)
    layers, own = env_parts(pod, container, lookup, addresses, services,
                            reads is None or "HOSTNAME" in reads, reads)
    return argv, tuple(sorted({**layers, **own}.items()))


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_READS_ALL = re.compile(r"\b(?:env|printenv)\b")


@functools.lru_cache(maxsize=4096)
def env_reads(argv: tuple[str, ...]) -> frozenset[str] | None:
    """The variable names the command may read (None: any of them: it lists its environment, or it
    may read a script from a file)."""
    if touches_files(argv) or any(_READS_ALL.search(word) for word in argv):
        return None
    return frozenset(name for word in argv for name in _NAME.findall(word))


@functools.lru_cache(maxsize=1024)
def command_run(command: Command, default_duration: float) -> ContainerRun:
    """What one run of a container does, read off its command (pure: equal inputs share a result)."""
    return interpret(command[0], dict(command[1]), default_duration)


@functools.lru_cache(maxsize=4096)
def touches_files(argv: tuple[str, ...]) -> bool:
    """May this command read or write a file (a file utility, a redirection, a file test)? A
    container whose command cannot is run from the shared cache and never builds a file view."""
    return any(_FILE_WORDS.search(word) for word in argv)


def make_planner(
    pod: Any,
    stages: Sequence[StageRule],
    rng_for: Callable[[str], random.Random],
    default_duration: float = DEFAULT_DURATION,
    lookup: Lookup | None = None,
    with_refs: bool = False,
    addresses: Addresses | None = None,
    tokens: TokenSource | None = None,
    services: ServiceSource | None = None,
) -> Planner:
    """The planner of one pod: ``plan(proc, restart_count) -> ContainerRun | ConfigError``.

    It keeps no reference to the ``pod`` model (a controller may keep a planner as long as the pod
    runs, and the model is the informer cache's): commands and environments are read now, except
    those of containers that reference ConfigMaps or Secrets (``with_refs``), which are read from
    ``lookup`` when each run starts (the objects may appear or change meanwhile). A container whose
    command may touch files (:func:`touches_files`) keeps the pod: its files are read from the
    volumes when a run first touches one (:mod:`.volume_files`). A command nothing models runs
    ``default_duration`` in a pod a Job owns and until it is killed in any other (KWOK's rule,
    :func:`kbatch.sim.images.unknown_duration`). ``services`` lists a namespace's Services: their
    variables are those of when the planner is built (upstream reads its informer as the container
    starts, :mod:`.service_env`)."""
    uid = pod.metadata.uid
    default_duration = unknown_duration(
        owned_by_job(ref.kind for ref in pod.metadata.owner_references or ()), default_duration)
    containers = [*(pod.spec.init_containers or ()), *pod.spec.containers,
                  *(pod.spec.ephemeral_containers or ())]
    namespace = pod.metadata.namespace or ""
    svc = pod_service_env(namespace, pod.spec.enable_service_links, services) if services is not None else {}
    commands = {c.name: container_command(pod, c, None, addresses, svc) for c in containers}
    referring = {c.name: c for c in containers
                 if with_refs and lookup is not None and container_references(c)}
    fields = {name: container_env(pod, c, None, addresses, svc) for name, c in referring.items()}
    def env_of(c: Any) -> dict[str, str]:
        return container_env(pod, c, lookup, addresses, svc)

    filing = {c.name: functools.partial(_files_after, pod, c, lookup, env_of, tokens)
              for c in containers if touches_files(commands[c.name][0])}
    stage: StageRule | None = None
    pod_dict: dict[str, Any] = {}
    if stages:
        pod_dict = pod.to_dict()
        stage = pick_stage(stages, pod_dict, rng_for(f"{uid}/stage"))
    hooked = {c.name: c for c in containers if c.lifecycle is not None and c.lifecycle.post_start is not None}
    if hooked:
        plan = _plan_of(commands, referring, fields, filing, stage, pod_dict, uid, (namespace, svc), lookup,
                        rng_for, default_duration)
        return _with_post_start(pod, hooked, plan, svc,
                                make_stopper(pod, default_duration, lookup, addresses, bool(stages),
                                             tokens=tokens, services=services))
    return _plan_of(commands, referring, fields, filing, stage, pod_dict, uid, (namespace, svc), lookup,
                    rng_for, default_duration)


def _files_after(pod: Any, container: Any, lookup: Lookup | None, env_of: Callable[[Any], dict[str, str]],
                 tokens: TokenSource | None, restart: int) -> FilesFactory:
    """The files of the container's run after ``restart`` earlier runs
    (:func:`.volume_files.files_factory`)."""
    return files_factory(pod, container, lookup, env_of, tokens, earlier_runs=restart)


def _with_post_start(pod: Any, hooked: dict[str, Any], plan: Planner, services: Vars,
                     stop: Stopper) -> Planner:
    """``plan`` with the containers' postStart hooks (:func:`.hooks.post_started`)."""
    from kbatch.controllers.kubelet.hooks import post_started  # hooks reads this module's helpers

    def with_hook(proc: Proc, restart: int) -> ContainerRun | ConfigError:
        run = plan(proc, restart)
        container = hooked.get(proc.name)
        if container is None or isinstance(run, ConfigError):
            return run
        return post_started(pod, container, run, proc, stop, services)

    return with_hook


def _plan_of(commands: dict[str, Command], referring: dict[str, Any], fields: dict[str, dict[str, str]],
             filing: dict[str, Any], stage: StageRule | None, pod_dict: dict[str, Any], uid: str,
             where: tuple[str, Mapping[str, str]], lookup: Lookup | None,
             rng_for: Callable[[str], random.Random], default_duration: float) -> Planner:
    """The planner over what :func:`make_planner` read from the pod (``where``: its namespace and
    service variables). A container whose environment reads ConfigMaps or Secrets gets them now, over
    the layers of ``fields`` (those its command may read, as :func:`container_command`)."""
    namespace, services = where

    def plan(proc: Proc, restart: int) -> ContainerRun | ConfigError:
        container = referring.get(proc.name)
        if container is not None and lookup is not None:
            own, error = resolve_env(container, namespace, lookup, fields[proc.name], services)
            if error is not None:
                return ConfigError(error)
            argv, reads = commands[proc.name][0], env_reads(commands[proc.name][0])
            layers = {k: v for k, v in fields[proc.name].items() if reads is None or k in reads}
            commands[proc.name] = (argv, tuple(sorted({**layers, **own}.items())))
        if stage is not None and proc.kind == APP:
            return stage.run(pod_dict, rng_for(f"{uid}/{proc.name}/{restart}"))
        command = commands.get(proc.name)
        if command is None:
            return ContainerRun(default_duration, 0)
        files = filing.get(proc.name)
        if files is not None:
            return interpret(command[0], dict(command[1]), default_duration, files(restart))
        return command_run(command, default_duration)

    return plan


def make_stopper(pod: Any, default_duration: float = DEFAULT_DURATION, lookup: Lookup | None = None,
                 addresses: Addresses | None = None, staged: bool = False,
                 stop_signals: bool = False, tokens: TokenSource | None = None,
                 services: ServiceSource | None = None) -> Stopper:
    """What each container of ``pod`` does with its stop signal (:mod:`kbatch.sim.signals`): the
    image's STOPSIGNAL (:func:`kbatch.sim.images.stop_rule`), or the container's
    ``lifecycle.stopSignal`` when the ContainerStopSignals gate is on (``stop_signals``; KEP-4960);
    sent to PID 1 unless the pod shares its process namespace. A table program exits on the signals
    it handles; a command is run again with the signal (a shell's ``trap``). An app container a
    stage rule ran (``staged``) drops it, as before."""
    owned = owned_by_job(ref.kind for ref in pod.metadata.owner_references or ())
    default_duration = unknown_duration(owned, default_duration)
    containers = {c.name: c for c in [*(pod.spec.init_containers or ()), *pod.spec.containers,
                                      *(pod.spec.ephemeral_containers or ())]}
    pid1 = not pod.spec.share_process_namespace
    svc = pod_service_env(pod.metadata.namespace or "", pod.spec.enable_service_links, services) \
        if services is not None else {}

    def stop(proc: Proc, at: float) -> ContainerRun | None:
        container = containers.get(proc.name)
        if container is None or (staged and proc.kind == APP):
            return None
        command, args = tuple(container.command or ()), tuple(container.args or ())
        signal, exits = stop_rule(container.image or "", command, args)
        own = container.lifecycle.stop_signal if stop_signals and container.lifecycle else None
        name = signal_name(own or signal) or DEFAULT_STOP_SIGNAL
        argv, env = container_command(pod, container, lookup, addresses, svc)
        files = files_factory(pod, container, lookup, lambda c: container_env(pod, c, lookup, addresses, svc),
                              tokens, proc.restart_count) if touches_files(argv) else None
        return stopped_run(argv, dict(env), StopSignal(name, at, pid1), exits, default_duration, files)

    return stop


def _probe_passes(probe: Any, pod: Any, container: Any, timeout: float) -> bool:
    """An ``exec`` probe passes when its command exits 0 within ``timeoutSeconds`` (read by the
    command vocabulary; an unknown command answers at once with 0); other handlers pass. A probe
    that touches files sees the container's: its volumes and what its command has written by the
    time it ends or settles into a loop (:func:`.volume_files.after_run`; the answer is one for the
    whole run, as every probe answer here)."""
    if probe.exec is None:
        return True
    argv = tuple(probe.exec.command or ())
    env = container_env(pod, container)
    files = after_run(pod, container, None, lambda c: container_env(pod, c)) if touches_files(argv) else None
    run = interpret(argv, env, 0.0, files)
    return run.exit_code == 0 and run.duration <= timeout


def probe_specs(pod: Any, container: Any) -> tuple[ProbeSpec, ...]:
    """The container's probes with upstream defaults (``SetDefaults_Probe``: period 10 s, timeout
    1 s, thresholds 1 and 3); a liveness or startup probe's kill grace is its own
    ``terminationGracePeriodSeconds`` (KEP-2238), else the pod's (default 30 s)."""
    specs: list[ProbeSpec] = []
    pod_grace = pod.spec.termination_grace_period_seconds
    for kind, probe in ((STARTUP, container.startup_probe), (READINESS, container.readiness_probe),
                        (LIVENESS, container.liveness_probe)):
        if probe is None:
            continue
        timeout = float(probe.timeout_seconds or 1)
        grace = probe.termination_grace_period_seconds
        if grace is None:
            grace = pod_grace if pod_grace is not None else 30
        specs.append(ProbeSpec(kind, float(probe.initial_delay_seconds or 0),
                               float(probe.period_seconds or 10), probe.success_threshold or 1,
                               probe.failure_threshold or 3, float(grace),
                               _probe_passes(probe, pod, container, timeout)))
    return tuple(specs)
