"""The MutatingAdmissionPolicy admission plugin (on by default, as in kube-apiserver since 1.36).

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/mutating`` (``plugin.go``, ``dispatcher.go``,
``reinvocationcontext.go``), the generic ``policy_dispatcher.go`` it shares with the validating
plugin, and ``admission/reinvocation.go``. For every create and update of a main resource (and every
create of ``pods/binding`` and ``pods/eviction``, :mod:`kbatch.apiserver.subresource_admission`) each
policy whose ``matchConstraints`` match is invoked once per binding whose ``matchResources`` also
match and per param the binding selects (:mod:`.policy_params`), policies and bindings in name order:

1. variables are composed and the match conditions evaluated (one false: the invocation does
   nothing; an error: a policy error);
2. the mutations run in order, each on the object the previous one left
   (:mod:`.policy_mutation`); the result is decoded strictly and defaulted, as upstream's
   ``dispatchOne``; an error skips that mutation and is a policy error;
3. the object is written back into the request.

Policy errors follow the policy's ``failurePolicy``: ``Ignore`` drops them, ``Fail`` refuses the
request with the first one, ``policy 'p' with binding 'b' denied request: <error>`` (HTTP 403,
reason ``Invalid`` for an evaluation or patch error, ``Forbidden`` for a configuration error).

**Reinvocation.** Any mutation asks the admission chain for one second pass of every mutating
plugin (``SetShouldReinvoke``; :meth:`kbatch.apiserver.admission.Admission.mutate`). In that pass
only the invocations of ``reinvocationPolicy: IfNeeded`` policies run again, and only those invoked
before a later change: a later invocation of this plugin that changed the object, or another
plugin's change since this plugin last ran. There is no third pass, so reinvocation is bounded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding
from kbatch.api.base import private_fields_set
from kbatch.api.cel.authz import authorizing
from kbatch.api.errors import StatusCause, StatusDetails, StatusError
from kbatch.api.meta import Resource
from kbatch.api.policy_v1 import Eviction
from kbatch.api.wire_zeros_strip import without_wire_zeros
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.policy_authorizer import authorizer_checker
from kbatch.apiserver.admission_plugins.policy_dispatch import matching_pairs
from kbatch.apiserver.admission_plugins.policy_evaluation import compose_variables, match_conditions
from kbatch.apiserver.admission_plugins.policy_matching import Attributes
from kbatch.apiserver.admission_plugins.policy_mutation import MutationError, apply_mutation
from kbatch.apiserver.admission_plugins.policy_params import ParamError, collect_params
from kbatch.apiserver.admission_plugins.policy_request import (
    Stored,
    attributes,
    cel_object,
    request_variables,
    wire,
)
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.decoding import decode_dict

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["MutatingPolicyPlugin", "MutationDenied", "install"]

# (policy, binding, param namespace/name): one invocation (upstream ``key``)
_Key = tuple[str, str, str]


class MutationDenied(StatusError):
    """The refusal: ``admission.NewForbidden`` whose message and reason the first policy error set."""

    code = 403

    def __init__(self, message: str, reason: str, details: StatusDetails) -> None:
        super().__init__(message, details=details)
        self.reason = reason


@dataclass
class _Invocation:
    policy: MutatingAdmissionPolicy
    binding: MutatingAdmissionPolicyBinding
    param: Any

    @property
    def key(self) -> _Key:
        meta = getattr(self.param, "metadata", None)
        param = f"{meta.namespace or ''}/{meta.name}" if meta is not None else ""
        return self.policy.name, self.binding.name, param


@dataclass
class _PolicyError:
    policy: MutatingAdmissionPolicy
    binding: MutatingAdmissionPolicyBinding | None
    message: str
    reason: str = "Forbidden"

    def text(self) -> str:
        if self.binding is not None:
            by = f"policy '{self.policy.name}' with binding '{self.binding.name}'"
            return f"{by} denied request: {self.message}"
        return f'policy "{self.policy.name}" denied request: {self.message}'


@dataclass
class ReinvocationState:
    """``policyReinvokeContext``: what the plugin remembers between the chain's two passes."""

    last_output: Any = None  # the object's JSON form when this plugin last finished
    previously_invoked: set[_Key] = field(default_factory=set)  # IfNeeded invocations, not yet due
    reinvoke: set[_Key] = field(default_factory=set)  # the invocations due in the second pass

    def require_reinvoking_previously_invoked(self) -> None:
        self.reinvoke |= self.previously_invoked
        self.previously_invoked = set()


