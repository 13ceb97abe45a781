"""Per-kind API strategy: defaulting, preparation, validation (k8s.io/apiserver ``pkg/registry/rest``).

The API server calls, for a create: ``default`` → ``prepare_for_create`` → ``validate``; for an
update of the main resource: ``default`` → ``prepare_for_update`` (keeps status) → ``validate`` and
``validate_update`` (immutable fields; ``validate_update`` alone when the strategy's
``update_revalidates`` is off); for a write to the ``status`` subresource:
``prepare_for_status_update`` (keeps everything but status) → ``validate_status_update``. Validators
return *every* error at once.

A kind needs only the hooks it cares about: :class:`DefaultStrategy` is the no-op baseline that
kind strategies compose with (wrap or subclass it; it has no hidden hooks).
"""

from __future__ import annotations

import copy
import functools
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from kbatch.api.base import private_fields_set
from kbatch.api.errors import FieldError
from kbatch.api.go_equal import go_equal
from kbatch.api.meta import Resource
from kbatch.api.model_copy import copy_value
from kbatch.api.wire_zeros import tree_of

if TYPE_CHECKING:
    from kbatch.api.features import FeatureGates

__all__ = ["CUSTOM_RESOURCE_STATUS_KEPT_META", "DefaultStrategy", "GateBound", "GatedStrategy", "Strategy",
           "keep_status_reset_fields"]

# A custom resource's status write keeps all of the stored object but its status and managedFields
# (apiextensions-apiserver ``pkg/registry/customresource/status_strategy.go`` PrepareForUpdate copies
# the old object over the new one; GetResetFields lists all of ``metadata`` and ``spec``): labels,
# annotations, finalizers, ownerReferences sent to ``/status`` are dropped. The rest of ObjectMeta is
# the stored value anyway (identity, resourceVersion, timestamps).
CUSTOM_RESOURCE_STATUS_KEPT_META = ("generation", "deletion_timestamp", "deletion_grace_period_seconds",
                                    "labels", "annotations", "owner_references", "finalizers")

T_contra = TypeVar("T_contra", bound=Resource, contravariant=True)  # a strategy takes objects in


class Strategy(Protocol[T_contra]):
    def default(self, obj: T_contra) -> None:
        """Scheme defaulting (``SetDefaults_<Kind>``), in place; also applied on update."""
        ...

    def prepare_for_create(self, obj: T_contra) -> None:
        """In place: e.g. clear status, set generation-related fields."""
        ...

    def prepare_for_update(self, new: T_contra, old: T_contra) -> None:
        """In place on ``new``: e.g. carry ``old``'s status over (main resource writes)."""
        ...

    def prepare_for_status_update(self, new: T_contra, old: T_contra) -> None:
        """In place on ``new``: carry everything but status over from ``old``."""
        ...

    def validate(self, obj: T_contra) -> list[FieldError]: ...

    def validate_update(self, new: T_contra, old: T_contra) -> list[FieldError]: ...

    def validate_status_update(self, new: T_contra, old: T_contra) -> list[FieldError]: ...

    def spec_changed(self, new: T_contra, old: T_contra) -> bool:
        """Whether ``metadata.generation`` must be bumped (spec changes only)."""
        ...


@runtime_checkable
class GatedStrategy(Protocol):
    """A strategy whose behaviour depends on feature gates (upstream reads the process-wide gates in
    ``PrepareForCreate``/``PrepareForUpdate``, e.g. ``dropDisabledFields``). kbatch has no global
    gates: each control plane's registry holds ``strategy.for_gates(gates)``, a copy bound to them."""

    def for_gates(self, gates: FeatureGates) -> Any: ...


class GateBound:
    """The usual :class:`GatedStrategy`: ``for_gates`` returns a shallow copy whose ``gates`` are
    those given (``None`` on the unbound instance a family declares)."""

    gates: FeatureGates | None = None

    def for_gates(self, gates: FeatureGates) -> Any:
        bound = copy.copy(self)
        bound.gates = gates
        return bound


@functools.lru_cache(maxsize=256)
def _carried_fields(model: type[Resource]) -> tuple[str, ...]:
    """The fields a status write takes from the stored object: all but metadata and status (one
    tuple per model class, bounded: test suites define model classes of their own)."""
    return tuple(name for name in model.__pydantic_fields__ if name not in ("metadata", "status"))


