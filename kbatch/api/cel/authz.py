"""The CEL authorizer library of admission policies: ``authorizer`` and ``authorizer.requestResource``.

Upstream: ``k8s.io/apiserver/pkg/cel/library/authz.go``. ``authorizer.group('apps').resource('deployments')
.namespace('ns').name('x').subresource('scale').check('update')`` and ``authorizer.path('/healthz')
.check('get')`` answer a ``Decision`` with ``allowed()``, ``reason()``, ``errored()`` and ``error()``;
``authorizer.serviceAccount('ns', 'sa')`` asks for that service account instead of the requester;
``authorizer.requestResource`` is the resource check of the request's own group, resource,
subresource, namespace and name.

The CEL runtime passes only protobuf messages through functions, so each type is a one-field message
(:mod:`.values`) whose text is the JSON of the check built so far; the type names are upstream's
(``kubernetes.authorization.Authorizer``, ``…PathCheck``, ``…GroupCheck``, ``…ResourceCheck``,
``…Decision``). ``check`` asks the :data:`Checker` the caller installed with :func:`authorizing` for
the evaluation (the API server's authorizer chain); with none, the decision is errored.

Differences (docs/admission-policy.md): no ``fieldSelector``/``labelSelector`` on a resource check.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["TYPES", "Checker", "authorizer_variables", "authorizing", "declarations"]

from kbatch.api.cel.values import AUTHZ_TYPES as TYPES

_PACKAGE = "kubernetes.authorization"

# a check (user, groups, verb, and the path or the group/resource/subresource/namespace/name) →
# (allowed, reason, error)
Checker = Callable[[Mapping[str, Any]], tuple[bool, str, str]]
_checker: contextvars.ContextVar[Checker | None] = contextvars.ContextVar("kbatch_cel_checker", default=None)


@contextlib.contextmanager
def authorizing(checker: Checker) -> Iterator[None]:
    """Evaluate expressions with ``checker`` answering their ``check`` calls."""
    token = _checker.set(checker)
    try:
        yield
    finally:
        _checker.reset(token)


def _message(type_name: str, fields: Mapping[str, Any]) -> Any:
    from google.protobuf import message_factory

    from kbatch.api.cel.values import pool

    cls = message_factory.GetMessageClass(pool().FindMessageTypeByName(f"{_PACKAGE}.{type_name}"))
    return cls(value=json.dumps(dict(fields), sort_keys=True))


def _fields(message: Any) -> dict[str, Any]:
    return json.loads(message.value)  # type: ignore[no-any-return]


def _with(type_name: str, key: str) -> Callable[[Any, str], Any]:
    def build(message: Any, value: str) -> Any:
        return _message(type_name, {**_fields(message), key: value})

    return build


def _service_account(message: Any, namespace: str, name: str) -> Any:
    """``serviceAccount``: the service account's user, as its token authenticates it."""
    groups = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"]
    return _message("Authorizer", {"user": f"system:serviceaccount:{namespace}:{name}", "groups": groups})


def _check(message: Any, verb: str) -> Any:
    request = {**_fields(message), "verb": verb,
               "resourceRequest": message.DESCRIPTOR.name == "ResourceCheck"}
    checker = _checker.get()
    if checker is None:
        return _message("Decision", {"allowed": False, "reason": "", "error": "no authorizer"})
    allowed, reason, error = checker(request)
    return _message("Decision", {"allowed": allowed, "reason": reason, "error": error})


def _decision(key: str) -> Callable[[Any], Any]:
    def read(message: Any) -> Any:
        return _fields(message)[key]

    return read


def declarations(decl: Callable[..., Any], T: Any) -> list[Any]:
    """The library's function declarations, made with :mod:`.library`'s ``decl`` helper."""
    A, P, G, R, D = (T(f"{_PACKAGE}.{name}") for name in TYPES)
    return [
        decl("path", ("authorizer_path", P, [A, T.STRING], True, _with("PathCheck", "path"))),
        decl("group", ("authorizer_group", G, [A, T.STRING], True, _with("GroupCheck", "group"))),
        decl("serviceAccount",
             ("authorizer_serviceaccount", A, [A, T.STRING, T.STRING], True, _service_account)),
        decl("resource", ("groupcheck_resource", R, [G, T.STRING], True, _with("ResourceCheck", "resource"))),
        decl("subresource",
             ("resourcecheck_subresource", R, [R, T.STRING], True, _with("ResourceCheck", "subresource"))),
        decl("namespace",
             ("resourcecheck_namespace", R, [R, T.STRING], True, _with("ResourceCheck", "namespace"))),
        decl("name", ("resourcecheck_name", R, [R, T.STRING], True, _with("ResourceCheck", "name"))),
        # one implementation for both: the runtime dispatches on kinds, and both are messages there
        decl("check", ("resourcecheck_check", D, [R, T.STRING], True, _check),
             ("pathcheck_check", D, [P, T.STRING], True, None)),
        decl("allowed", ("decision_allowed", T.BOOL, [D], True, _decision("allowed"))),
        decl("reason", ("decision_reason", T.STRING, [D], True, _decision("reason"))),
        decl("errored", ("decision_errored", T.BOOL, [D], True, lambda m: bool(_fields(m)["error"]))),
        decl("error", ("decision_error", T.STRING, [D], True, _decision("error"))),
    ]


def authorizer_variables(user: Mapping[str, Any], group: str, resource: str, subresource: str,
                         namespace: str, name: str) -> dict[str, Any]:
    """``authorizer`` (for ``user``, a ``request.userInfo``) and ``authorizer.requestResource``."""
    who = {"user": user.get("username", ""), "groups": list(user.get("groups") or ())}
    check = {**who, "group": group, "resource": resource, "subresource": subresource,
             "namespace": namespace, "name": name}
    return {"authorizer": _message("Authorizer", who),
            "authorizer.requestResource": _message("ResourceCheck", check)}
