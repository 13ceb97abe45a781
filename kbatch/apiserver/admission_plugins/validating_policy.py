"""The ValidatingAdmissionPolicy admission plugin (on by default, as in kube-apiserver since 1.30).

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/validating`` (``plugin.go``,
``dispatcher.go``) and ``policy/generic/policy_dispatcher.go`` (``CollectParams``). For every write
(create, update, and their subresources) and every delete (``object`` null, ``oldObject`` the stored
object) each policy whose ``matchConstraints`` match the request
is judged with each of its bindings whose ``matchResources`` also match: the binding's params
(none without ``paramKind``; the object ``paramRef`` names, or those its selector selects, in the
request's namespace unless ``paramRef.namespace`` says otherwise) feed the policy's expressions
(:mod:`.policy_evaluation`). A denial acts as the binding's ``validationActions`` say: ``Deny``
refuses the request with the first denial, ``Warn`` adds ``Validation failed for
ValidatingAdmissionPolicy 'p' with binding 'b': <message>`` to the response's warnings, ``Audit``
records nothing (kbatch has no audit log). A configuration error (params not found with ``Deny``,
an unknown ``paramKind``) follows the policy's ``failurePolicy``.

The refusal is upstream's ``admission.NewForbidden`` with the decision's reason:
``jobs.batch "pi" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request:
<message>``, reason ``Invalid`` (HTTP 422) unless the validation names another.

Policies and bindings are read from the store again only after it reports a change under their
prefixes (:class:`~kbatch.apiserver.watched_range.WatchedRange`), so a request costs one flag check
while no binding exists. Policies are judged in name order and bindings in name order
(upstream's order is its informer's); docs/admission-policy.md lists every difference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.cel.authz import authorizing
from kbatch.api.errors import StatusCause, StatusDetails, StatusError
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.policy_authorizer import authorizer_checker
from kbatch.apiserver.admission_plugins.policy_dispatch import matching_pairs
from kbatch.apiserver.admission_plugins.policy_evaluation import Decision, evaluate_policy
from kbatch.apiserver.admission_plugins.policy_matching import Attributes
from kbatch.apiserver.admission_plugins.policy_params import ParamError, collect_params
from kbatch.apiserver.admission_plugins.policy_request import (
    Stored,
    attributes,
    cel_object,
    request_variables,
)

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["REASON_CODES", "PolicyDenied", "ValidatingPolicyPlugin", "install"]

REASON_CODES = {"Unauthorized": 401, "Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413}


class PolicyDenied(StatusError):
    """The refusal (``admission.NewForbidden`` with the decision's reason and code)."""

    def __init__(self, message: str, reason: str, details: StatusDetails) -> None:
        super().__init__(message, details=details)
        self.reason, self.code = reason, REASON_CODES.get(reason, 422)


class ValidatingPolicyPlugin:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        self._policies = Stored(server, ValidatingAdmissionPolicy)
        self._bindings = Stored(server, ValidatingAdmissionPolicyBinding)

    def validate(self, request: AdmissionRequest) -> None:
        bindings = self._bindings.get()
        if not bindings:
            return
        attrs = attributes(self._server, request)
        denied: list[tuple[ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding | None, Decision]] = []
        pairs = matching_pairs(self._server, self._policies.get(), bindings, attrs)
        for policy, binding, config_error in pairs:
            if config_error is not None:  # addConfigError(err, definition, nil)
                if policy.spec.failure_policy != "Ignore":
                    denied.append(
                        (policy, None, Decision(True, f"failed to configure policy: {config_error}"))
                    )
                continue
            for decision in self._judge(policy, binding, request, attrs):
                if not decision.deny:
                    continue
                actions = binding.spec.validation_actions or []
                if "Deny" in actions:
                    denied.append((policy, binding, decision))
                if "Warn" in actions and request.warnings is not None:
                    text = (
                        f"Validation failed for ValidatingAdmissionPolicy '{policy.name}' with binding "
                        f"'{binding.name}': {decision.message}"
                    )
                    if text not in request.warnings:
                        request.warnings.append(text)
        if denied:
            raise _refusal(request, attrs, *denied[0])

    def _judge(
        self,
        policy: ValidatingAdmissionPolicy,
        binding: ValidatingAdmissionPolicyBinding,
        request: AdmissionRequest,
        attrs: Attributes,
    ) -> list[Decision]:
        try:
            params = collect_params(self._server, policy, binding, attrs.namespace)
        except ParamError as err:  # addConfigError: the failure policy decides
            if policy.spec.failure_policy == "Ignore":
                return []
            return [Decision(True, f"failed to configure binding: {err}")]
        data = request_variables(self._server, request, attrs)
        decisions: list[Decision] = []
        with authorizing(authorizer_checker(self._server)):
            for param in params:
                decisions.extend(evaluate_policy(policy, {**data, "params": cel_object(param)}))
        return decisions


def _refusal(
    request: AdmissionRequest,
    attrs: Attributes,
    policy: ValidatingAdmissionPolicy,
    binding: ValidatingAdmissionPolicyBinding | None,
    decision: Decision,
) -> PolicyDenied:
    """``admission.NewForbidden`` with the decision's reason and one cause (dispatcher.go)."""
    by = f" with binding '{binding.name}'" if binding is not None else ""
    why = f"ValidatingAdmissionPolicy '{policy.name}'{by} denied request: {decision.message}"
    info = type(request.obj).api_info
    resource = f"{info.plural}.{info.group}" if info.group else info.plural
    name = request.obj.metadata.name or request.obj.metadata.generate_name or "Unknown"
    details = StatusDetails(
        name=name, group=info.group or None, kind=info.plural, causes=[StatusCause(message=why)]
    )
    return PolicyDenied(f'{resource} "{name}" is forbidden: {why}', decision.reason, details)


def install(server: APIServer) -> None:
    if ValidatingAdmissionPolicyBinding not in server.registry:
        return
    server.admission.add_validating(None, ValidatingPolicyPlugin(server).validate, deletes=True)
