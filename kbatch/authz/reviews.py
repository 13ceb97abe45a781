"""authorization.k8s.io/v1 reviews: ask the authorizer about a request without making it
(Kubernetes 1.37 ``pkg/registry/authorization/{selfsubjectaccessreview,subjectaccessreview,
localsubjectaccessreview,selfsubjectrulesreview}/rest.go``, validation
``pkg/apis/authorization/validation/validation.go``, attributes
``pkg/registry/authorization/util/helpers.go``).

* **SelfSubjectAccessReview**: may the caller do ``spec.resourceAttributes`` (or
  ``spec.nonResourceAttributes``)?
* **SubjectAccessReview**: may ``spec.user``/``spec.groups`` do it (the groups as given: nothing is
  added)?
* **LocalSubjectAccessReview**: the same, in the path's namespace, which
  ``spec.resourceAttributes.namespace`` must name.
* **SelfSubjectRulesReview**: the rules that apply to the caller in ``spec.namespace`` (the RBAC rule
  resolver's: no rules from the ``system:masters`` authorizer).

Each is create-only and never stored: the answer is the request's object with a ``status``. Review
``review(kind, body, path_namespace, caller, snapshot)`` is pure; the HTTP side is
:mod:`kbatch.server.authorization_api`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbatch.api.errors import BadRequest, FieldError, Invalid
from kbatch.api.selectors import FieldRequirement, parse_field_selector
from kbatch.authz import chain, rbac
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.selector_attributes import selector_errors
from kbatch.authz.user import Attributes, UserInfo, node_identity

__all__ = ["ACCESS_REVIEWS", "GROUP", "NODE_RULES_ERROR", "VERSION", "attributes", "field_requirements",
           "review"]

GROUP, VERSION = "authorization.k8s.io", "v1"
ACCESS_REVIEWS = ("SelfSubjectAccessReview", "SubjectAccessReview", "LocalSubjectAccessReview")
Obj = dict[str, Any]
NODE_RULES_ERROR = "node authorizer does not support user rule resolution"


def _spec_errors(kind: str, spec: Mapping[str, Any]) -> list[FieldError]:
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    errors = []
    if resource is not None and non_resource is not None:
        errors.append(FieldError.invalid("spec.nonResourceAttributes", non_resource,
                                         "cannot be specified in combination with resourceAttributes"))
    if resource is None and non_resource is None:
        errors.append(FieldError.invalid("spec.resourceAttributes", None,
                                         "exactly one of nonResourceAttributes or resourceAttributes "
                                         "must be specified"))
    if kind != "SelfSubjectAccessReview" and not spec.get("user") and not spec.get("groups"):
        errors.append(FieldError.invalid("spec.user", spec.get("user") or "",
                                         "at least one of user or group must be specified"))
    return errors + selector_errors(resource, "spec.resourceAttributes")


def _meta_errors(kind: str, body: Mapping[str, Any]) -> list[FieldError]:
    meta = {k: v for k, v in (body.get("metadata") or {}).items()
            if v not in (None, "", {}, []) and k != "managedFields"}
    if kind == "LocalSubjectAccessReview":
        meta.pop("namespace", None)
        if meta:
            return [FieldError.invalid("metadata", body.get("metadata"),
                                       "must be empty except for namespace")]
        return []
    return [FieldError.invalid("metadata", body.get("metadata"), "must be empty")] if meta else []


def _local_errors(body: Mapping[str, Any]) -> list[FieldError]:
    spec = body.get("spec") or {}
    namespace = (body.get("metadata") or {}).get("namespace") or ""
    errors = []
    resource = spec.get("resourceAttributes")
    if resource is not None and (resource.get("namespace") or "") != namespace:
        errors.append(FieldError.invalid("spec.resourceAttributes.namespace", resource.get("namespace") or "",
                                         "must match metadata.namespace"))
    if spec.get("nonResourceAttributes") is not None:
        errors.append(FieldError.invalid("spec.nonResourceAttributes", spec["nonResourceAttributes"],
                                         "disallowed on this kind of request"))
    return errors


def _subject(kind: str, spec: Mapping[str, Any], caller: UserInfo) -> UserInfo:
    if kind == "SelfSubjectAccessReview":
        return caller
    extra = spec.get("extra") or {}
    return UserInfo(spec.get("user") or "", tuple(spec.get("groups") or ()), spec.get("uid") or "",
                    tuple((k, tuple(_values(v))) for k, v in sorted(extra.items())))


def _values(value: Any) -> list[str]:
    """An ``ExtraValue``: a JSON list, or the ``{"items": [...]}`` a protobuf body decodes to."""
    return list(value.get("items") or ()) if isinstance(value, dict) else list(value or ())


_SINGLE_VALUE_OPERATORS = {"In": "=", "NotIn": "!="}


def field_requirements(selector: Mapping[str, Any] | None) -> tuple[FieldRequirement, ...]:
    """A review's ``fieldSelector`` as the authorizer reads it (``ResourceAttributesFrom``,
    ``fieldSelectorAsSelector``): a ``rawSelector`` parsed, or ``requirements`` each ``In`` or ``NotIn``
    with exactly one value; anything else (several values, ``Exists``, an unknown operator, a raw
    selector that does not parse) is a parsing error, and the authorizer sees no requirement."""
    if not selector:
        return ()
    if selector.get("rawSelector"):
        try:
            return parse_field_selector(selector["rawSelector"]).requirements
        except BadRequest:
            return ()
    out = []
    for req in selector.get("requirements") or ():
        values = list(req.get("values") or ())
        operator = _SINGLE_VALUE_OPERATORS.get(req.get("operator") or "")
        if operator is None or len(values) != 1:
            return ()
        out.append(FieldRequirement(req.get("key") or "", operator, values[0]))  # type: ignore[arg-type]
    return tuple(out)


def attributes(user: UserInfo, spec: Mapping[str, Any]) -> Attributes:
    """``AuthorizationAttributesFrom``/``ResourceAttributesFrom``/``NonResourceAttributesFrom``."""
    resource = spec.get("resourceAttributes")
    if resource is not None:
        return Attributes(user, resource.get("verb") or "", namespace=resource.get("namespace") or "",
                          api_group=resource.get("group") or "", api_version=resource.get("version") or "",
                          resource=resource.get("resource") or "",
                          subresource=resource.get("subresource") or "", name=resource.get("name") or "",
                          field_selector=field_requirements(resource.get("fieldSelector")))
    non_resource = spec.get("nonResourceAttributes") or {}
    return Attributes(user, non_resource.get("verb") or "", resource_request=False,
                      path=non_resource.get("path") or "")


def _access_review(kind: str, body: Obj, path_namespace: str | None, caller: UserInfo,
                   snapshot: RbacSnapshot, node: NodeAuthorizer | None) -> Obj:
    spec = body.get("spec") or {}
    errors = _spec_errors(kind, spec) + _meta_errors(kind, body)
    if kind == "LocalSubjectAccessReview":
        errors += _local_errors(body)
    if errors:
        raise Invalid.of(f"{kind}.{GROUP}", "", errors)
    if kind == "LocalSubjectAccessReview":
        namespace = (body.get("metadata") or {}).get("namespace") or ""
        if not path_namespace:
            raise BadRequest(f"namespace is required on this type: {path_namespace or ''}")
        if path_namespace != namespace:
            raise BadRequest(f"spec.resourceAttributes.namespace must match namespace: {path_namespace}")
    decision = chain.authorize(attributes(_subject(kind, spec, caller), spec), snapshot, node)
    status: Obj = {"allowed": decision.allowed}
    if decision.reason:
        status["reason"] = decision.reason
    return {**_envelope(kind, body), "spec": spec, "status": status}


def _envelope(kind: str, body: Mapping[str, Any]) -> Obj:
    meta = {k: v for k, v in (body.get("metadata") or {}).items() if v not in (None, "", {}, [])}
    return {"kind": kind, "apiVersion": f"{GROUP}/{VERSION}", "metadata": {**meta, "creationTimestamp": None}}


def _rules_review(body: Obj, caller: UserInfo, snapshot: RbacSnapshot, node: NodeAuthorizer | None) -> Obj:
    namespace = (body.get("spec") or {}).get("namespace") or ""
    if not namespace:
        raise BadRequest("no namespace on request")
    rules, error = rbac.rules_for(caller, namespace, snapshot)
    incomplete = node is not None and node_identity(caller)[1]
    if incomplete:  # the Node authorizer's RulesFor: a node's permissions are not enumerated; the
        # union's aggregate of its resolvers' errors (k8s.io/apiserver ``union.go`` ``RulesFor``)
        error = f"[{NODE_RULES_ERROR}, {error}]" if error else NODE_RULES_ERROR
    resource_rules = [_pick(r, "verbs", "apiGroups", "resources", "resourceNames")
                      for r in rules if r.get("resources")]
    non_resource_rules = [_pick(r, "verbs", "nonResourceURLs") for r in rules if r.get("nonResourceURLs")]
    status: Obj = {"resourceRules": resource_rules, "nonResourceRules": non_resource_rules,
                   "incomplete": incomplete}
    if error:
        status["evaluationError"] = error
    return {"kind": "SelfSubjectRulesReview", "apiVersion": f"{GROUP}/{VERSION}",
            "metadata": {"creationTimestamp": None}, "spec": {}, "status": status}


def _pick(rule: Mapping[str, Any], *keys: str) -> Obj:
    out: Obj = {"verbs": list(rule.get("verbs") or ())}
    out.update({k: list(rule[k]) for k in keys[1:] if rule.get(k)})
    return out


def review(kind: str, body: Obj, path_namespace: str | None, caller: UserInfo,
           snapshot: RbacSnapshot, node: NodeAuthorizer | None = None) -> Obj:
    """The answer to creating the review ``body`` of ``kind`` as ``caller``; ``node``: the Node
    authorizer when it is among the modes."""
    if kind == "SelfSubjectRulesReview":
        return _rules_review(body, caller, snapshot, node)
    return _access_review(kind, body, path_namespace, caller, snapshot, node)
