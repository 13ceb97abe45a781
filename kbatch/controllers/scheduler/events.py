"""Cluster events and queueing hints: which unschedulable pods an event may make schedulable
(KEP-4247 "QueueingHint", feature gate SchedulerQueueingHints, on by default since 1.32).

Upstream: ``k8s.io/kube-scheduler/framework`` (``ClusterEvent``, ``ActionType``, ``QueueingHint``,
``EnqueueExtensions``), ``pkg/scheduler/framework/events.go`` (``PodSchedulingPropertiesChange``,
``NodeSchedulingPropertiesChange``, ``MatchClusterEvents``) and
``pkg/scheduler/backend/queue/scheduling_queue.go`` (``isPodWorthRequeuing``).

* A plugin that can reject a pod says which events may undo that with ``events_to_register()``:
  a list of :class:`ClusterEventWithHint`, each an event pattern and an optional hint function
  ``hint(pod, old, new) -> QUEUE | QUEUE_SKIP`` (no function: always ``QUEUE``). ``old``/``new`` are
  :class:`NodeShape` for Node events and :class:`PodInfo` for Pod events; ``old`` is None for an
  add and ``new`` None for a delete. A plugin without ``events_to_register`` is registered for
  every event (upstream's ``defaultEnqueueExtension``), so out-of-tree style plugins
  (coscheduling, DRA) are never stranded. As upstream's ``buildQueueingHintMap`` still does, a
  plugin registering Node/Add but not Node/UpdateNodeTaint also gets the latter, without a hint
  (a taint change, or a node uncordoned, queues the pods such a plugin rejected).
* The queue records, per failed pod, the plugins that rejected it (upstream
  ``UnschedulablePlugins``) and those that asked it to wait (``PendingPlugins``). On an event, only
  the hints of those plugins registered for a matching event run (:func:`requeue_strategy`):
  any Pending plugin's ``QUEUE`` moves the pod straight to activeQ, any rejecting plugin's ``QUEUE``
  to backoffQ/activeQ by its remaining back-off, all ``QUEUE_SKIP`` leaves it where it is. A hint
  that raises counts as ``QUEUE`` (never strand a pod on a bug); a pod with no recorded plugin (an
  error, not a rejection) is queued by any event some plugin registered for.
* An event no plugin registered for moves nothing (``isEventOfInterest``); the 5-minute flush of
  unschedulable pods (``EventUnschedulableTimeout``, a wildcard) still moves everyone.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, IntFlag
from typing import Any

from kbatch.controllers.scheduler.types import NodeShape, PodInfo

__all__ = [
    "ASSIGNED_POD",
    "NODE",
    "POD",
    "QUEUE",
    "QUEUE_SKIP",
    "UNSCHEDULED_POD",
    "WILDCARD",
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "HintFn",
    "HintMap",
    "ProfileHints",
    "QueueingHint",
    "Strategy",
    "node_update_events",
    "on_node",
    "on_pod",
    "pod_update_events",
    "requeue_strategy",
]

NODE, POD, WILDCARD = "Node", "Pod", "*"
ASSIGNED_POD, UNSCHEDULED_POD = "AssignedPod", "UnschedulablePod"  # incoming Pod events only


class ActionType(IntFlag):
    """Upstream ``fwk.ActionType``: the same bits in the same order (``MatchClusterEvents``
    compares them numerically)."""

    NONE = 0
    ADD = 1
    DELETE = 2
    UPDATE_NODE_ALLOCATABLE = 4
    UPDATE_NODE_LABEL = 8
    UPDATE_NODE_TAINT = 16
    UPDATE_NODE_CONDITION = 32
    UPDATE_NODE_ANNOTATION = 64
    UPDATE_POD_LABEL = 128
    UPDATE_POD_SCALE_DOWN = 256
    UPDATE_POD_TOLERATION = 512
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1024
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 2048
    UPDATE = 4092  # every Update* bit above
    ALL = 4095


class QueueingHint(IntEnum):
    QUEUE_SKIP = 0
    QUEUE = 1


QUEUE, QUEUE_SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


class Strategy(IntEnum):
    """Upstream ``queueingStrategy``."""

    SKIP = 0
    AFTER_BACKOFF = 1
    IMMEDIATELY = 2


@dataclass(frozen=True, slots=True)
class ClusterEvent:
    resource: str
    action: ActionType
    label: str = ""  # names the wildcard events (UnschedulableTimeout, ForceActivate)

    @property
    def wildcard(self) -> bool:
        return self.resource == WILDCARD and self.action == ActionType.ALL

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether this registered pattern covers ``incoming`` (upstream ``MatchClusterEvents``:
        a wildcard pattern covers everything; otherwise the resources match, ``Pod`` covering
        assigned and unscheduled pods, and ``incoming``'s actions are among this one's)."""
        if self.wildcard:
            return True
        resource = self.resource
        if not (resource in (WILDCARD, incoming.resource)
                or (resource == POD and incoming.resource in (ASSIGNED_POD, UNSCHEDULED_POD))):
            return False
        return bool(self.action & incoming.action) and incoming.action <= self.action