class MutatingPolicyPlugin:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        self._policies = Stored(server, MutatingAdmissionPolicy)
        self._bindings = Stored(server, MutatingAdmissionPolicyBinding)

    def admit(self, request: AdmissionRequest) -> ReinvocationState | None:
        """Mutate ``request.obj``; the state to hand back in the chain's second pass when a mutation
        asks for one (None otherwise)."""
        bindings = self._bindings.get()
        if not bindings:
            return None
        previous = request.reinvocation.get(self.admit) if request.reinvocation else None
        second_pass = isinstance(previous, ReinvocationState)
        state = previous if isinstance(previous, ReinvocationState) else ReinvocationState()
        if second_pass and state.last_output != wire(request.obj):
            state.require_reinvoking_previously_invoked()  # another plugin changed it since
        attrs = attributes(self._server, request)
        errors: list[_PolicyError] = []
        invocations = self._invocations(bindings, attrs, errors)
        with authorizing(authorizer_checker(self._server)):
            changed = bool(invocations) and self._dispatch(request, attrs, invocations, state, second_pass,
                                                           errors)
        state.last_output = wire(request.obj)
        failing = [e for e in errors if e.policy.spec.failure_policy != "Ignore"]
        if failing:
            raise _refusal(request, failing)
        return state if changed and not second_pass else None

    def _invocations(self, bindings: list[MutatingAdmissionPolicyBinding], attrs: Attributes,
                     errors: list[_PolicyError]) -> list[_Invocation]:
        """The (policy, binding, param) triples that match the request (generic ``Dispatch``)."""
        out: list[_Invocation] = []
        pairs = matching_pairs(self._server, self._policies.get(), bindings, attrs)
        for policy, binding, config_error in pairs:
            if config_error is not None:
                errors.append(_PolicyError(policy, None, f"failed to configure policy: {config_error}"))
                continue
            try:
                params = collect_params(self._server, policy, binding, attrs.namespace)
            except ParamError as err:
                errors.append(_PolicyError(policy, binding, f"failed to configure binding: {err}"))
                continue
            out.extend(_Invocation(policy, binding, param) for param in params)
        return out

    def _dispatch(self, request: AdmissionRequest, attrs: Attributes, invocations: list[_Invocation],
                  state: ReinvocationState, second_pass: bool, errors: list[_PolicyError]) -> bool:
        """Run the invocations (``dispatchInvocations``); whether any mutation was made."""
        group_kind = type(request.obj).api_info.group_kind  # a Binding or an Eviction has no Kind here
        current = cel_object(request.obj)  # what the expressions read and the patches apply to
        dirty = False
        for invocation in invocations:
            policy, key = invocation.policy, invocation.key
            data = request_variables(self._server, request, attrs, current)
            data["params"] = cel_object(invocation.param)
            failed = compose_variables(policy, data)
            matched = match_conditions(policy, data, failed)
            if isinstance(matched, str):
                errors.append(_PolicyError(policy, invocation.binding, matched, "Invalid"))
                continue
            if not matched or (second_pass and key not in state.reinvoke):
                continue
            before = current
            for mutation in policy.spec.mutations or ():
                try:
                    patched = apply_mutation(mutation, current, data, policy.spec.param_kind is not None,
                                             failed, group_kind)
                    current = self._decoded(type(request.obj), patched)
                except MutationError as err:
                    errors.append(_PolicyError(policy, invocation.binding, str(err), "Invalid"))
                    continue
                data["object"] = current
                dirty = True
            if current != before:
                state.require_reinvoking_previously_invoked()
            if policy.spec.reinvocation_policy == "IfNeeded":
                state.previously_invoked.add(key)
        if dirty:
            state.require_reinvoking_previously_invoked()
            model = type(request.obj)
            _replace(request.obj, decode_dict(model, without_wire_zeros(current, model))[0])
        return dirty

    def _decoded(self, model: type[Resource], patched: dict[str, Any]) -> dict[str, Any]:
        """The patched object decoded strictly and defaulted (``dispatchOne``), as the expressions
        read it again (Go's unset fields, which decode as absent, taken out first)."""
        try:
            obj, _ = decode_dict(model, without_wire_zeros(patched, model))
        except StatusError as err:
            raise MutationError(err.message) from None
        if model in self._server.registry:  # a Binding or an Eviction has no defaulting
            self._server.kind(model).strategy.default(obj)
        return cel_object(obj)  # type: ignore[no-any-return]


def _replace(target: Resource, source: Resource) -> None:
    """Make ``target`` (the request's working copy, which the chain goes on with) ``source``."""
    target.__dict__.clear()
    target.__dict__.update(source.__dict__)
    fields_set = private_fields_set(target)
    fields_set.clear()
    fields_set.update(source.model_fields_set)


def _refusal(request: AdmissionRequest, errors: list[_PolicyError]) -> MutationDenied:
    """``admission.NewForbidden`` with the message and reason of the first error, every error a cause."""
    info = type(request.obj).api_info
    name = request.obj.metadata.name or request.obj.metadata.generate_name or "Unknown"
    causes = [StatusCause(message=e.text()) for e in errors]
    details = StatusDetails(name=name, group=info.group or None, kind=info.plural, causes=causes)
    return MutationDenied(errors[0].text(), errors[0].reason, details)


def install(server: APIServer) -> None:
    if MutatingAdmissionPolicyBinding not in server.registry:
        return
    # main resource only: kbatch's status writes share the stored spec when every mutating hook changes
    # at most metadata (update.py ``_take_carried``); a policy could change anything, so it does not
    # run on status or other subresource writes (docs/admission-policy.md, "Differences") — but for the
    # creates of pods/binding and pods/eviction, whose objects are the subresource's own
    # (kbatch.apiserver.subresource_admission)
    admit = MutatingPolicyPlugin(server).admit
    server.admission.add_mutating(None, admit, main_resource_only=True)
    server.admission.add_mutating(Binding, admit)
    server.admission.add_mutating(Eviction, admit)
