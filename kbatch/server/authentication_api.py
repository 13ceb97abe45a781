"""``authentication.k8s.io/v1`` over HTTP: ``selfsubjectreviews`` (``kubectl auth whoami``), as
kube-apiserver serves it (Kubernetes 1.37 ``pkg/registry/authentication/selfsubjectreview/rest.go``):
create-only and never stored, the answer is who the request acts as, ``status.userInfo`` with the
user's name, uid, groups and extra (empty ones left out, as Go's ``omitempty``). The group is in
legacy and aggregated discovery. The ``creationTimestamp`` is the control plane's (virtual) now,
where upstream's is the wall clock. A request that impersonates no one is ``kubernetes-admin``
(docs/rbac.md). ``tokenreviews`` are not served (kbatch has no authenticator to ask).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api.errors import BadRequest, MethodNotAllowed
from kbatch.authz.user import UserInfo, user_info_wire
from kbatch.server.protobuf import PROTOBUF
from kbatch.server.routing import route_not_found

if TYPE_CHECKING:
    from kbatch.server.backend import Backend
    from kbatch.server.http import Request

__all__ = ["GROUP", "VERSION", "authentication_resource_list", "self_subject_review", "serve"]

Obj = dict[str, Any]
GROUP, VERSION = "authentication.k8s.io", "v1"


def authentication_resource_list() -> Obj:
    resources = [{"name": "selfsubjectreviews", "singularName": "selfsubjectreview", "namespaced": False,
                  "kind": "SelfSubjectReview", "verbs": ["create"]}]
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": f"{GROUP}/{VERSION}",
            "resources": resources}


def self_subject_review(user: UserInfo, now: str) -> Obj:
    """The answer to a SelfSubjectReview by ``user`` at ``now`` (RFC 3339)."""
    return {"kind": "SelfSubjectReview", "apiVersion": f"{GROUP}/{VERSION}",
            "metadata": {"creationTimestamp": now}, "status": {"userInfo": user_info_wire(user)}}


def serve(backend: Backend, req: Request, rest: list[str], caller: UserInfo) -> Obj:
    """The answer to ``req`` on ``/apis/authentication.k8s.io/v1/`` + ``rest``."""
    if not rest:
        return authentication_resource_list()
    if rest != ["selfsubjectreviews"]:
        raise route_not_found()
    if req.method != "POST":
        raise MethodNotAllowed("the server does not allow this method on the requested resource")
    if req.content_type != PROTOBUF and not isinstance(req.json(), dict):
        raise BadRequest("the body of the request was in an unknown format: not a SelfSubjectReview")
    return self_subject_review(caller, str(backend.clock()["now"]))