HintFn = Callable[[PodInfo, Any, Any], QueueingHint]
# (old, new) -> the keys of the only pods gated by the plugin that the event can concern (None: any)
AffectedFn = Callable[[Any, Any], Collection[str] | None]


@dataclass(frozen=True, slots=True)
class ClusterEventWithHint:
    """A plugin's event registration. ``affected`` is kbatch's: it names the pods gated by the plugin
    (PreEnqueue) that the event can concern, so the queue asks the hint of those only instead of
    every pod the plugin gates (same answer: the hint says QueueSkip for the others)."""

    event: ClusterEvent
    hint: HintFn | None = None
    affected: AffectedFn | None = None


def on_node(actions: ActionType, hint: HintFn | None = None) -> ClusterEventWithHint:
    """A registration for Node events with ``actions``."""
    return ClusterEventWithHint(ClusterEvent(NODE, actions), hint)


def on_pod(actions: ActionType, hint: HintFn | None = None) -> ClusterEventWithHint:
    """A registration for Pod events (bound or not) with ``actions``."""
    return ClusterEventWithHint(ClusterEvent(POD, actions), hint)


EVERYTHING = ClusterEvent(WILDCARD, ActionType.ALL)
UNSCHEDULABLE_TIMEOUT = ClusterEvent(WILDCARD, ActionType.ALL, "UnschedulableTimeout")
NODE_ADD = ClusterEvent(NODE, ActionType.ADD)
NODE_DELETE = ClusterEvent(NODE, ActionType.DELETE)
ASSIGNED_POD_ADD = ClusterEvent(ASSIGNED_POD, ActionType.ADD)
ASSIGNED_POD_DELETE = ClusterEvent(ASSIGNED_POD, ActionType.DELETE)
UNSCHEDULED_POD_ADD = ClusterEvent(UNSCHEDULED_POD, ActionType.ADD)  # a new pending pod


class HintMap:
    """The registered hints of one profile (upstream ``QueueingHintMap``), with the per-event
    lookups cached: which (plugin, hint) pairs an incoming event reaches."""

    def __init__(self, registrations: Iterable[tuple[str, ClusterEventWithHint]]) -> None:
        self._registrations = tuple(registrations)
        self._cache: dict[ClusterEvent, tuple[tuple[str, HintFn | None], ...]] = {}
        self._plugins: dict[ClusterEvent, tuple[str, ...]] = {}

    @classmethod
    def from_plugins(cls, plugins: Iterable[Any]) -> HintMap:
        """Each distinct plugin (by name, first occurrence) with its ``events_to_register()``; one
        without it is registered for everything (upstream ``defaultEnqueueExtension``)."""
        seen: set[str] = set()
        registrations: list[tuple[str, ClusterEventWithHint]] = []
        for plugin in plugins:
            if plugin.name in seen:
                continue
            seen.add(plugin.name)
            register = getattr(plugin, "events_to_register", None)
            events = register() if register is not None else [ClusterEventWithHint(EVERYTHING)]
            registrations.extend((plugin.name, e) for e in events)
            nodes = ActionType.NONE
            for e in events:
                nodes |= e.event.action if e.event.resource == NODE else ActionType.NONE
            if nodes & ActionType.ADD and not nodes & ActionType.UPDATE_NODE_TAINT:
                # upstream buildQueueingHintMap's standing workaround (kubernetes#109437): a plugin
                # registering Node/Add also gets Node/UpdateNodeTaint, without a hint
                registrations.append((plugin.name, on_node(ActionType.UPDATE_NODE_TAINT)))
        return cls(registrations)

    def hints_for(self, event: ClusterEvent) -> tuple[tuple[str, HintFn | None], ...]:
        cached = self._cache.get(event)
        if cached is None:
            cached = tuple((name, r.hint) for name, r in self._registrations if r.event.matches(event))
            self._cache[event] = cached
        return cached

    def plugins_for(self, event: ClusterEvent) -> tuple[str, ...]:
        """The plugins registered for ``event``, sorted, each once."""
        cached = self._plugins.get(event)
        if cached is None:
            cached = self._plugins[event] = tuple(sorted({name for name, _ in self.hints_for(event)}))
        return cached

    def interested(self, event: ClusterEvent) -> bool:
        """Upstream ``isEventOfInterest``."""
        return event.wildcard or bool(self.hints_for(event))

    def affected(self, event: ClusterEvent, plugin: str, old: Any, new: Any) -> set[str] | None:
        """The pods gated by ``plugin`` that ``event`` can concern (see ``ClusterEventWithHint``);
        None when one of the plugin's matching registrations does not say."""
        found: set[str] = set()
        for name, r in self._registrations:
            if name == plugin and r.event.matches(event):
                if r.affected is None:
                    return None
                keys = r.affected(old, new)
                if keys is None:
                    return None
                found.update(keys)
        return found

    def matching(self, event: ClusterEvent, pod: PodInfo) -> tuple[tuple[str, HintFn | None], ...]:
        """The hints for ``event`` that apply to ``pod`` (one profile: all of them)."""
        return self.hints_for(event)


