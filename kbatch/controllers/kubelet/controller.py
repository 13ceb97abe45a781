"""The ``kubelet`` controller: one simulated kubelet for every node (KWOK's single controller).

Per bound pod (requests are pods; node changes enqueue the node's pods):

1. a pod whose node is missing, not ``Ready`` or whose kubelet is stopped is left alone (a dead
   kubelet reports nothing; node lifecycle and pod GC deal with it);
2. the pod's :class:`PodRun` is created when the kubelet first sees it bound (``startTime``); a pod
   whose configMap/secret/projected volumes read a missing object or key (not ``optional``) does not
   start: a ``FailedMount`` Warning per volume (``MountVolume.SetUp failed for volume "v" : configmap
   "x" not found``) and another try after the volume manager's exponential back-off (0.5 s, doubling,
   at most 2 min 2 s: ``pkg/volume/util/nestedpendingoperations`` with
   ``pkg/util/goroutinemap/exponentialbackoff``), until the objects exist (:mod:`.references`); so
   does a pod whose PersistentVolumeClaim is missing, being deleted or not bound (:mod:`.claims`);
   a pod whose RuntimeClass is missing, or whose handler its node does not report, gets no run: a
   ``FailedCreatePodSandBox`` Warning and another try after 10 s (:mod:`.sandbox`);
3. ``deletionTimestamp`` becomes the kill deadline; an injected fault (annotation written by
   :mod:`kbatch.sim.faults`) ends its container now;
4. ephemeral containers the pod gained (``kubectl debug``, a new ``metadata.generation``) are started
   (:func:`engine.add_ephemeral`); :func:`engine.advance` applies what is due; when that changed
   what the API shows, or the pod's ``metadata.generation`` is not the ``status.observedGeneration``
   the API shows (a spec update or a graceful deletion bumped it: KEP-5067, the kubelet syncs the
   new pod and its status manager sends the changed ``observedGeneration``), one status patch
   carries the difference
   (:func:`status.status_patch`, as upstream's status manager; other writers' conditions, e.g.
   ``DisruptionTarget``, kept);
5. events the probes queued (``Unhealthy``, ``Killing``) are recorded on the pod;
6. a terminal pod that is being deleted is deleted with grace period 0 (the kubelet's final
   step of graceful deletion); otherwise the request comes back at the next transition.

A pod whose status another writer made terminal is never moved back. Options
(``options={"kubelet": {...}}``): ``start_delay`` (seconds, default 0: bound pods start at once
and the ``ContainerCreating`` instant is not written), ``default_duration`` (seconds an unknown
command runs in a pod a Job owns, default 1; in any other pod it runs until killed, KWOK's rule:
:mod:`kbatch.sim.images`), ``stages`` (YAML text or a list of :class:`StageRule`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from kbatch.api.base import format_time, parse_time
from kbatch.api.container_restart import may_restart_all, own_restart
from kbatch.api.errors import NotFound
from kbatch.api.gates import gate_on
from kbatch.api.node_v1 import RuntimeClass
from kbatch.controllers.dra.kubelet import unprepared_reason
from kbatch.controllers.kubelet.behaviour import make_planner, make_stopper, probe_specs
from kbatch.controllers.kubelet.claims import CLAIM, claim_errors, has_claims
from kbatch.controllers.kubelet.engine import (
    APP,
    EPHEMERAL,
    INIT,
    SIDECAR,
    Fault,
    PodRun,
    PreStop,
    Proc,
    Stopper,
    add_ephemeral,
    advance,
    apply_fault,
    hold_start,
    next_wake,
    request_deletion,
    set_probe_faults,
    take_events,
)
from kbatch.controllers.kubelet.heartbeat import kubelet_stopped
from kbatch.controllers.kubelet.hooks import make_prestop
from kbatch.controllers.kubelet.identity import NodeClients
from kbatch.controllers.kubelet.logs import LogStore
from kbatch.controllers.kubelet.podips import Addresses, NodeNet, ip_patch, node_cidr, node_net
from kbatch.controllers.kubelet.probes import ProbeFault
from kbatch.controllers.kubelet.references import (
    CONFIG_MAP,
    SECRET,
    container_references,
    mount_errors,
    pod_references,
)
from kbatch.controllers.kubelet.sandbox import SANDBOX_RETRY, sandbox_error
from kbatch.controllers.kubelet.service_env import pod_service_env
from kbatch.controllers.kubelet.status import (
    Seen,
    container_fingerprint,
    ready_condition,
    status_patch,
    wanted_ready,
)
from kbatch.controllers.kubelet.tokens import TokenManager
from kbatch.runtime.context import ControllerContext
from kbatch.runtime.reconcile import Result
from kbatch.runtime.rng import derive
from kbatch.sim.clock_text import DATE_MARK, stamp
from kbatch.sim.command import DEFAULT_DURATION
from kbatch.sim.faults import FAULT_ANNOTATION, PROBE_FAULT_ANNOTATION
from kbatch.sim.signals import CONTAINER_STOP_SIGNALS
from kbatch.sim.stages import StageRule, load_stages

__all__ = ["MOUNT_RETRY_FIRST", "MOUNT_RETRY_MAX", "PREPARE_RETRY", "Kubelet", "new_pod_run"]

PREPARE_RETRY = 1.0  # seconds before a pod whose DRA claims are not ready is checked again
MOUNT_RETRY_FIRST = 0.5  # exponentialbackoff.initialDurationBeforeRetry
MOUNT_RETRY_MAX = 122.0  # exponentialbackoff.maxDurationBeforeRetry (2m2s)

_TERMINAL = ("Succeeded", "Failed")


def _has_probe(c: Any) -> bool:
    return c.startup_probe is not None or c.readiness_probe is not None or c.liveness_probe is not None


def new_pod_run(pod: Any, bound_at: float, start_delay: float) -> PodRun:
    spec = pod.spec
    inits = [Proc(c.name, SIDECAR if c.restart_policy == "Always" else INIT, c.image or "",
                  own_restart=own_restart(c))
             for c in spec.init_containers] if spec.init_containers else ()  # () is shared: no list per pod
    waiting = "PodInitializing" if inits else "ContainerCreating"
    apps = [Proc(c.name, APP, c.image or "", reason=waiting, own_restart=own_restart(c))
            for c in spec.containers]
    for proc, c in zip([*inits, *apps], [*(spec.init_containers or ()), *spec.containers], strict=True):
        if _has_probe(c):
            proc.probe_specs = probe_specs(pod, c)
    run = PodRun(pod.metadata.namespace or "", pod.metadata.name or "", pod.metadata.uid or "",
                 spec.restart_policy or "Always", bound_at, start_delay, inits, apps)
    if spec.termination_grace_period_seconds is not None:
        run.grace = float(spec.termination_grace_period_seconds)
    if spec.readiness_gates:
        run.gates = tuple(g.condition_type for g in spec.readiness_gates)
    run.restart_all = may_restart_all([*(spec.init_containers or ()), *spec.containers])
    return run


class Kubelet:
    def __init__(self, ctx: ControllerContext) -> None:
        from kbatch.api.core_v1 import ConfigMap, Node, PersistentVolumeClaim, Pod, Secret, Service

        self.ctx, self.Pod, self.Node, self._service = ctx, Pod, Node, Service
        self.clients = NodeClients(ctx)  # a pod's status and final delete are its node's kubelet's writes
        self.tokens = TokenManager(self.clients, ctx.clock)  # its pods' service-account tokens (tokens.py)
        self._sources: dict[str, Any] = {CONFIG_MAP: ConfigMap, SECRET: Secret, CLAIM: PersistentVolumeClaim}
        options = ctx.options
        self.start_delay = float(options.get("start_delay", 0.0))
        self.default_duration = float(options.get("default_duration", DEFAULT_DURATION))
        stages = options.get("stages", ())
        self.stages: list[StageRule] = load_stages(stages) if isinstance(stages, str) else list(stages)
        self.logs = LogStore()
        self.runs: dict[tuple[str, str], PodRun] = {}  # by (namespace, name); run.uid names the pod
        self._faults_seen: dict[str, int] = {}
        self._planners: dict[str, Any] = {}
        self._fmt_cache: dict[float, str] = {}
        self.echoes: dict[str, str] = {}  # uid -> resourceVersion produced by our last status write
        self._unprepared: dict[str, str] = {}  # uid -> why its DRA claims are not prepared (last event)
        self._mounts: dict[str, tuple[float, float]] = {}  # uid -> (next mount try, back-off) until mounted
        self._env_refs: set[str] = set()  # uids of running pods whose environments read ConfigMaps/Secrets
        self._nets: dict[str, NodeNet] = {}  # node name -> its host addresses and pod range (podips.py)

    # -- helpers ---------------------------------------------------------------------------------
    def is_echo(self, pod: Any) -> bool:
        """Is ``pod`` exactly the version the kubelet's own last status write produced? Reconciling
        it would change nothing: the state is what was just written, the timers already set. Reads
        only (the record stays until the next write replaces it or the pod is deleted)."""
        rv = self.echoes.get(pod.metadata.uid or "")
        return rv is not None and rv == pod.metadata.resource_version

    def _timeline(self, when: Any) -> float:
        return (when - self.ctx.clock.to_datetime(0)).total_seconds()

    def _fmt(self, t: float) -> str:
        text = self._fmt_cache.get(t)
        if text is None:
            if len(self._fmt_cache) > 4096:
                self._fmt_cache.clear()
            text = self._fmt_cache[t] = format_time(self.ctx.clock.to_datetime(t))
        return text

    def _node_ready(self, name: str) -> bool:
        try:
            node = self.ctx.cache.get(self.Node, name)
        except NotFound:
            return False
        if kubelet_stopped(node):
            return False
        # a node without a Ready condition is taken as healthy (templates may omit it)
        return node.condition_status("Ready") in (None, "True")

    def _net(self, node_name: str) -> NodeNet | None:
        """The node's addresses and pod range, read again when its range is not the one read before
        (the ``node-ipam-controller`` may give it after the kubelet first saw the node; a node of
        that name created again has another); the pool of a range stays while the range does."""
        net = self._nets.get(node_name)
        try:
            node = self.ctx.cache.get(self.Node, node_name)
        except NotFound:
            return net
        if net is None or net.cidr != node_cidr(node):
            net = self._nets[node_name] = node_net(node)
        return net

    def _take_address(self, pod: Any, run: PodRun) -> None:
        """The pod's address, the lowest free one of its node's range, as its sandbox starts."""
        net = self._net(pod.spec.node_name)
        if net is None or net.pool is None:
            return
        slot = net.pool.take()
        if slot is not None:  # a full range: the pod runs without an address (docs/simulation.md)
            run.pool, run.slot = net.pool, slot

    def _addresses(self, pod: Any, run: PodRun) -> Addresses:
        """The pod's host and pod addresses as the kubelet knows them (``hostNetwork``: the node's)."""
        net = self._net(pod.spec.node_name)
        host = net.host if net is not None else ()
        if pod.spec.host_network:
            return Addresses(host, host)
        return Addresses(host, (run.pool.address(run.slot),) if run.pool is not None else ())

    def _ip_patch(self, pod: Any, run: PodRun) -> dict[str, Any]:
        """The address fields this write sends (:func:`.podips.ip_patch`); the pod's address text is
        made only while the API does not show it yet."""
        status = pod.status
        net = self._net(pod.spec.node_name)
        unshown = run.started and (status is None or not status.pod_ip)
        return ip_patch(status, net.host if net is not None else (),
                        self._addresses(pod, run).pod if unshown else ())

    def _forget(self, key: tuple[str, str], uid: str) -> None:
        run = self.runs.get(key)
        if run is not None and run.uid == uid:
            del self.runs[key]
            if run.pool is not None:  # the sandbox is gone: its address is free again
                run.pool.release(run.slot)
                run.pool = None
        self._faults_seen.pop(uid, None)
        self.tokens.forget(uid)
        self._planners.pop(uid, None)
        self._unprepared.pop(uid, None)
        self._mounts.pop(uid, None)
        self._env_refs.discard(uid)

    # -- the reconcile ---------------------------------------------------------------------------
    def reconcile(self, request: Any) -> Any:
        try:
            pod = self.ctx.cache.get(self.Pod, request.name, request.namespace)
        except NotFound:
            self.logs.forget(request.namespace, request.name)
            self._forget_by_name(request.namespace, request.name)
            return None
        if not pod.spec.node_name or not self._node_ready(pod.spec.node_name):
            return None
        uid, key = pod.metadata.uid or "", (request.namespace, request.name)
        phase = pod.status.phase if pod.status else None
        run = self.runs.get(key)
        if run is not None and run.uid != uid:  # a new pod of that name: the old one is gone
            self._forget(key, run.uid)
            run = None
        if phase in _TERMINAL and (run is None or not run.terminal or run.written == run.version):
            self._forget(key, uid)  # terminal, by us (written) or by another writer: never move back
            self._finish_deletion(pod)
            return None
        now = self.ctx.clock.now()
        if run is None:
            if pod.spec.runtime_class_name is not None and (why := self._sandbox_error(pod)):
                return self._sandbox_failed(pod, why)  # the class is missing or its handler is not here
            has_dra = pod.spec.resource_claims or (pod.status is not None
                                                   and pod.status.extended_resource_claim_status is not None)
            if has_dra and (reason := unprepared_reason(self.ctx.cache, pod)):
                return self._not_prepared(pod, reason)  # DRA: claims must be allocated and reserved
            run = self.runs[key] = new_pod_run(pod, now, self.start_delay)
            volumes, env = pod_references(pod)
            if volumes or has_claims(pod):
                self._mounts[uid] = (now, 0.0)
            if env:
                self._env_refs.add(uid)
        self._inputs(pod, run, now)
        if pod.spec.ephemeral_containers:
            self._ephemeral(pod, run, now)
        if self._mounts and uid in self._mounts:
            self._mount(pod, run, now)
        if run.pool is None and not run.started and not pod.spec.host_network and uid not in self._mounts:
            self._take_address(pod, run)
        wake = next_wake(run)
        if wake is not None and wake <= now:  # the planner and log sink only when something is due
            advance(run, now, self._planner(pod, uid in self._env_refs, run), self._log_sink(pod),
                    self._stopper(pod, run), self._prestop(pod) if run.init else None)  # sidecars' hooks
            wake = next_wake(run)
        for event in take_events(run) if run.events else ():
            self.clients.recorder(pod.spec.node_name).event(pod, *event)
        stale = run.written != run.version or _ready_drifted(pod, run) or _generation_unobserved(pod)
        if stale and not self._write(pod, run, now):
            return None
        if run.terminal:
            self._forget(key, uid)
            self._finish_deletion(pod)
            return None
        return Result(requeue_after=max(wake - now, 1e-6)) if wake is not None else None

    def _not_prepared(self, pod: Any, reason: str) -> Result:
        """Upstream: ``FailedPrepareDynamicResources`` and a retry (once per pod here)."""
        uid = pod.metadata.uid or ""
        if self._unprepared.get(uid) != reason:
            self._unprepared[uid] = reason
            self.clients.recorder(pod.spec.node_name).event(pod, "Warning", "FailedPrepareDynamicResources",
                                    f"Failed to prepare dynamic resources: {reason}")
        return Result(requeue_after=PREPARE_RETRY)

    def _sandbox_error(self, pod: Any) -> str | None:
        try:
            node = self.ctx.cache.get(self.Node, pod.spec.node_name)
        except NotFound:
            node = None
        return sandbox_error(pod, node, self._runtime_class)

    def _runtime_class(self, name: str) -> Any:
        try:
            return self.ctx.cache.get(RuntimeClass, name)
        except NotFound:
            return None

    def _sandbox_failed(self, pod: Any, why: str) -> Result:
        """Upstream ``SyncPod``: ``FailedCreatePodSandBox`` at every failed try, the next one after the
        pod worker's back-off; the pod stays Pending (no run, no status write)."""
        self.clients.recorder(pod.spec.node_name).event(pod, "Warning", "FailedCreatePodSandBox",
                                                        f"Failed to create pod sandbox: {why}")
        return Result(requeue_after=SANDBOX_RETRY)

    def lookup(self, kind: str, namespace: str, name: str) -> Any:
        """The ConfigMap, Secret or claim a pod references, from the cache (None: it does not exist)."""
        try:
            return self.ctx.cache.get(self._sources[kind], name, namespace)
        except NotFound:
            return None

    def services(self, namespace: str) -> list[Any]:
        """The Services of ``namespace`` in the cache (the kubelet's service informer,
        :mod:`.service_env`)."""
        return self.ctx.cache.list(self._service, namespace)

    def _prestop(self, pod: Any) -> PreStop | None:
        """The pod's preStop hooks (:func:`.hooks.make_prestop`), with its service variables."""
        return make_prestop(pod, lambda: self._service_vars(pod))

    def _service_vars(self, pod: Any) -> Mapping[str, str]:
        """The service variables of ``pod``'s containers now (:mod:`.service_env`)."""
        return pod_service_env(pod.metadata.namespace or "", pod.spec.enable_service_links, self.services)

    def _mount(self, pod: Any, run: PodRun, now: float) -> None:
        """Set up the pod's ConfigMap/Secret volumes when a try is due: done (the pod may start), or a
        ``FailedMount`` event per volume and the next try after the back-off."""
        uid = run.uid
        due, delay = self._mounts[uid]
        if now < due:
            return
        failed = mount_errors(pod, self.lookup) + claim_errors(pod, self.lookup)
        if not failed:
            del self._mounts[uid]
            if delay:  # a retry mounted them: the pod starts now, not at its bind time
                hold_start(run, now)
            return
        for volume, message in failed:
            self.clients.recorder(pod.spec.node_name).event(pod, "Warning", "FailedMount",
                                    f'MountVolume.SetUp failed for volume "{volume}" : {message}')
        delay = min(delay * 2, MOUNT_RETRY_MAX) if delay else MOUNT_RETRY_FIRST
        self._mounts[uid] = (now + delay, delay)
        hold_start(run, now + delay)

    def _forget_by_name(self, namespace: str, name: str) -> None:
        run = self.runs.get((namespace, name))
        if run is not None:
            self._forget((namespace, name), run.uid)

    def _ephemeral(self, pod: Any, run: PodRun, now: float) -> None:
        """Start the ephemeral containers the kubelet has not seen yet (upstream ``computePodActions``:
        ``EphemeralContainersToStart``, those without a runtime status; never restarted)."""
        specs = pod.spec.ephemeral_containers
        if len(specs) == len(run.ephemeral):  # they can be added, never removed (the API refuses it)
            return
        if any(container_references(c) for c in specs):
            self._env_refs.add(run.uid)
        wanted = [(c.name, c.image or "", c.target_container_name or "") for c in specs]
        plan = self._planner(pod, run.uid in self._env_refs, run)
        add_ephemeral(run, wanted, now, plan, self._log_sink(pod))

    def _planner(self, pod: Any, refs: bool, run: PodRun | None = None) -> Any:
        """The pod's planner; kept while the pod runs only when stage rules are set (the rule picked
        for a pod stays its rule), otherwise built from the current pod, so nothing is kept. ``refs``:
        some container's environment reads ConfigMaps or Secrets (looked up when it starts). A kept
        planner predates the pod's ephemeral containers: theirs is built from the current pod (stage
        rules decide app containers only)."""
        addresses = self._addresses(pod, run) if run is not None else None
        if self.stages and run is not None and run.ephemeral:
            kept = self._kept_planner(pod, refs, addresses)
            fresh = make_planner(pod, (), self._rng_for, self.default_duration, self.lookup, refs, addresses,
                                 self.tokens.token, self.services)
            return lambda proc, restart: (fresh if proc.kind == EPHEMERAL else kept)(proc, restart)
        if not self.stages:  # built on its first use: most transitions start no container
            built: list[Any] = []

            def plan(proc: Proc, restart: int) -> Any:
                if not built:
                    built.append(make_planner(pod, (), self._rng_for, self.default_duration,
                                              self.lookup, refs, addresses, self.tokens.token, self.services))
                return built[0](proc, restart)

            return plan
        return self._kept_planner(pod, refs, addresses)

    def _stopper(self, pod: Any, run: PodRun) -> Stopper:
        """What the pod's containers do with their stop signal (:func:`.behaviour.make_stopper`),
        read from the pod when a container is stopped."""
        def stop(proc: Proc, at: float) -> Any:
            stopper = make_stopper(pod, self.default_duration, self.lookup, self._addresses(pod, run),
                                   bool(self.stages), gate_on(self.ctx.features, CONTAINER_STOP_SIGNALS),
                                   self.tokens.token, self.services)
            return stopper(proc, at)

        return stop

    def _kept_planner(self, pod: Any, refs: bool, addresses: Addresses | None) -> Any:
        uid = pod.metadata.uid or ""
        planner = self._planners.get(uid)
        if planner is None:
            planner = self._planners[uid] = make_planner(pod, self.stages, self._rng_for,
                                                         self.default_duration, self.lookup, refs,
                                                         addresses, self.tokens.token, self.services)
        return planner

    def _rng_for(self, label: str) -> Any:
        return derive(self.ctx.rng, label)

    def _log_sink(self, pod: Any) -> Any:
        namespace, name = pod.metadata.namespace or "", pod.metadata.name or ""

        def sink(proc: Proc, restart: int, lines: tuple[str, ...], replace: bool = False,
                 offsets: tuple[float, ...] = (), started: float | None = None) -> None:
            if offsets and started is not None and any(DATE_MARK in line for line in lines):
                # the API's startedAt (whole seconds) plus the offset, as ``kubectl logs`` reads it
                start = self.ctx.clock.to_datetime(started).replace(microsecond=0)
                lines = tuple(stamp(line, start + timedelta(seconds=at)) for line, at in zip(lines, offsets,
                                                                                             strict=True))
            (self.logs.replace if replace else self.logs.append)(namespace, name, proc.name, restart, lines)

        return sink

    def _inputs(self, pod: Any, run: PodRun, now: float) -> None:
        meta = pod.metadata
        if meta.deletion_timestamp is not None:
            kill_at = max(self._timeline(meta.deletion_timestamp), now)
            first = run.kill_at is None
            request_deletion(run, kill_at, now, self._stopper(pod, run) if first else None,
                             self._log_sink(pod) if first else None, self._prestop(pod) if first else None)
        annotations = meta.annotations or {}
        probe_raw = annotations.get(PROBE_FAULT_ANNOTATION)
        if probe_raw or run.probe_faults:
            set_probe_faults(run, self._probe_faults(probe_raw), now)
        raw = annotations.get(FAULT_ANNOTATION)
        if raw:
            fault = json.loads(raw)
            seen = self._faults_seen.get(run.uid, 0)
            if int(fault.get("id", 0)) > seen:
                self._faults_seen[run.uid] = int(fault.get("id", 0))
                apply_fault(run, fault.get("container"), Fault(int(fault.get("exitCode", 1)),
                            fault.get("reason", "Error"), fault.get("message", "")), now)

    def _probe_faults(self, raw: str | None) -> tuple[ProbeFault, ...]:
        """The probe faults of the annotation (RFC 3339 times on the wire, timeline seconds here)."""
        out = []
        for item in json.loads(raw) if raw else ():
            until = item.get("until")
            out.append(ProbeFault(item.get("container", ""), item.get("probe", "*"),
                                  self._timeline(parse_time(item["from"])),
                                  self._timeline(parse_time(until)) if until else math.inf))
        return tuple(out)

    def _write(self, pod: Any, run: PodRun, now: float) -> bool:
        """Send what changed (:func:`status_patch`: strategic, so other writers' conditions stay
        as they are); nothing when nothing did."""
        fingerprint = container_fingerprint(run)
        patch = status_patch(run, *_current(pod.status), self._fmt, now,
                             run.sent == fingerprint, pod.metadata.generation)
        ips = self._ip_patch(pod, run)
        if ips:
            patch.update(ips)
        if patch:
            try:
                written = self.clients(pod.spec.node_name).patch_status(
                    self.Pod, run.name, {"status": patch}, run.namespace, patch_type="strategic")
            except NotFound:
                self._forget((run.namespace, run.name), run.uid)
                return False
            # a Conflict propagates: the runtime retries the pod with back-off, on a fresh cache
            if written.metadata.resource_version:
                self.echoes[run.uid] = written.metadata.resource_version
        run.written, run.sent = run.version, fingerprint
        return True

    def _finish_deletion(self, pod: Any) -> None:
        if pod.metadata.deletion_timestamp is None:
            return
        try:
            self.clients(pod.spec.node_name).delete(self.Pod, pod.metadata.name, pod.metadata.namespace,
                                                    grace_period_seconds=0)
        except NotFound:
            return