class DefaultStrategy:
    """No defaulting, no validation beyond the API server's generic metadata checks."""

    has_status: bool = True
    # Whether the kind keeps ``metadata.generation``: 1 on create, +1 on each spec change. Upstream
    # each strategy's ``PrepareForCreate``/``PrepareForUpdate`` sets it, and many do not (ConfigMap,
    # Namespace, Node, Service, Event, Lease, PersistentVolumeClaim, ResourceClaim and its template,
    # scheduling.k8s.io Workload and PodGroup: their objects carry no generation at all); custom
    # resources always do (apiextensions-apiserver ``customResourceStrategy.PrepareForCreate``).
    has_generation: bool = True
    # The generation a create sets (when ``has_generation``): 1, or None for kinds whose upstream
    # ``PrepareForCreate`` sets none but whose ``PrepareForUpdate`` counts spec changes (CSIDriver).
    create_generation: int | None = 1
    # Whether an update is also checked with ``validate`` (the create rules) before
    # ``validate_update``. False for kinds whose upstream ``ValidateUpdate`` is a whole validation
    # of its own, relaxed against the old object (rules that bind only new objects, such as a
    # CronJob's name length or ``TZ=`` in its schedule): the server then runs ``validate_update``
    # alone, as k8s.io/apiserver ``rest.BeforeUpdate`` calls only ``ValidateUpdate``.
    update_revalidates: bool = True
    # ``AllowUnconditionalUpdate``: whether an update (main resource or status) may omit
    # ``metadata.resourceVersion`` and land on the latest object. False (a 422 "must be specified for
    # an update", k8s.io/apiserver ``pkg/registry/generic/registry/store.go`` Update) for kinds whose
    # upstream strategy says so, such as PodDisruptionBudget.
    allow_unconditional_update: bool = True
    # What a status write may not change beyond the non-status fields (see keep_status_reset_fields):
    # metadata fields kept from the stored object, and status fields it fills in when left empty.
    status_kept_meta: tuple[str, ...] = ()
    status_backfilled: tuple[str, ...] = ()
    status_condition_backfilled: tuple[str, ...] = ()

    def default(self, obj: Resource) -> None:
        return None

    def prepare_for_create(self, obj: Resource) -> None:
        if self.has_status and getattr(obj, "status", None) is not None:
            obj.status = None  # type: ignore[attr-defined]

    def prepare_for_update(self, new: Resource, old: Resource) -> None:
        if self.has_status and hasattr(new, "status"):
            new.status = old.status  # type: ignore[attr-defined]

    def prepare_for_status_update(self, new: Resource, old: Resource) -> None:
        # Every field but metadata and status comes from old, as a copy (new shares nothing with old);
        # only those fields are copied, not the whole of old.
        values, fields_set = new.__dict__, private_fields_set(new)
        for name in _carried_fields(type(new)):
            values[name] = copy_value(getattr(old, name))
            fields_set.add(name)

    def validate(self, obj: Resource) -> list[FieldError]:
        return []

    def validate_update(self, new: Resource, old: Resource) -> list[FieldError]:
        return []

    def validate_status_update(self, new: Resource, old: Resource) -> list[FieldError]:
        return []

    def warnings_on_create(self, obj: Resource) -> list[str]:
        """``WarningsOnCreate``: the ``Warning:`` texts of a create that passed validation."""
        return []

    def warnings_on_update(self, new: Resource, old: Resource) -> list[str]:
        """``WarningsOnUpdate`` of a main-resource update that passed validation (a status write's
        strategy answers none upstream)."""
        return []

    def spec_changed(self, new: Resource, old: Resource) -> bool:
        """Whether the specs differ as upstream's ``Semantic.DeepEqual`` sees them: for a built-in kind,
        an explicit empty value and the unset one are the same spec (:func:`kbatch.api.go_equal.go_equal`;
        a custom resource's spec is compared as written, as apiextensions-apiserver compares its JSON)."""
        spec_new = getattr(new, "spec", None)
        spec_old = getattr(old, "spec", None)
        if spec_new == spec_old:
            return False
        info = getattr(type(new), "api_info", None)
        tree = tree_of(info.api_version, info.kind) if info is not None else None
        return tree is None or not go_equal(spec_old, spec_new, tree.fields.get("spec"))


def keep_status_reset_fields(strategy: object, new: Resource, old: Resource) -> None:
    """The part of a kind's status-write preparation beyond "everything but status from old", declared
    by the strategy (upstream's status strategies set these in ``PrepareForUpdate`` and list them in
    ``GetResetFields``): each name in ``status_kept_meta`` is the stored object's metadata value (a
    copy: ``new`` shares nothing with ``old``), each in ``status_backfilled`` the stored status value
    when the write left it empty, each in ``status_condition_backfilled`` the stored condition's value
    when the write left it empty in the condition of that type (:func:`_backfill_conditions`). Run
    after mutating admission, as upstream prepares after it."""
    for name in getattr(strategy, "status_kept_meta", ()):
        value = getattr(old.metadata, name)
        if getattr(new.metadata, name) != value:
            setattr(new.metadata, name, copy_value(value))
    backfilled = getattr(strategy, "status_backfilled", ())
    status, before = getattr(new, "status", None), getattr(old, "status", None)
    if backfilled and status is not None and before is not None:
        for name in backfilled:
            if not getattr(status, name) and getattr(before, name):
                setattr(status, name, getattr(before, name))
    kept = getattr(strategy, "status_condition_backfilled", ())
    if kept and status is not None and before is not None:
        _backfill_conditions(kept, status, before)


def _backfill_conditions(names: tuple[str, ...], status: Any, before: Any) -> None:
    """Each condition of ``status`` that leaves one of ``names`` empty takes the value of the stored
    condition of its type; the n-th condition of a type matches the n-th stored one (validation
    allows repeated types). Upstream: ``preserveOldObservedGeneration`` in
    pkg/registry/core/pod/strategy.go. A condition still shared with the stored object is copied
    before it is changed."""
    conditions, stored = status.conditions, before.conditions
    if not conditions or not stored or all(all(map(attrgetter(n), conditions)) for n in names):
        return
    queues: dict[str, list[Any]] = {}
    for c in stored:
        queues.setdefault(c.type, []).append(c)
    if conditions is stored:
        conditions = status.conditions = list(conditions)
    for i, cond in enumerate(conditions):
        queue = queues.get(cond.type)
        prior = queue.pop(0) if queue else None
        if prior is None:
            continue
        for name in names:
            value = getattr(prior, name)
            if value and not getattr(cond, name):
                if any(cond is c for c in stored):
                    cond = conditions[i] = copy_value(cond)
                setattr(cond, name, value)