class ProfileHints:
    """The hint maps of several profiles (upstream keys its ``QueueingHintMap`` by profile name): a
    pod's hints are those of its own profile; ``interested``/``plugins_for`` look at them all."""

    def __init__(self, maps: dict[str, HintMap]) -> None:
        self._maps = maps
        self._plugins: dict[ClusterEvent, tuple[str, ...]] = {}
        self._none: tuple[tuple[str, HintFn | None], ...] = ()

    def hints_for(self, event: ClusterEvent) -> tuple[tuple[str, HintFn | None], ...]:
        """Every profile's hints for ``event`` (for callers that do not know the pod)."""
        return tuple(h for m in self._maps.values() for h in m.hints_for(event))

    def matching(self, event: ClusterEvent, pod: PodInfo) -> tuple[tuple[str, HintFn | None], ...]:
        own = self._maps.get(pod.scheduler_name)
        return own.hints_for(event) if own is not None else self._none

    def plugins_for(self, event: ClusterEvent) -> tuple[str, ...]:
        cached = self._plugins.get(event)
        if cached is None:
            cached = self._plugins[event] = tuple(sorted({n for m in self._maps.values()
                                                          for n in m.plugins_for(event)}))
        return cached

    def interested(self, event: ClusterEvent) -> bool:
        return any(m.interested(event) for m in self._maps.values())

    def affected(self, event: ClusterEvent, plugin: str, old: Any, new: Any) -> set[str] | None:
        found: set[str] = set()
        for m in self._maps.values():
            keys = m.affected(event, plugin, old, new)
            if keys is None:
                return None
            found |= keys
        return found


def requeue_strategy(
    pod: PodInfo, rejectors: Sequence[str], pending: Sequence[str], event: ClusterEvent,
    old: Any, new: Any, hints: Sequence[tuple[str, HintFn | None]],
) -> Strategy:
    """Upstream ``isPodWorthRequeuing``: whether ``event`` may make ``pod`` schedulable given the
    plugins that rejected it (``rejectors``) or made it wait (``pending``); ``hints`` are those
    registered for events matching ``event``."""
    if not rejectors and not pending:
        return Strategy.AFTER_BACKOFF  # failed with an error, not a rejection: retry
    if event.wildcard:
        return Strategy.AFTER_BACKOFF
    strategy = Strategy.SKIP
    for name, hint in hints:
        is_pending = name in pending
        if not is_pending and name not in rejectors:
            continue
        if hint is not None:
            try:
                answer = hint(pod, old, new)
            except Exception:  # upstream: a hint error is treated as Queue
                answer = QUEUE
            if answer == QUEUE_SKIP:
                continue
        if is_pending:
            return Strategy.IMMEDIATELY
        if not pending:
            return Strategy.AFTER_BACKOFF
        strategy = Strategy.AFTER_BACKOFF
    return strategy


def node_update_events(old: NodeShape, new: NodeShape) -> list[ClusterEvent]:
    """Upstream ``NodeSchedulingPropertiesChange`` over what kbatch's NodeShape holds: a node made
    schedulable again (``spec.unschedulable`` cleared) is an UpdateNodeTaint, then allocatable,
    labels and taints in that order (conditions and annotations are not in the shape)."""
    events: list[ClusterEvent] = []
    if old.unschedulable and not new.unschedulable:
        events.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT))
    if old.allocatable != new.allocatable:
        events.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_ALLOCATABLE))
    if old.labels != new.labels:
        events.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_LABEL))
    if old.taints != new.taints:
        events.append(ClusterEvent(NODE, ActionType.UPDATE_NODE_TAINT))
    return events


def _scaled_down(old: Mapping[str, int], new: Mapping[str, int]) -> bool:
    return any(name not in new or new[name] < value for name, value in old.items())


def pod_update_events(old: PodInfo, new: PodInfo) -> list[ClusterEvent]:
    """Upstream ``PodSchedulingPropertiesChange``: label change, request scale-down, scheduling
    gates all removed, toleration added (tolerations can only be added, so their count tells),
    generated ResourceClaims recorded, or, when none of those, a generic Update; the resource is
    AssignedPod when ``new`` is bound."""
    resource = ASSIGNED_POD if new.node_name else UNSCHEDULED_POD
    events: list[ClusterEvent] = []
    if old.labels != new.labels:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_LABEL))
    if old.requests is not new.requests and _scaled_down(old.requests, new.requests):
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCALE_DOWN))
    if old.scheduling_gates and not new.scheduling_gates:
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))
    if len(old.tolerations) != len(new.tolerations):
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_TOLERATION))
    if old.claim_statuses != new.claim_statuses:  # upstream: status.resourceClaimStatuses changed
        events.append(ClusterEvent(resource, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM))
    return events or [ClusterEvent(resource, ActionType.UPDATE)]
