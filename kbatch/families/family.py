"""What an API family is: one value declaring everything kbatch needs to serve and run it.

A family (core, batch, JobSet, gang scheduling, Kueue, DRA, ...) is a :class:`Family`:

* its **kinds** (:class:`KindEntry`): the model, the API strategy (defaulting, validation), the
  ``kubectl get`` columns, the ``kubectl describe`` lines and the garbage-collection policy;
* its **virtual resources** (:class:`~kbatch.api.virtual.VirtualResource`): resources answered by a
  handler and never stored, the create-only reviews (upstream's REST storages with only ``Create``,
  ``pkg/registry/authorization/*``, ``pkg/registry/authentication/*``) and APIService-aggregated
  groups (metrics.k8s.io); discovery, OpenAPI, routing, RBAC attributes and the CLI come from the
  declaration, as for stored kinds;
* its **admission plugins** (:class:`AdmissionPlugin`), registered by name on the API server and
  switched with ``--enable-admission-plugins`` / ``--disable-admission-plugins``, whatever
  controllers run (upstream's admission plugins and webhooks run in the API server's path);
* its **controllers** (:class:`ControllerSpec`), selected with ``--controllers``;
* its **scheduler plugins** (:class:`SchedulerPlugin`), which scheduler profiles enable by name;
* its **post-start hooks**: ``hook(server)`` run once a new API server has its system namespaces, to
  create what a fresh control plane holds (kube-apiserver's post-start hooks, e.g. RBAC's
  ``rbac/bootstrap-roles``);
* its **cluster add-ons** (:class:`ClusterAddon`): objects a *new* cluster starts with, installed once
  when the control plane's store is first populated and never again, so a user's deletion stands
  (kind's create actions after ``kubeadm init``: the default StorageClass);
* its **feature gates** (:class:`~kbatch.api.features.FeatureSpec`) and its **job integrations**
  (:class:`JobIntegration`: the kinds that Kueue-style queueing can suspend and admit).

Everything above the API layer is referred to lazily, as a ``"module:attribute"`` string (a
:data:`Ref`), so declaring a family imports only its models; the part that needs it resolves the
reference (:func:`resolve`). The control plane, ``kbatch serve`` and the CLI compose families
(:mod:`kbatch.families.composition`); docs/architecture.md, "Adding an API family", walks through one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kbatch.api.features import FeatureSpec
from kbatch.api.meta import Resource
from kbatch.api.printing import Describer, PageDescriber, Printer
from kbatch.api.strategy import Strategy
from kbatch.api.versions import ServedVersion
from kbatch.api.virtual import Subresource, VirtualResource

__all__ = [
    "AdmissionPlugin",
    "ClusterAddon",
    "ControllerSpec",
    "EventsApi",
    "Family",
    "JobIntegration",
    "KindEntry",
    "Ref",
    "SchedulerPlugin",
    "Subresource",
    "VirtualResource",
    "kcm_account",
    "resolve",
]

Ref = str | Callable[..., Any]
"""A callable, or the ``"package.module:attribute"`` path of one (imported when first needed)."""


def resolve(ref: Ref) -> Callable[..., Any]:
    """The callable ``ref`` names (``ModuleNotFoundError``/``AttributeError`` when it does not exist)."""
    if callable(ref):
        return ref
    module_name, _, attr = ref.partition(":")
    target = getattr(importlib.import_module(module_name), attr or "setup")
    if not callable(target):
        raise TypeError(f"{ref} is not callable")
    return target  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class KindEntry:
    """One served kind. ``gc_policy`` is upstream's ``DefaultGarbageCollectionPolicy`` (what a delete
    without ``propagationPolicy`` does: ``Background`` for most kinds, ``Orphan`` for batch/v1 Job);
    ``printer`` the ``kubectl get`` columns (default: Name, Age, as for a custom resource without
    additionalPrinterColumns); ``describe`` the kind's ``kubectl describe`` lines, or ``page`` its whole
    page when kubectl's describer reads other objects too (Node); ``feature_gate``
    the gate without which the kind is not served (upstream: an API version enabled by a gate, e.g.
    scheduling.k8s.io/v1beta1 Workload and PodGroup with ``GenericWorkload``)."""

    model: type[Resource]
    strategy: Strategy[Any] | None = None
    printer: Printer | None = None
    describe: Describer | None = None
    page: PageDescriber | None = None
    gc_policy: str = "Background"
    feature_gate: str = ""
    versions: tuple[ServedVersion, ...] = ()  # further served versions (CRD conversion)
    subresources: tuple[Subresource, ...] = ()  # beyond status: pods/log, serviceaccounts/token, ...


@dataclass(frozen=True, slots=True)
class AdmissionPlugin:
    """A named admission plugin. ``install(server)`` adds its hooks to ``server.admission``.

    Plugins run in the order the composed families list them (core's built-ins first, in
    kube-apiserver's recommended order; a later family's plugins play the part of webhooks, which
    upstream runs after the built-in plugins). ``enabled_by_default`` as kube-apiserver's defaults."""

    name: str
    install: Ref
    enabled_by_default: bool = True
    description: str = ""


