"""The MultiKueueCluster reconciler: one remote client per worker, its connection and ``Active``.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``
(``clustersReconciler.Reconcile``, ``remoteClient.updateConfigAndRefreshWatchers``, ``retryAfter``;
table ``multikueuecluster_test.go``):

1. a cluster gone or being deleted: its client's watches stop and the client is dropped;
2. its kubeconfig is loaded (a Secret of Kueue's namespace, key ``kubeconfig``; or a file) and checked
   (:mod:`.kubeconfig`), or, for a ``clusterProfileRef`` with ``MultiKueueClusterProfile`` on, its
   ClusterProfile of Kueue's namespace is read (:mod:`.profile_access`); failing that the client is
   marked disconnected and the cluster gets ``Active=False`` with reason ``BadKubeConfig`` (cannot
   load), ``InsecureKubeConfig`` (refused), ``MultiKueueClusterProfileFeatureDisabled`` (gate off),
   ``BadClusterProfile`` or ``BadRestConfig``, message "load client config failed: <error>"; a missing
   Secret or ClusterProfile waits for its events, any other error is retried with back-off;
3. the client is (re)built when the config changed or it is disconnected (a profile's credential
   plugin runs then, :mod:`.exec_credential`), at most once per back-off step: ``retryAfter(n)`` = 0,
   5 s, 10 s, … 320 s after the n-th failed attempt; a failure is
   ``Active=False``/``ClientConnectionFailed`` with the error, requeued after the back-off;
4. connected (the Workload watch and each adapter's job watch established; with
   ``MultiKueueManagerQuotaAutomation`` also the worker's ClusterQueues and LocalQueues, unlabelled,
   :class:`.quota_events.WorkerQueueEvents`) → ``Active=True``, reason ``Active``, message
   ``Connected``.

A watch that ends marks the client disconnected (the time of the first loss is kept for
``workerLostTimeout``) and requeues the cluster. The garbage collector (:mod:`.gc`) runs every
``gcInterval`` over the connected clients.
"""

from __future__ import annotations

import base64
import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kbatch.api import edit
from kbatch.api.core_v1 import Secret
from kbatch.api.errors import Conflict, NotFound
from kbatch.api.kueue_config_clusterprofile import access_providers
from kbatch.api.kueue_v1beta2 import MultiKueueCluster, MultiKueueClusterStatus, Workload
from kbatch.api.kueue_v1beta2.multikueue import CLUSTER_ACTIVE, CONFIG_SECRET_KEY, PATH_LOCATION
from kbatch.api.meta import Condition, Resource
from kbatch.api.multicluster_v1alpha1 import ClusterProfile
from kbatch.api.policy_helpers import cmp_condition_state, find_condition
from kbatch.controllers.kueue.multikueue.context import CLUSTER_CONTROLLER
from kbatch.controllers.kueue.multikueue.exec_credential import cluster_info, run_plugin
from kbatch.controllers.kueue.multikueue.http_remote import HttpRemote
from kbatch.controllers.kueue.multikueue.inprocess import workers_of
from kbatch.controllers.kueue.multikueue.kubeconfig import ClientConfig, InvalidKubeConfig, parse_kubeconfig
from kbatch.controllers.kueue.multikueue.profile_access import (
    BadClusterProfile,
    BadRestConfig,
    client_config_from_profile,
    profiles_served,
)
from kbatch.controllers.kueue.multikueue.quota_events import QUEUE_KINDS, WorkerQueueEvents
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed, RemoteCluster, WatchEvent
from kbatch.runtime.reconcile import Request, Result

if TYPE_CHECKING:
    from kbatch.controllers.kueue.multikueue.context import MultiKueueContext

__all__ = ["QUOTA_AUTOMATION_GATE", "Clusters", "LoadFailed", "RemoteState", "retry_after"]

DEPRECATED_PATH = (
    "Using locationType=Path without MultiKueueKubeConfigPathValidation feature gate is deprecated and will "
    "be removed in a future release. Enable the MultiKueueKubeConfigPathValidation feature gate and place "
    "kubeconfig files under /etc/multikueue/kubeconfigs/."
)
CLUSTER_PROFILE_GATE = "MultiKueueClusterProfile"
QUOTA_AUTOMATION_GATE = "MultiKueueManagerQuotaAutomation"
RETRY_INCREMENT = 5.0
RETRY_MAX_STEPS = 7


def retry_after(failed_attempts: int) -> float:
    """``retryAfter``: 0, then 5 s doubling per failed attempt, capped at 2^6 x 5 s = 320 s."""
    if failed_attempts == 0:
        return 0.0
    return float((1 << (min(failed_attempts, RETRY_MAX_STEPS) - 1)) * RETRY_INCREMENT)


class LoadFailed(Exception):
    def __init__(self, reason: str, message: str, not_found: bool = False) -> None:
        super().__init__(message)
        self.reason, self.not_found = reason, not_found


