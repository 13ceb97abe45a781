"""The scheduling framework's seams: statuses, cycle state, plugin protocols and a profile.

Extension points as in kube-scheduler (``pkg/scheduler/framework/interface.go``): PreEnqueue,
QueueSort, PreFilter, Filter, PostFilter, Score (+ NormalizeScore), Reserve, Permit, PreBind and Bind.
Each plugin is a small object with a ``name`` implementing one or more of the protocols below;
the :class:`Profile` lists them per extension point, in the order they run.

Two attributes drive kbatch's reuse of results (upstream KEP-5598 "opportunistic batching"):
``node_static = True`` on a Filter or Score plugin promises that its answer depends only on the
pod's signature and the node's labels, taints and allocatable, never on the pods on the node;
``per_node_score = True`` on a Score (and PreScore) plugin promises that a node's score depends on
that node alone and its PreScore only decides its own Skip (the batch heap's scores).

A PreFilter returning ``SKIP`` (upstream ``framework.Skip``) puts its plugin's name in
``state[SKIPPED_FILTERS]``, and that plugin's Filter does not run for the pod in this cycle, in the
scheduling cycle and in preemption's what-if alike (upstream ``CycleState.SkipFilterPlugins``,
``RunFilterPlugins`` in ``framework/runtime/framework.go``): :func:`active_filters`.

PreScore (upstream ``PreScorePlugin``) sees the feasible nodes before Score; a ``SKIP`` status, or
the plugin's name in ``state[SKIPPED_SCORES]`` (set by a PreFilter that already knows there is
nothing to score), means its Score does not run for this pod, as upstream's PreScore Skip.

Statuses: a plugin returns ``None`` for success (the hot path allocates nothing) or a
:class:`Status`. ``UNSCHEDULABLE`` means preemption might help; ``UNRESOLVABLE`` (upstream
``UnschedulableAndUnresolvable``) means it cannot; ``WAIT`` is Permit's "hold the pod".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kbatch.controllers.scheduler.types import PodInfo

if TYPE_CHECKING:
    from kbatch.api.scheduling_v1beta1 import PodGroup
    from kbatch.controllers.scheduler.snapshot import NodeInfo, Snapshot

__all__ = [
    "NODE_NAMES",
    "SKIPPED_FILTERS",
    "SKIPPED_SCORES",
    "BindPlugin",
    "Code",
    "CycleState",
    "FilterPlugin",
    "NominationExtensions",
    "PermitPlugin",
    "PodGroupPostFilterPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreScorePlugin",
    "Profile",
    "QueueSortPlugin",
    "ReservePlugin",
    "ScorePlugin",
    "Status",
    "WaitingPreBindPlugin",
    "active_filters",
    "nomination_extensions",
    "run_filters",
    "skip_score",
]

MAX_NODE_SCORE = 100
SKIPPED_SCORES = "skipped_scores"  # cycle-state key: Score plugin names skipped for the pod (dict keys)
SKIPPED_FILTERS = "skipped_filters"  # cycle-state key: Filter plugins whose PreFilter returned Skip
NODE_NAMES = "node_names"  # cycle-state key: a PreFilterResult's node names (the nodes tried)


class Code(IntEnum):
    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNRESOLVABLE = 3  # UnschedulableAndUnresolvable
    WAIT = 4
    SKIP = 5


@dataclass(frozen=True, slots=True)
class Status:
    code: Code
    reasons: tuple[str, ...] = ()
    plugin: str = ""
    timeout: float = 0.0  # WAIT only: Permit: seconds before the pod is rejected; PreBind: poll again after

    @property
    def ok(self) -> bool:
        return self.code in (Code.SUCCESS, Code.SKIP)

    @property
    def message(self) -> str:
        return ", ".join(self.reasons)

    @staticmethod
    def unschedulable(plugin: str, *reasons: str) -> Status:
        return Status(Code.UNSCHEDULABLE, reasons, plugin)

    @staticmethod
    def unresolvable(plugin: str, *reasons: str) -> Status:
        return Status(Code.UNRESOLVABLE, reasons, plugin)


CycleState = dict[str, Any]
"""Per-pod scratch space shared by the plugins during one scheduling attempt."""


@runtime_checkable
class PreEnqueuePlugin(Protocol):
    name: str

    def pre_enqueue(self, pod: PodInfo) -> Status | None: ...


@runtime_checkable
class QueueSortPlugin(Protocol):
    name: str

    def sort_key(self, pod: PodInfo, timestamp: float) -> tuple[Any, ...]:
        """Smaller keys are scheduled first (upstream ``Less`` as a key, for a heap). ``timestamp``
        is when the queue last took the pod in (upstream ``QueuedPodInfo.Timestamp``: when it was
        added, refreshed by every failed attempt)."""
        ...


@runtime_checkable
class PreFilterPlugin(Protocol):
    name: str

    def pre_filter(self, state: CycleState, pod: PodInfo, snapshot: Snapshot) -> Status | None:
        """May store ``state[NODE_NAMES]`` (a set) to restrict the nodes tried (PreFilterResult)."""
        ...


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Upstream ``PreFilterExtensions``: keep a PreFilter's cycle state right when a pod is added
    to or removed from a node in a what-if evaluation (preemption)."""

    name: str

    def copy_state(self, state: CycleState) -> None:
        """Replace this plugin's entries in ``state`` (a shallow copy) with private copies
        (upstream ``CycleState.Clone``)."""
        ...

    def add_pod(self, state: CycleState, pod: PodInfo, added: PodInfo, node: NodeInfo) -> None: ...

    def remove_pod(self, state: CycleState, pod: PodInfo, removed: PodInfo, node: NodeInfo) -> None: ...


