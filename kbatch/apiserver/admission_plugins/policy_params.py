"""The params a ValidatingAdmissionPolicyBinding or MutatingAdmissionPolicyBinding hands its policy.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_dispatcher.go``
(``CollectParams``). Without ``paramKind`` the policy runs once with ``params`` null; with one and
no ``paramRef`` on the binding, also once with null. ``paramRef.name`` reads that object,
``paramRef.selector`` lists the objects it selects (the policy runs once per object), in
``paramRef.namespace`` or, for a namespaced ``paramKind``, the request's namespace (a namespaced
kind for a cluster-scoped request is a configuration error). No object found: ``Deny`` is a
configuration error, ``Allow`` runs nothing. Any ``paramKind`` the server serves works (a ConfigMap,
a custom resource).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.admissionregistration_v1 import (
    MutatingAdmissionPolicy,
    MutatingAdmissionPolicyBinding,
    ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding,
)
from kbatch.api.errors import BadRequest, NotFound
from kbatch.api.selectors import selector_from_model

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ParamError", "collect_params", "param_kind_error"]


class ParamError(Exception):
    """A configuration error: the policy's failure policy decides."""


def param_kind_error(server: APIServer,
                     policy: ValidatingAdmissionPolicy | MutatingAdmissionPolicy) -> str | None:
    """The policy's configuration error when the server does not serve its ``paramKind``
    (``policy_source.go``: ``failed to find resource referenced by paramKind: '<gvk>'``, the
    GroupVersionKind printed as Go's ``group/version, Kind=kind``)."""
    kind = policy.spec.param_kind
    if kind is None:
        return None
    try:
        server.registry.for_gvk(kind.api_version, kind.kind)
    except BadRequest:
        group, _, version = kind.api_version.rpartition("/")
        return f"failed to find resource referenced by paramKind: '{group}/{version}, Kind={kind.kind}'"
    return None


def collect_params(
    server: APIServer,
    policy: ValidatingAdmissionPolicy | MutatingAdmissionPolicy,
    binding: ValidatingAdmissionPolicyBinding | MutatingAdmissionPolicyBinding,
    request_namespace: str,
) -> list[Any]:
    """The params objects (``[None]`` when the policy runs without)."""
    kind, ref = policy.spec.param_kind, binding.spec.param_ref
    if kind is None or ref is None:
        return [None]
    spec = server.registry.for_gvk(kind.api_version, kind.kind)  # known: param_kind_error first
    namespaced = spec.info.namespaced
    if ref.namespace and not namespaced:
        raise ParamError("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
    namespace = ref.namespace or (request_namespace if namespaced else None)
    if namespaced and not namespace:
        raise ParamError(
            "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"
        )
    params: list[Any]
    if ref.name:
        try:
            params = [server.get(spec.model, ref.name, namespace)]
        except NotFound:
            params = []
    else:
        selector = selector_from_model(ref.selector)
        items = server.list(spec.model, namespace).items
        params = sorted(
            (o for o in items if selector.matches(o.metadata.labels or {})),
            key=lambda o: (o.metadata.namespace or "", o.name),
        )
    if not params and ref.parameter_not_found_action == "Deny":
        raise ParamError("no params found for policy binding with `Deny` parameterNotFoundAction")
    return params
