"""RBAC's policy-based storage in the API server's write path: the escalation check
(:mod:`kbatch.authz.escalation`) on every create and update of a Role, ClusterRole, RoleBinding or
ClusterRoleBinding made by a request that acts as someone (``pkg/registry/rbac/*/policybased/
storage.go`` wrap those four storages, for every request, in kube-apiserver).

Who the write acts as is the request's business, not the object's: the HTTP front end runs an
impersonated request inside :func:`acting_as`, which names the user and how to read the RBAC objects
at that moment. A write made outside it (a request that impersonates no one, the CLI, the
controllers) is ``system:masters``', for which upstream's ``EscalationAllowed`` skips the check: the
hook returns after reading one context variable, and it is installed for the four RBAC kinds alone.
The controllers a request's write runs (``Backend.settle``, a clock advance) write as the control plane
(:func:`as_control_plane`).

kbatch runs the check as a validating hook, after the kind's validation; upstream's storage runs it
before (an invalid object that would also escalate is a 422 here, a 403 upstream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.authz.escalation import check
from kbatch.authz.rbac import RbacSnapshot
from kbatch.authz.user import UserInfo

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["acting_as", "as_control_plane", "install"]

Snapshot = Callable[[], RbacSnapshot]
_ACTING: ContextVar[tuple[UserInfo, Snapshot] | None] = ContextVar("kbatch_acting_user", default=None)


@contextmanager
def acting_as(user: UserInfo | None, snapshot: Snapshot) -> Iterator[None]:
    """Writes inside are made by ``user`` (``None``: by ``system:masters``, nothing checked), against
    the RBAC objects ``snapshot()`` reads."""
    if user is None:
        yield
        return
    token = _ACTING.set((user, snapshot))
    try:
        yield
    finally:
        _ACTING.reset(token)


@contextmanager
def as_control_plane() -> Iterator[None]:
    """Writes inside are the control plane's own (the controllers a request's write wakes, as
    kube-controller-manager's writes are its own), whoever's request is being served."""
    token = _ACTING.set(None)
    try:
        yield
    finally:
        _ACTING.reset(token)


def _hook(request: AdmissionRequest) -> None:
    acting = _ACTING.get()
    if acting is None:
        return
    user, snapshot = acting
    obj = request.obj
    old = request.old.to_dict() if request.old is not None else None
    name = obj.metadata.name or "" if request.operation == "UPDATE" else ""
    namespace = obj.metadata.namespace or ""
    error = check(type(obj).__name__, obj.to_dict(), old, user, namespace, name, snapshot())
    if error is not None:
        raise error


def install(server: APIServer) -> None:
    """Add the escalation check to ``server``'s validating admission, for the four RBAC kinds."""
    for model in (Role, ClusterRole, RoleBinding, ClusterRoleBinding):
        server.admission.add_validating(model, _hook, main_resource_only=True)