@dataclass
class RemoteState:
    """``remoteClient``: one worker's client and connection state."""

    name: str
    lost_since: float | None  # when the connection was first lost (or the state created)
    client: RemoteCluster | None = None
    config: ClientConfig | None = None
    connected: bool = False
    failed_attempts: int = 0
    next_attempt: float = 0.0
    watched: list[RemoteCluster] = field(default_factory=list)

    def mark_disconnected(self, now: float) -> bool:
        was = self.connected
        self.connected = False
        if self.lost_since is None:
            self.lost_since = now
        return was

    def stop_watchers(self) -> None:
        for client in self.watched:
            client.stop()
        self.watched.clear()


class Clusters:
    """``clustersReconciler`` (see the module docstring)."""

    def __init__(
        self, mk: MultiKueueContext, connect: Callable[[ClientConfig], RemoteCluster] | None = None
    ) -> None:
        self.mk = mk
        self.states: dict[str, RemoteState] = {}
        self.connect = connect or self._connect

    # -- the remote clients ------------------------------------------------------------------------
    def _connect(self, config: ClientConfig) -> RemoteCluster:
        if config.exec_plugin is not None:  # a ClusterProfile's plugin gives this connection's token
            info = cluster_info(config.server, config.ca_data, config.exec_plugin.config)
            config = replace(config, token=run_plugin(config.exec_plugin, info))
        if config.in_process is not None:
            return workers_of(self.mk.ctx.published).connect(config.in_process)
        return HttpRemote(config, self.mk.inbox())

    def connected(self, name: str) -> RemoteState | None:
        """The cluster's state when its client is connected (``controllerFor`` + ``isConnected``)."""
        state = self.states.get(name)
        return state if state is not None and state.connected and state.client is not None else None

    def lost_since(self, name: str) -> float:
        """``admittingWorkerLostSince``: when the worker's connection was lost, else now."""
        state = self.states.get(name)
        return state.lost_since if state is not None and state.lost_since is not None else self.mk.now()

    def _state(self, name: str) -> RemoteState:
        state = self.states.get(name)
        if state is None:  # starts disconnected, the loss counted from its creation (newRemoteClient)
            state = self.states[name] = RemoteState(name, lost_since=self.mk.now())
        return state

    def _watch_lost(self, name: str, client: RemoteCluster) -> Callable[[], None]:
        return _WatchLost(self, name, client)

    def _refresh(self, state: RemoteState, config: ClientConfig) -> float | None:
        """``updateConfigAndRefreshWatchers``: the delay to retry after, or ``None``; raises
        :class:`ConnectionFailed` with the back-off in ``state.next_attempt``."""
        changed = config != state.config
        if not changed and state.connected:
            return None
        state.stop_watchers()
        if changed:
            state.config, state.failed_attempts, state.next_attempt = config, 0, 0.0
        if not state.connected and (wait := state.next_attempt - self.mk.now()) > 0:
            return wait
        try:
            client = self.connect(config)
            kinds: tuple[type[Resource], ...] = (Workload, *(a.model for a in self.mk.adapters.values()))
            on_event: Callable[[WatchEvent], None] = self.mk.remote_event
            unlabelled: tuple[type[Resource], ...] = ()
            if self.mk.mgr.settings.on(QUOTA_AUTOMATION_GATE):  # startQueueWatchers, with the gate
                on_event, unlabelled = WorkerQueueEvents(self.mk, client), QUEUE_KINDS
            client.watch(kinds, self.mk.options.origin, on_event, self._watch_lost(state.name, client),
                         unlabelled=unlabelled)
        except ConnectionFailed:
            state.failed_attempts += 1
            state.next_attempt = self.mk.now() + retry_after(state.failed_attempts)
            raise
        state.client, state.watched = client, [client]
        state.connected, state.lost_since = True, None
        state.failed_attempts, state.next_attempt = 0, 0.0
        return None

    def _disconnect(self, name: str) -> None:
        state = self.states.get(name)
        if state is not None:
            state.stop_watchers()
            state.mark_disconnected(self.mk.now())

    # -- the reconcile -----------------------------------------------------------------------------
    def reconcile(self, request: Request) -> Result | None:
        cluster = self.mk.get(MultiKueueCluster, request.name)
        if cluster is None or cluster.metadata.deletion_timestamp is not None:
            state = self.states.pop(request.name, None)
            if state is not None:
                state.stop_watchers()
            return None
        self._warn_path(cluster)
        try:
            config = self._load(cluster)
        except LoadFailed as err:
            self._disconnect(request.name)
            self._update_status(cluster, False, err.reason, f"load client config failed: {err}")
            if err.not_found:
                return None
            raise
        state = self._state(request.name)
        try:
            wait = self._refresh(state, config)
        except ConnectionFailed as err:
            self._disconnect(request.name)
            self._update_status(cluster, False, "ClientConnectionFailed", str(err))
            return Result(requeue_after=max(state.next_attempt - self.mk.now(), 0.0) or None)
        if wait is not None:
            return Result(requeue_after=wait)
        self._update_status(cluster, True, "Active", "Connected")
        return None

    def _warn_path(self, cluster: MultiKueueCluster) -> None:
        """A ``Path`` kubeconfig with ``MultiKueueKubeConfigPathValidation`` off (its default): Warning
        ``DeprecatedPathUsage``, at every reconcile, as upstream."""
        source = cluster.spec.cluster_source if cluster.spec else None
        ref = source.kube_config if source else None
        if ref is None or ref.location_type != PATH_LOCATION:
            return
        if not self.mk.mgr.settings.on("MultiKueueKubeConfigPathValidation"):
            self.mk.event(cluster, "DeprecatedPathUsage", DEPRECATED_PATH, "Warning")

    def _load(self, cluster: MultiKueueCluster) -> ClientConfig:
        """``loadClientConfig``: from the cluster's ClusterProfile or its kubeconfig."""
        source = cluster.spec.cluster_source if cluster.spec else None
        ref = source.kube_config if source else None
        if ref is None:
            if source is not None and source.cluster_profile_ref is not None:
                return self._load_profile(source.cluster_profile_ref.name or "")
            raise LoadFailed("BadKubeConfig", "kubeconfig reference is nil")
        text = self._kubeconfig_text(ref.location or "", ref.location_type or "Secret")
        try:
            return parse_kubeconfig(text)
        except InvalidKubeConfig as err:
            raise LoadFailed("InsecureKubeConfig", str(err)) from None

    def _load_profile(self, name: str) -> ClientConfig:
        """``getRestConfigFromClusterProfile`` + ``validateRestConfig`` (:mod:`.profile_access`); the
        profile is read in Kueue's namespace."""
        if not self.mk.mgr.settings.on(CLUSTER_PROFILE_GATE):
            raise LoadFailed(
                "MultiKueueClusterProfileFeatureDisabled", "MultiKueueClusterProfile feature gate is disabled"
            )
        if not profiles_served(self.mk.ctx.registry):  # controller-runtime's answer without the CRD
            info = ClusterProfile.api_info
            message = f'no matches for kind "{info.kind}" in version "{info.api_version}"'
            raise LoadFailed("BadClusterProfile", message)
        profile = self.mk.get(ClusterProfile, name, self.mk.mgr.settings.config.namespace)
        if profile is None:
            # the cached client names the kind (upstream e2e_test.go "Connection via ClusterProfile")
            message = f'ClusterProfile.multicluster.x-k8s.io "{name}" not found'
            raise LoadFailed("BadClusterProfile", message, not_found=True)
        providers = access_providers(self.mk.mgr.settings.config.multi_kueue)
        try:
            return client_config_from_profile(profile, providers)
        except BadClusterProfile as err:
            raise LoadFailed("BadClusterProfile", str(err)) from None
        except BadRestConfig as err:
            raise LoadFailed("BadRestConfig", str(err)) from None

    def _kubeconfig_text(self, location: str, location_type: str) -> bytes:
        if location_type == PATH_LOCATION:
            try:
                with open(os.path.abspath(location), "rb") as fh:
                    return fh.read()
            except OSError as err:
                raise LoadFailed("BadKubeConfig", f"open {location}: {err.strerror}") from None
        namespace = self.mk.mgr.settings.config.namespace
        secret = self.mk.get(Secret, location, namespace)
        if secret is None:
            raise LoadFailed("BadKubeConfig", f'secrets "{location}" not found', not_found=True)
        data = (secret.data or {}).get(CONFIG_SECRET_KEY)
        if data is None:
            raise LoadFailed("BadKubeConfig", f'key "{CONFIG_SECRET_KEY}" not found in secret "{location}"')
        return base64.b64decode(data)  # a Secret's data is base64 on the wire

    def _update_status(self, cluster: MultiKueueCluster, active: bool, reason: str, message: str) -> None:
        """``updateStatus``: the ``Active`` condition is written unless ``cmpConditionState`` finds it
        already in this state (status, reason, message; a new generation alone is no change)."""
        new = Condition(type=CLUSTER_ACTIVE, status="True" if active else "False", reason=reason,
                        message=message, observed_generation=cluster.metadata.generation)
        if cmp_condition_state(find_condition(cluster.status.conditions if cluster.status else None,
                                              CLUSTER_ACTIVE), new):
            return
        obj = edit(cluster)
        obj.status = obj.status or MultiKueueClusterStatus()
        self.mk.set_condition(obj.status, new)
        with contextlib.suppress(Conflict, NotFound):
            self.mk.client.update_status(obj)


class _WatchLost:
    """A watch ended: the client is marked disconnected and the cluster requeued (``watchEndedCh``)."""

    def __init__(self, clusters: Clusters, name: str, client: RemoteCluster) -> None:
        self.clusters, self.name, self.client = clusters, name, client

    def __call__(self) -> None:
        state = self.clusters.states.get(self.name)
        if state is None or state.client is not self.client:
            return
        if state.mark_disconnected(self.clusters.mk.now()):
            self.clusters.mk.enqueue(CLUSTER_CONTROLLER, Request("", self.name))
