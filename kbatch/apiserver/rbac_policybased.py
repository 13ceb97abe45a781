"""RBAC's policy-based storage in the API server's write path: the escalation check
(:mod:`kbatch.authz.escalation`) on every create and update of a Role, ClusterRole, RoleBinding or
ClusterRoleBinding made by a request that acts as someone (``pkg/registry/rbac/*/policybased/
storage.go`` wrap those four storages, for every request, in kube-apiserver).

Who the write acts as is the request's user, carried by the admission request
(:mod:`kbatch.apiserver.requester`). A write by ``system:masters`` — a request that impersonates no
one, the CLI, the library, the controllers — is not checked, as upstream's ``EscalationAllowed`` skips
it: the hook returns after a look at the user's groups, and it is installed for the four RBAC kinds
alone. The RBAC objects a checked write is judged against are read from the store at that moment; the
``escalate`` and ``bind`` questions go to the server's configured authorizer chain
(:attr:`~kbatch.apiserver.server.APIServer.authorizer`).

kbatch runs the check as a validating hook, after the kind's validation; upstream's storage runs it
before (an invalid object that would also escalate is a 422 here, a 403 upstream).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kbatch.api.rbac_v1 import ClusterRole, ClusterRoleBinding, Role, RoleBinding
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.stored_rbac import stored_rbac
from kbatch.authz.chain import is_privileged
from kbatch.authz.escalation import check

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["install"]


def _hook(server: APIServer) -> Callable[[AdmissionRequest], None]:
    def escalation_check(request: AdmissionRequest) -> None:
        user = request.user
        if is_privileged(user):
            return
        obj = request.obj
        old = request.old.to_dict() if request.old is not None else None
        name = obj.metadata.name or "" if request.operation == "UPDATE" else ""
        namespace = obj.metadata.namespace or ""
        error = check(type(obj).__name__, obj.to_dict(), old, user, namespace, name, stored_rbac(server),
                      server.authorizer)
        if error is not None:
            raise error

    return escalation_check


def install(server: APIServer) -> None:
    """Add the escalation check to ``server``'s validating admission, for the four RBAC kinds."""
    hook = _hook(server)
    for model in (Role, ClusterRole, RoleBinding, ClusterRoleBinding):
        server.admission.add_validating(model, hook, main_resource_only=True)
