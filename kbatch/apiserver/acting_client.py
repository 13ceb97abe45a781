"""A component's client: the in-process client whose writes are requested by that component's user.

Upstream each component talks to kube-apiserver with credentials of its own (kube-controller-manager's
``clientbuilder.NewDynamicClientBuilder`` per controller account, the scheduler's and each kubelet's
kubeconfig), so the request context of every write it makes carries its user (k8s.io/apiserver
``pkg/endpoints/request/context.go`` ``WithUser``) and admission sees it (``Attributes.GetUserInfo``).
:class:`ActingClient` is kbatch's counterpart: a :class:`~kbatch.apiserver.local.LocalClient` whose
write calls run :func:`~kbatch.apiserver.requester.run_as` its ``user``; reads are unchanged (kbatch
authorizes no in-process read, docs/rbac.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kbatch.apiserver.client import Applier, Binder, Client, Evictor, TokenRequester
from kbatch.apiserver.local import LocalClient
from kbatch.apiserver.requester import run_as
from kbatch.authz.user import UserInfo

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ActingClient"]

# Every LocalClient method that writes; reads are not wrapped.
_WRITES = ("create", "update", "patch", "apply", "apply_status", "delete", "update_status", "patch_status",
           "bind", "evict", "create_token")


class ActingClient(LocalClient):
    """Writes as ``user``; everything else as :class:`LocalClient`. The write methods are
    :class:`LocalClient`'s own, each run under :func:`run_as` (signatures inherited unchanged)."""

    def __init__(self, server: APIServer, user: UserInfo) -> None:
        super().__init__(server)
        self.user = user

    def __repr__(self) -> str:
        return f"ActingClient({self.user.name!r})"


def _acting(name: str) -> Callable[..., Any]:
    """``LocalClient.<name>`` under :func:`run_as`, looked up at each call (as ``super()`` would)."""
    @functools.wraps(getattr(LocalClient, name))
    def call(self: ActingClient, /, *args: Any, **kwargs: Any) -> Any:
        return run_as(self.user, getattr(LocalClient, name), self, *args, **kwargs)
    return call


for _name in _WRITES:
    setattr(ActingClient, _name, _acting(_name))

_: type[Client] = ActingClient
_b: type[Binder] = ActingClient
_e: type[Evictor] = ActingClient
_a: type[Applier] = ActingClient
_t: type[TokenRequester] = ActingClient
