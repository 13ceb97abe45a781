"""The admission seam: ordered mutating and validating hooks, per kind or for every kind.

As kube-apiserver's admission chain (``staging/src/k8s.io/apiserver/pkg/admission``): mutating hooks run
after defaulting and may change the object in place; validating hooks run after the kind's validation
and may only reject (by raising a ``StatusError``, e.g. ``Forbidden`` or ``Invalid``). Hooks run in the
order they were added; hooks registered for every kind (``model=None``) and for one kind are interleaved
in that order, except that a validating hook added with ``last=True`` runs after every other:
kube-apiserver's plugin order (``pkg/kubeapiserver/options/plugins.go`` ``AllOrderedPlugins``) ends with
the webhooks and then ``ResourceQuota``, which must stay last because it charges the quota and may only
do so once every other plugin has let the request through. A mutating hook may ask for the chain's
second pass (upstream's reinvocation, ``admission/reinvocation.go``: MutatingAdmissionPolicy's
``reinvocationPolicy``) by returning a value: every mutating hook then runs once more, with the values
in ``AdmissionRequest.reinvocation``; there is no third pass. Add-ons such as a Kueue-style "create
suspended" or JobSet-style defaults would plug in here without touching the server (Kueue's and JobSet's
webhooks do).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from kbatch.api.meta import Resource
from kbatch.apiserver.requester import LOCAL_ADMIN
from kbatch.authz.user import UserInfo

__all__ = ["Admission", "AdmissionHook", "AdmissionRequest", "Operation"]

Operation = Literal["CREATE", "UPDATE", "DELETE"]


class AdmissionRequest(NamedTuple):
    """What a hook sees. ``obj`` is the server's private working copy (mutating hooks change it in
    place); ``old`` is the stored object for updates (do not mutate it). A DELETE (validating hooks
    added with ``deletes=True`` only) carries the stored object as both. Immutable; a named tuple
    rather than a frozen dataclass, whose per-field ``object.__setattr__`` made building one per write
    cost ~0.35 µs more."""

    operation: Operation
    obj: Resource
    old: Resource | None
    subresource: str = ""  # "" for the main resource, "status" for the status subresource
    dry_run: bool = False
    # the request's warning recorder (upstream ``warning.AddWarning``): a validating hook appends the
    # texts sent back as ``Warning`` headers (ValidatingAdmissionPolicy's ``Warn`` action); None
    # when the caller does not collect warnings
    warnings: list[str] | None = None
    # None in the mutating chain's first pass; in its second (``Admission.mutate``), what each hook
    # that asked for the second pass returned in the first, by hook
    reinvocation: Mapping[AdmissionHook, object] | None = None
    # who asked (upstream ``Attributes.GetUserInfo``): the write paths pass the request context's
    # user (:func:`kbatch.apiserver.requester.requester`)
    user: UserInfo = LOCAL_ADMIN


# a mutating hook returns None, or a value to ask for the chain's second pass; a validating one None
AdmissionHook = Callable[[AdmissionRequest], object]
# (kind the hook is for, or None for every kind; the hook; whether it ignores subresource writes)
_Entry = tuple["type[Resource] | None", AdmissionHook, bool]


class Admission:
    def __init__(self) -> None:
        self._mutating: list[_Entry] = []
        self._validating: list[_Entry] = []
        self._validating_last: list[_Entry] = []
        self._deleting: list[AdmissionHook] = []  # validating hooks that also judge deletes
        # (mutating?, model, subresource write?) -> the hooks that apply, in order; rebuilt after any add
        self._plans: dict[tuple[bool, type[Resource], bool, bool], tuple[AdmissionHook, ...]] = {}
        self._metadata_only: dict[tuple[type[Resource], bool], bool] = {}

    def add_mutating(self, model: type[Resource] | None, hook: AdmissionHook, *,
                     main_resource_only: bool = False) -> None:
        """Run ``hook`` on creates and updates of ``model`` (every kind when ``None``).
        ``main_resource_only``: not on writes to a subresource (upstream plugins such as
        DefaultTolerationSeconds and Priority return early for those)."""
        self._mutating.append((model, hook, main_resource_only))
        self._plans.clear()
        self._metadata_only.clear()

    def add_validating(self, model: type[Resource] | None, hook: AdmissionHook, *,
                       main_resource_only: bool = False, last: bool = False, deletes: bool = False) -> None:
        """``last``: after every other validating hook, whenever added (the ResourceQuota plugin).
        ``deletes``: also judge deletes of every kind (ValidatingAdmissionPolicy; upstream runs the
        validating chain as ``deleteValidation`` before a delete is decided)."""
        (self._validating_last if last else self._validating).append((model, hook, main_resource_only))
        if deletes:
            self._deleting.append(hook)
        self._plans.clear()

    def mutate(self, request: AdmissionRequest, *, kind_only: bool = False) -> None:
        """Run the mutating hooks; when one returns a value, run them all once more (the second pass),
        each seeing what the hooks that asked returned in ``request.reinvocation``. ``kind_only``: only
        the hooks added for the object's own model (not those for every kind: the create of a pod
        subresource, whose Binding or Eviction is never stored)."""
        plan = self._plan(True, type(request.obj), bool(request.subresource), kind_only)
        asked: dict[AdmissionHook, object] | None = None
        for hook in plan:
            state = hook(request)
            if state is not None:
                asked = asked or {}
                asked[hook] = state
        if asked:  # reinvoker.Admit: ShouldReinvoke → SetIsReinvoke and one more pass
            again = request._replace(reinvocation=asked)
            for hook in plan:
                hook(again)

    def validate(self, request: AdmissionRequest) -> None:
        for hook in self._plan(False, type(request.obj), bool(request.subresource)):
            hook(request)

    def validate_delete(self, request: AdmissionRequest) -> None:
        """Judge a DELETE (no mutating phase: there is no object to change)."""
        for hook in self._deleting:
            hook(request)

    def mutates_only_metadata(self, model: type[Resource], subresource: bool) -> bool:
        """Whether every mutating hook a write of ``model`` (to a subresource or not) runs declares
        that it changes nothing but ``metadata`` (a true ``admission_metadata_only`` attribute)."""
        key = (model, subresource)
        answer = self._metadata_only.get(key)
        if answer is None:
            answer = self._metadata_only[key] = all(
                getattr(hook, "admission_metadata_only", False) is True
                for hook in self._plan(True, model, subresource))
        return answer

    def _plan(self, mutating: bool, model: type[Resource], subresource: bool,
              kind_only: bool = False) -> tuple[AdmissionHook, ...]:
        """The hooks for a write of ``model`` (to a subresource or not), decided once."""
        key = (mutating, model, subresource, kind_only)
        plan = self._plans.get(key)
        if plan is None:
            entries = self._mutating if mutating else self._validating + self._validating_last
            plan = self._plans[key] = tuple(
                hook for target, hook, main_only in entries
                if (target is model or (target is None and not kind_only))
                and not (main_only and subresource))
        return plan