def _ready_drifted(pod: Any, run: PodRun) -> bool:
    """Does the API show another ``Ready`` status than the kubelet's (e.g. node lifecycle's
    ``MarkPodsNotReady`` while the kubelet was down)? Upstream ``status_manager.go``
    ``needsReconcile``: a status differing from the kubelet's cache is written again."""
    conditions = (pod.status.conditions if pod.status else None) or ()
    ready = next((c for c in conditions if c.type == "Ready"), None)
    if ready is None:
        return False
    if not run.gates:
        return ready.status != wanted_ready(run)
    # readiness gates (status.NeedToReconcilePodReadiness): the reason and message move with them too
    status, reason, message = ready_condition(run, {c.type: c.status for c in conditions})
    return (ready.status, ready.reason or None, ready.message or None) != (status, reason, message)


def _generation_unobserved(pod: Any) -> bool:
    """Is the pod's ``metadata.generation`` not the ``status.observedGeneration`` the API shows? The
    kubelet syncs every updated pod and its status manager writes a status that differs in
    ``observedGeneration`` alone (``isPodStatusByKubeletEqual`` compares it). Generation 0 or none is
    never observed (``CalculatePodStatusObservedGeneration`` gives 0, which the API server would
    replace by the stored value: no write could settle it)."""
    generation = pod.metadata.generation
    return bool(generation) and (pod.status is None or pod.status.observed_generation != generation)


def _current(status: Any) -> tuple[str | None, bool, dict[str, Seen], int | None]:
    """What :func:`status_patch` compares with: phase, whether ``startTime`` is set, each condition's
    (status, reason, message, observedGeneration) by type and ``observedGeneration``, read off the
    model without serializing it."""
    if status is None:
        return None, False, {}, None
    conditions = {c.type: (c.status, c.reason, c.message, c.observed_generation)
                  for c in status.conditions or ()}
    return status.phase, status.start_time is not None, conditions, status.observed_generation
