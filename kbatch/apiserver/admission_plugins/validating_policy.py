"""The ValidatingAdmissionPolicy admission plugin (on by default, as in kube-apiserver since 1.30).

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/validating`` (``plugin.go``,
``dispatcher.go``) and ``policy/generic/policy_dispatcher.go`` (``CollectParams``). For every write
(create, update, and their subresources) each policy whose ``matchConstraints`` match the request
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

import json
from typing import TYPE_CHECKING, Any

from kbatch.api.admissionregistration_v1 import ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding
from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import NotFound, StatusCause, StatusDetails, StatusError
from kbatch.api.meta import Resource
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.policy_evaluation import Decision, evaluate_policy
from kbatch.apiserver.admission_plugins.policy_matching import Attributes, match_resources
from kbatch.apiserver.admission_plugins.policy_params import ParamError, collect_params, param_kind_error
from kbatch.apiserver.watched_range import WatchedRange

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["PolicyDenied", "ValidatingPolicyPlugin", "install"]

# Who every request is to admission: kbatch's requester without impersonation (docs/rbac.md, "Who a
# request is"); admission does not see an impersonated user or a controller's own identity
_USER_INFO = {"username": "kubernetes-admin", "groups": ["system:masters", "system:authenticated"]}

_REASON_CODES = {"Unauthorized": 401, "Forbidden": 403, "Invalid": 422, "RequestEntityTooLarge": 413}


class PolicyDenied(StatusError):
    """The refusal (``admission.NewForbidden`` with the decision's reason and code)."""

    def __init__(self, message: str, reason: str, details: StatusDetails) -> None:
        super().__init__(message, details=details)
        self.reason, self.code = reason, _REASON_CODES.get(reason, 422)


def wire(obj: Resource | None) -> Any:
    """An object as the expressions read it: its JSON form (None stays null)."""
    return None if obj is None else json.loads(obj.to_json())


class _Stored:
    """The stored objects of one kind, read again after a change under their prefix."""

    def __init__(self, server: APIServer, model: type[Resource]) -> None:
        kind = server.kind(model)
        self._server, self._model = server, model
        self._start, self._end = kind.keys.prefix(None), kind.keys.range_end(None)
        self._range = WatchedRange(server.store, self._start, self._end)
        self._items: list[Any] = []

    def get(self) -> list[Any]:
        if self._range.changed:
            self._range.rearm()
            get = self._server.decoded.get
            self._items = [
                get(self._model, kv) for kv in self._server.store.range(self._start, self._end).kvs
            ]
        return self._items


class ValidatingPolicyPlugin:
    def __init__(self, server: APIServer) -> None:
        self._server = server
        self._policies = _Stored(server, ValidatingAdmissionPolicy)
        self._bindings = _Stored(server, ValidatingAdmissionPolicyBinding)

    def validate(self, request: AdmissionRequest) -> None:
        bindings = self._bindings.get()
        if not bindings:
            return
        policies = {p.name: p for p in self._policies.get()}
        attrs = _attributes(self._server, request)
        namespace_labels = _namespace_labels(self._server, attrs)
        denied: list[tuple[ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding | None, Decision]] = []
        for policy_name in sorted(policies):
            policy = policies[policy_name]
            if not match_resources(policy.spec.match_constraints, attrs, namespace_labels):
                continue
            config_error = param_kind_error(self._server, policy)
            if config_error is not None:  # addConfigError(err, definition, nil)
                if policy.spec.failure_policy != "Ignore":
                    denied.append(
                        (policy, None, Decision(True, f"failed to configure policy: {config_error}"))
                    )
                continue
            for binding in sorted(
                (b for b in bindings if b.spec.policy_name == policy_name), key=lambda b: b.name
            ):
                if not match_resources(binding.spec.match_resources, attrs, namespace_labels):
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
        data = _variables(self._server, request, attrs)
        decisions: list[Decision] = []
        for param in params:
            decisions.extend(evaluate_policy(policy, {**data, "params": wire(param)}))
        return decisions


def _attributes(server: APIServer, request: AdmissionRequest) -> Attributes:
    obj, old = request.obj, request.old
    info = type(obj).api_info
    versions = tuple(
        spec.info.version
        for spec in server.registry.served()
        if spec.info.group == info.group and spec.info.plural == info.plural
    )
    return Attributes(
        operation=request.operation,
        group=info.group,
        version=info.version,
        resource=info.plural,
        subresource=request.subresource,
        name=obj.metadata.name or "",
        namespace=obj.metadata.namespace or "",
        namespaced=info.namespaced,
        is_namespace_kind=isinstance(obj, Namespace),
        labels=obj.metadata.labels,
        old_labels=old.metadata.labels if old is not None else None,
        versions=versions,
    )


def _namespace(server: APIServer, attrs: Attributes) -> Namespace | None:
    if not attrs.namespaced or not attrs.namespace:
        return None
    try:
        return server.get(Namespace, attrs.namespace)
    except NotFound:
        return None


def _namespace_labels(server: APIServer, attrs: Attributes) -> dict[str, str] | None:
    ns = _namespace(server, attrs)
    return dict(ns.metadata.labels or {}) if ns is not None else None


def _variables(server: APIServer, request: AdmissionRequest, attrs: Attributes) -> dict[str, Any]:
    """``object``, ``oldObject``, ``request`` and ``namespaceObject`` (``cel.CreateAdmissionRequest``,
    ``cel.CreateNamespaceObject``)."""
    info = type(request.obj).api_info
    kind = {"group": info.group, "version": info.version, "kind": info.kind}
    resource = {"group": info.group, "version": info.version, "resource": info.plural}
    ns = wire(_namespace(server, attrs))
    if ns is not None:
        ns["metadata"].pop("managedFields", None)
    return {
        "object": wire(request.obj),
        "oldObject": wire(request.old),
        "request": {
            "kind": kind,
            "resource": resource,
            "subResource": attrs.subresource,
            "requestKind": kind,
            "requestResource": resource,
            "requestSubResource": attrs.subresource,
            "name": attrs.name,
            "namespace": attrs.namespace,
            "operation": attrs.operation,
            "userInfo": dict(_USER_INFO),
            "dryRun": request.dry_run,
        },
        "namespaceObject": ns,
        "variables": {},
    }


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
    server.admission.add_validating(None, ValidatingPolicyPlugin(server).validate)
