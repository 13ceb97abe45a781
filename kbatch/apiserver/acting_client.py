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

from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Status
from kbatch.api.meta import Resource
from kbatch.apiserver.client import (
    Applier,
    Binder,
    Client,
    Evictor,
    PatchType,
    Preconditions,
    PropagationPolicy,
)
from kbatch.apiserver.local import LocalClient
from kbatch.apiserver.requester import run_as
from kbatch.authz.user import UserInfo

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["ActingClient"]

T = TypeVar("T", bound=Resource)


class ActingClient(LocalClient):
    """Writes as ``user``; everything else as :class:`LocalClient`."""

    def __init__(self, server: APIServer, user: UserInfo) -> None:
        super().__init__(server)
        self.user = user

    def __repr__(self) -> str:
        return f"ActingClient({self.user.name!r})"

    def create(self, obj: T, *, dry_run: bool = False) -> T:
        return run_as(self.user, super().create, obj, dry_run=dry_run)

    def update(self, obj: T, *, dry_run: bool = False) -> T:
        return run_as(self.user, super().update, obj, dry_run=dry_run)

    def patch(self, kind: type[T], name: str, patch: Any, namespace: str | None = None, *,
              patch_type: PatchType = "merge", dry_run: bool = False) -> T:
        return run_as(self.user, super().patch, kind, name, patch, namespace, patch_type=patch_type,
                      dry_run=dry_run)

    def apply(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        return run_as(self.user, super().apply, obj, field_manager=field_manager, force=force,
                      dry_run=dry_run)

    def apply_status(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        return run_as(self.user, super().apply_status, obj, field_manager=field_manager, force=force,
                      dry_run=dry_run)

    def delete(self, kind: type[T], name: str, namespace: str | None = None, *,
               propagation_policy: PropagationPolicy | None = None, grace_period_seconds: int | None = None,
               preconditions: Preconditions | None = None, dry_run: bool = False) -> T | None:
        return run_as(self.user, super().delete, kind, name, namespace, propagation_policy=propagation_policy,
                      grace_period_seconds=grace_period_seconds, preconditions=preconditions, dry_run=dry_run)

    def update_status(self, obj: T, *, dry_run: bool = False) -> T:
        return run_as(self.user, super().update_status, obj, dry_run=dry_run)

    def patch_status(self, kind: type[T], name: str, patch: Any, namespace: str | None = None, *,
                     patch_type: PatchType = "merge", dry_run: bool = False) -> T:
        return run_as(self.user, super().patch_status, kind, name, patch, namespace, patch_type=patch_type,
                      dry_run=dry_run)

    def bind(self, pod_name: str, namespace: str | None, node_name: str, *, uid: str | None = None,
             annotations: dict[str, str] | None = None, dry_run: bool = False) -> Pod:
        return run_as(self.user, super().bind, pod_name, namespace, node_name, uid=uid,
                      annotations=annotations, dry_run=dry_run)

    def evict(self, pod_name: str, namespace: str | None, *, delete_options: dict[str, Any] | None = None,
              dry_run: bool = False) -> Status:
        return run_as(self.user, super().evict, pod_name, namespace, delete_options=delete_options,
                      dry_run=dry_run)


_: type[Client] = ActingClient
_b: type[Binder] = ActingClient
_e: type[Evictor] = ActingClient
_a: type[Applier] = ActingClient