@runtime_checkable
class NominationExtensions(Protocol):
    """KEP-5690's ``NominationExtensions``: a plugin holding, across cycles, what a preemption freed
    for its preemptor until the preemptor is scheduled (DynamicResources' claim nominations, whose
    devices are freed asynchronously by the resourceclaim controller, not by the victims' deletion).

    ``add_nominated_pod``: preemption chose ``node`` and ``victims`` for ``pod`` (``state`` the
    pod's cycle state, ``nominated`` the pods already nominated to the node it must leave room for).
    ``remove_nominated_pod``: the pod's nomination is cleared or replaced, or it was scheduled or
    deleted. ``pod_eligible_to_preempt``: False, with a reason, while what an earlier preemption
    on ``node_name`` freed is still being reclaimed."""

    name: str

    def add_nominated_pod(self, state: CycleState, pod: PodInfo, node: NodeInfo,
                          victims: Sequence[PodInfo], nominated: Sequence[PodInfo]) -> None: ...

    def remove_nominated_pod(self, pod: PodInfo) -> None: ...

    def pod_eligible_to_preempt(self, pod: PodInfo, node_name: str) -> tuple[bool, str]: ...


def nomination_extensions(profile: Profile | None) -> list[NominationExtensions]:
    """The profile's plugins with :class:`NominationExtensions`, in PreFilter order."""
    if profile is None:
        return []
    return [p for p in profile.pre_filter if isinstance(p, NominationExtensions)]


