"""Who the request being served is: the user the API server's admission attributes carry.

Upstream, the authentication filter (and the impersonation filter after it) puts the request's user
into the request context (k8s.io/apiserver ``pkg/endpoints/request/context.go`` ``WithUser``,
``UserFrom``); each handler builds the admission attributes with it (``pkg/endpoints/handlers/
create.go``, ``update.go``, ``patch.go``, ``delete.go``: ``admission.NewAttributesRecord(…, userInfo)``)
and plugins read it with ``Attributes.GetUserInfo`` (``pkg/admission/attributes.go``).

kbatch's request context is a context variable: ``kbatch serve`` runs each request's dispatch inside
:func:`acting_as` the user it authenticated or impersonates, and the API server reads
:func:`requester` when it builds an :class:`~kbatch.apiserver.admission.AdmissionRequest` (its
``user``). The control plane's components write as their own users
(:mod:`kbatch.apiserver.identities`): the controllers, the scheduler and the kubelets write through an
:class:`~kbatch.apiserver.acting_client.ActingClient` that runs each write :func:`run_as` its user, as
upstream each component's client carries its own credentials. Every other write outside a request —
the library's ``ControlPlane``, the CLI's local mode, the bootstrap — is the local administrator's,
:data:`LOCAL_ADMIN` (docs/rbac.md, "Who a request is").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from kbatch.authz.user import ALL_AUTHENTICATED, SYSTEM_PRIVILEGED_GROUP, UserInfo

__all__ = ["LOCAL_ADMIN", "acting_as", "as_control_plane", "requester", "run_as"]

P = ParamSpec("P")
R = TypeVar("R")

LOCAL_ADMIN = UserInfo("kubernetes-admin", (SYSTEM_PRIVILEGED_GROUP, ALL_AUTHENTICATED))
"""A request without credentials, the static ``--token``'s, and every in-process write (kubeadm's
admin client certificate names this user in ``system:masters``)."""

_REQUESTER: ContextVar[UserInfo] = ContextVar("kbatch_requester", default=LOCAL_ADMIN)


def requester() -> UserInfo:
    """The user of the request being served (:data:`LOCAL_ADMIN` outside any)."""
    return _REQUESTER.get()


@contextmanager
def acting_as(user: UserInfo) -> Iterator[None]:
    """Writes inside are requested by ``user`` (``request.WithUser``)."""
    token = _REQUESTER.set(user)
    try:
        yield
    finally:
        _REQUESTER.reset(token)


def run_as(user: UserInfo, fn: Callable[P, R], /, *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` requested by ``user``: :func:`acting_as` without a generator's cost
    (every controller write passes here)."""
    token = _REQUESTER.set(user)
    try:
        return fn(*args, **kwargs)
    finally:
        _REQUESTER.reset(token)


def as_control_plane() -> AbstractContextManager[None]:
    """Writes inside are the control plane's own, whoever's request is being served: the controllers
    a request's write wakes are not the request's user (each then writes as itself through its
    acting client); what no component claims is the local administrator's."""
    return acting_as(LOCAL_ADMIN)