@dataclass(frozen=True, slots=True)
class ClusterAddon:
    """Objects a new cluster starts with: ``install(server)`` creates them once, when the control
    plane's store holds no object yet, after the system namespaces and the post-start hooks.

    Unlike a post-start hook (run at every start, recreating what is missing, as kube-apiserver's
    are), an add-on is not installed again when the control plane restarts over its store: a user
    who deletes or edits what it made keeps that, as in a kind cluster (kubernetes-sigs/kind
    ``pkg/cluster/internal/create/create.go``: the install actions run once, at ``kind create
    cluster``). Selected by name (``ControlPlane(addons="*,-name")``); ``enabled_by_default`` says
    whether ``*`` includes it."""

    name: str
    install: Ref
    description: str = ""
    enabled_by_default: bool = True


def kcm_account(account: str) -> str:
    """The user of kube-controller-manager's client ``ClientOrDie(account)`` under
    ``--use-service-account-credentials``: the ServiceAccount ``kube-system/<account>``."""
    return f"system:serviceaccount:kube-system:{account}"


@dataclass(frozen=True, slots=True)
class EventsApi:
    """A component that records through events.k8s.io/v1 (client-go ``tools/events``) rather than
    core/v1 (``tools/record``): :mod:`kbatch.runtime.events_v1`. ``process`` names the broadcaster it
    shares (one per upstream process: kube-scheduler's profiles share one, as do a controller-runtime
    manager's ``GetEventRecorder`` recorders); ``host`` the hostname its ``reportingInstance`` ends
    with (``<reportingController>-<host>``); ``actions`` the action upstream passes with a reason,
    where it is not ``every`` (when set) or else the reason itself (:meth:`action_of`)."""

    process: str
    host: str
    actions: tuple[tuple[str, str], ...] = ()
    every: str = ""

    def action_of(self, reason: str) -> str:
        return next((action for known, action in self.actions if known == reason), self.every or reason)


@dataclass(frozen=True, slots=True)
class ControllerSpec:
    """A controller kbatch can run: ``factory(ctx: ControllerContext)`` builds it.

    Names follow kube-controller-manager where upstream has the controller; ``aliases`` accept
    upstream's canonical and legacy names; ``source`` is the Event source component upstream uses
    (``job-controller``, ``default-scheduler``); ``user`` the username its writes are requested by
    (``system:serviceaccount:kube-system:job-controller``, ``system:kube-scheduler``;
    :mod:`kbatch.apiserver.identities`), the local administrator when empty; ``events`` the
    events.k8s.io/v1 recorder it has instead of the core/v1 one, when its upstream has one
    (:class:`EventsApi`; ``source`` is then the ``reportingController``)."""

    name: str
    description: str
    factory: Ref
    enabled_by_default: bool = True
    aliases: tuple[str, ...] = ()
    source: str = ""
    user: str = ""
    events: EventsApi | None = None

    @property
    def event_source(self) -> str:
        return self.source or self.name


@dataclass(frozen=True, slots=True)
class SchedulerPlugin:
    """A scheduler plugin by name (kube-scheduler's plugin registry). ``factory(args, handle)`` builds
    one instance per profile; ``multi_point`` places it in the default profile's ``multiPoint``
    list (with ``weight`` for scoring), in family order, as ``default_plugins.go`` does;
    ``queue_sort``: the default profile sorts its queue with this plugin instead of an earlier
    family's (one queue, one QueueSort: what scheduler-plugins' configuration for Coscheduling does
    with ``queueSort: {enabled: [Coscheduling], disabled: ["*"]}``); ``before``: the plugin takes its
    ``multiPoint`` place just before that earlier family's plugin, as upstream's list places it."""

    name: str
    factory: Ref
    multi_point: bool = False
    weight: int = 0
    queue_sort: bool = False
    before: str = ""


@dataclass(frozen=True, slots=True)
class JobIntegration:
    """A kind Kueue-style queueing can manage: ``adapter(obj)`` wraps an object of ``model`` in the
    :class:`kbatch.api.jobframework.GenericJob` protocol (Kueue's ``jobframework`` integrations)."""

    name: str  # Kueue's integration name, e.g. "batch/job", "jobset.x-k8s.io/jobset"
    model: type[Resource]
    adapter: Ref


@dataclass(frozen=True, slots=True)
class Family:
    """One API family: see the module docstring. ``name`` is how users select it."""

    name: str
    description: str
    kinds: tuple[KindEntry, ...] = ()
    virtual: tuple[VirtualResource, ...] = ()
    admission: tuple[AdmissionPlugin, ...] = ()
    controllers: tuple[ControllerSpec, ...] = ()
    scheduler_plugins: tuple[SchedulerPlugin, ...] = ()
    feature_gates: tuple[FeatureSpec, ...] = ()
    job_integrations: tuple[JobIntegration, ...] = ()
    post_start: tuple[Ref, ...] = ()
    cluster_addons: tuple[ClusterAddon, ...] = ()
