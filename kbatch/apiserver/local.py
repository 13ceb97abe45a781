"""The in-process implementation of :class:`kbatch.apiserver.client.Client` over an ``APIServer``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Status
from kbatch.api.meta import Resource, ResourceList
from kbatch.api.policy_v1 import Eviction
from kbatch.apiserver.binding import Binding
from kbatch.apiserver.client import (
    Applier,
    Binder,
    Client,
    Evictor,
    PatchType,
    Preconditions,
    PropagationPolicy,
    TokenRequester,
    WatchStream,
)

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["LocalClient"]

T = TypeVar("T", bound=Resource)


class LocalClient:
    """Calls go straight to the server. Objects passed in are never kept (the server works on a
    clone); objects handed out are shared and read only (:mod:`kbatch.api.frozen`: ``edit`` copies)."""

    # Lists, gets and watch events hand out the decoded cache's objects, whose nested parts were
    # interned when the cache took them (``DecodedCache.written``, a decode through ``shared``): an
    # informer over this client stores them without interning them again.
    interned_reads = True

    def __init__(self, server: APIServer) -> None:
        self.server = server

    def get(self, kind: type[T], name: str, namespace: str | None = None) -> T:
        return self.server.get(kind, name, namespace)

    def list(self, kind: type[T], namespace: str | None = None, *, label_selector: str | None = None,
             field_selector: str | None = None, limit: int | None = None, continue_: str | None = None,
             resource_version: str | None = None,
             resource_version_match: str | None = None) -> ResourceList[T]:
        return self.server.list(kind, namespace, label_selector=label_selector,
                                field_selector=field_selector, limit=limit, continue_=continue_,
                                resource_version=resource_version,
                                resource_version_match=resource_version_match)

    def create(self, obj: T, *, dry_run: bool = False) -> T:
        return self.server.create(obj, dry_run=dry_run)

    def update(self, obj: T, *, dry_run: bool = False) -> T:
        return self.server.update(obj, dry_run=dry_run)

    def patch(self, kind: type[T], name: str, patch: Any, namespace: str | None = None, *,
              patch_type: PatchType = "merge", dry_run: bool = False) -> T:
        return self.server.patch(kind, name, patch, namespace, patch_type=patch_type, dry_run=dry_run)

    def apply(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        """Server-side apply (:meth:`kbatch.apiserver.server.APIServer.apply`)."""
        return self.server.apply(obj, field_manager=field_manager, force=force, dry_run=dry_run)

    def apply_status(self, obj: T, *, field_manager: str, force: bool = False, dry_run: bool = False) -> T:
        """Server-side apply to the status subresource."""
        return self.server.apply(obj, field_manager=field_manager, force=force, status=True, dry_run=dry_run)

    def delete(self, kind: type[T], name: str, namespace: str | None = None, *,
               propagation_policy: PropagationPolicy | None = None, grace_period_seconds: int | None = None,
               preconditions: Preconditions | None = None, dry_run: bool = False) -> T | None:
        return self.server.delete(kind, name, namespace, propagation_policy=propagation_policy,
                                  grace_period_seconds=grace_period_seconds, preconditions=preconditions,
                                  dry_run=dry_run)

    def update_status(self, obj: T, *, dry_run: bool = False) -> T:
        return self.server.update_status(obj, dry_run=dry_run)

    def patch_status(self, kind: type[T], name: str, patch: Any, namespace: str | None = None, *,
                     patch_type: PatchType = "merge", dry_run: bool = False) -> T:
        return self.server.patch(kind, name, patch, namespace, patch_type=patch_type, status=True,
                                 dry_run=dry_run)

    def watch(self, kind: type[T], namespace: str | None = None, *, label_selector: str | None = None,
              field_selector: str | None = None, resource_version: str | None = None,
              allow_bookmarks: bool = False, send_initial_events: bool = False) -> WatchStream[T]:
        return self.server.watch(kind, namespace, label_selector=label_selector,
                                 field_selector=field_selector, resource_version=resource_version,
                                 allow_bookmarks=allow_bookmarks, send_initial_events=send_initial_events)

    def bind(self, pod_name: str, namespace: str | None, node_name: str, *, uid: str | None = None,
             annotations: dict[str, str] | None = None, dry_run: bool = False) -> Pod:
        binding = Binding.model_validate({
            "metadata": {"name": pod_name, "namespace": namespace, "uid": uid, "annotations": annotations},
            "target": {"kind": "Node", "name": node_name}})
        return self.server.bind(binding, namespace, dry_run=dry_run)

    def evict(self, pod_name: str, namespace: str | None, *, delete_options: dict[str, Any] | None = None,
              dry_run: bool = False) -> Status:
        eviction = Eviction.model_validate({"metadata": {"name": pod_name, "namespace": namespace},
                                            "deleteOptions": delete_options})
        return self.server.evict(pod_name, namespace or "default", eviction, dry_run=dry_run)

    def create_token(self, account: str, namespace: str | None, request: dict[str, Any]) -> dict[str, Any]:
        return self.server.create_token(namespace or "default", account, request)[0]


_: type[Client] = LocalClient  # structural check: LocalClient implements Client
_b: type[Binder] = LocalClient
_e: type[Evictor] = LocalClient
_a: type[Applier] = LocalClient
_t: type[TokenRequester] = LocalClient