@runtime_checkable
class FilterPlugin(Protocol):
    name: str
    node_static: bool

    def filter(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> Status | None: ...


def run_filters(plugins: Sequence[FilterPlugin], state: CycleState, pod: PodInfo, node: NodeInfo,
                ) -> Status | None:
    """The first failing status of ``plugins`` on ``node`` (None: the pod passes them all)."""
    for plugin in plugins:
        status = plugin.filter(state, pod, node)
        if status is not None and not status.ok:
            return status
    return None


def skip_score(state: CycleState, name: str) -> None:
    """Skip ``name``'s Score for this cycle's pod, as a PreScore Skip does (upstream
    ``SkipScorePlugins``). The names are a dict's keys, in the order skipped, not a set: the cycle
    state of an unschedulable pod's decision is kept, so it is in a saved image, whose bytes must not
    follow the hash seed (a set of strings is written in its hash order)."""
    state.setdefault(SKIPPED_SCORES, {})[name] = None


def active_filters(plugins: Sequence[FilterPlugin], state: CycleState) -> Sequence[FilterPlugin]:
    """``plugins`` without those whose PreFilter returned Skip for this cycle's pod (upstream
    ``SkipFilterPlugins``); ``plugins`` itself when none did."""
    skipped = state.get(SKIPPED_FILTERS)
    if not skipped:
        return plugins
    return [p for p in plugins if p.name not in skipped]


@dataclass(frozen=True, slots=True)
class PostFilterResult:
    """What PostFilter proposes (upstream ``PostFilterResult`` with its ``NominatingInfo``): a node
    to nominate the pod to and the victims to evict; or no node, leaving the pod's nomination as
    it is (``ModeNoop``) unless ``clear_nomination`` (``ModeOverride`` with an empty name)."""

    nominated_node: str | None
    victims: tuple[PodInfo, ...] = ()
    message: str = ""
    clear_nomination: bool = False


@runtime_checkable
class PostFilterPlugin(Protocol):
    name: str

    def post_filter(
        self, state: CycleState, pod: PodInfo, snapshot: Snapshot, statuses: dict[str, Status]
    ) -> PostFilterResult: ...


@runtime_checkable
class PodGroupPostFilterPlugin(Protocol):
    """PostFilter of a PodGroup's scheduling cycle (KEP-5729, "Deallocate"): the group (``namespace/
    name`` and its PodGroup object) failed as a whole, before workload-aware preemption looks for
    victims; the plugin may free what the group holds. Its ``Unschedulable`` status's reasons join the
    group's (upstream ``PodGroupPostFilter`` returns ``(*PodGroupPostFilterResult, *Status)``);
    ``None``: nothing to say."""

    name: str

    def post_filter_pod_group(self, group_key: str, pod_group: PodGroup) -> Status | None: ...


@runtime_checkable
class PreScorePlugin(Protocol):
    name: str
    per_node_score: bool  # see ScorePlugin: the plugin's PreScore only decides its own Skip

    def pre_score(self, state: CycleState, pod: PodInfo, nodes: list[NodeInfo]) -> Status | None:
        """Prepare scoring of ``nodes`` (the feasible ones); ``Status(Code.SKIP)``: nothing to score."""
        ...


@runtime_checkable
class ScorePlugin(Protocol):
    name: str
    weight: int
    node_static: bool
    # kbatch's batching promise: a node's score depends on that node alone (normalize is the
    # identity) and PreScore, if any, only decides the plugin's own Skip, which Score honours by
    # itself; the batch heap orders nodes by these scores (NodeResourcesFit, BalancedAllocation)
    per_node_score: bool

    def score(self, state: CycleState, pod: PodInfo, node: NodeInfo) -> int: ...

    def normalize(self, scores: list[int]) -> list[int]:
        """Map raw scores to 0..100 (identity for plugins that already score in that range)."""
        ...


@runtime_checkable
class ReservePlugin(Protocol):
    name: str

    def reserve(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: PodInfo, node_name: str) -> None: ...


@runtime_checkable
class PermitPlugin(Protocol):
    name: str

    def permit(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None:
        """``None``: allow; ``Status(WAIT, timeout=…)``: hold until allowed or timed out."""
        ...


@runtime_checkable
class PreBindPlugin(Protocol):
    """Upstream ``PreBindPlugin``: runs after Permit, before binding; a failure unreserves the pod
    (DynamicResources writes claim allocations here). ``Status(WAIT, timeout=t)``: the plugin waits
    for something outside the scheduler (upstream: PreBind blocks its binding goroutine, polling);
    the scheduler calls ``pre_bind_poll`` after ``t`` virtual seconds, with the same answers, and
    meanwhile schedules other pods."""

    name: str

    def pre_bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


@runtime_checkable
class WaitingPreBindPlugin(PreBindPlugin, Protocol):
    """A PreBind plugin that may answer ``WAIT``: ``pre_bind_poll`` is asked again when the wait is
    over, with ``pre_bind``'s answers."""

    def pre_bind_poll(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Protocol):
    name: str

    def bind(self, state: CycleState, pod: PodInfo, node_name: str) -> Status | None: ...


@dataclass(slots=True)
class Profile:
    """One scheduler profile (``KubeSchedulerProfile``): plugins per extension point, in order."""

    scheduler_name: str = "default-scheduler"
    queue_sort: QueueSortPlugin | None = None
    pre_enqueue: list[PreEnqueuePlugin] = field(default_factory=list)
    pre_filter: list[PreFilterPlugin] = field(default_factory=list)
    filter: list[FilterPlugin] = field(default_factory=list)
    post_filter: list[PostFilterPlugin] = field(default_factory=list)
    pre_score: list[PreScorePlugin] = field(default_factory=list)
    score: list[ScorePlugin] = field(default_factory=list)
    reserve: list[ReservePlugin] = field(default_factory=list)
    permit: list[PermitPlugin] = field(default_factory=list)
    pre_bind: list[PreBindPlugin] = field(default_factory=list)
    bind: list[BindPlugin] = field(default_factory=list)
    percentage_of_nodes_to_score: int | None = None  # None: upstream's adaptive default
    plugins: dict[str, Any] = field(default_factory=dict)  # every plugin of the profile, by name

    def static_filters(self) -> list[FilterPlugin]:
        return [p for p in self.filter if p.node_static]

    def dynamic_filters(self) -> list[FilterPlugin]:
        return [p for p in self.filter if not p.node_static]


def num_feasible_nodes_to_find(percentage: int | None, num_all_nodes: int) -> int:
    """How many feasible nodes to look for before scoring (upstream ``numFeasibleNodesToFind`` in
    ``pkg/scheduler/schedule_one.go``): all of them below 100 nodes; otherwise an adaptive
    percentage, 50% minus 1% per 125 nodes, at least 5%, and never fewer than 100 nodes."""
    min_nodes, min_percentage = 100, 5
    if num_all_nodes < min_nodes or (percentage is not None and percentage >= 100):
        return num_all_nodes
    if percentage is None or percentage <= 0:
        percentage = max(50 - num_all_nodes // 125, min_percentage)
    return max(num_all_nodes * percentage // 100, min_nodes)
