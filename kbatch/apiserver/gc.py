"""Garbage collection through ownerReferences, as an explicit, deterministic ``sync()``.

Upstream: ``pkg/controller/garbagecollector/garbagecollector.go`` (attemptToDeleteItem,
processDeletingDependentsItem, orphanDependents) and the "Garbage Collection" concept page:

* **Background**: an object all of whose owners are gone (absent, or present with another uid) is
  deleted; an object with at least one live owner is never deleted (references to gone owners are
  removed from it instead);
* **Foreground**: an owner carrying the ``foregroundDeletion`` finalizer waits; its dependents are
  deleted (themselves in the foreground when they have dependents), and the finalizer is removed once
  no dependent with ``blockOwnerDeletion: true`` remains — that update deletes the owner;
* **Orphan**: an owner carrying the ``orphan`` finalizer has its reference removed from every
  dependent, then the finalizer is removed;
* terminating namespaces are emptied and removed (see :mod:`kbatch.apiserver.namespaces`).

Incremental: one store watch over ``/registry/`` keeps an owner-uid → dependents index (see
:mod:`kbatch.apiserver.gc_graph`) and marks only the objects a change can affect as dirty, so
``sync`` is cheap when nothing changed and ``has_pending`` is a flag test. As upstream's graph builder
(``graph_builder.go`` ``processGraphChanges``), a dependent is looked at when it enters the graph or
its ``ownerReferences`` change, not on updates that keep them (a pod's status writes); its owners'
deletion, and their foreground or orphan finalizers, look at it again (``removeNode``,
``processTransitions``); an object being deleted is looked at on every change (kbatch; upstream on the
transitions alone, where nothing else happens). Writes go through the
server (with uid preconditions), so GC obeys every rule a client does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kbatch.api.errors import Conflict, NotFound, StatusError
from kbatch.api.frozen import edit
from kbatch.apiserver.client import Preconditions
from kbatch.apiserver.deletion import FOREGROUND, ORPHAN
from kbatch.apiserver.gc_graph import Graph, Node, Owner
from kbatch.apiserver.keys import REGISTRY_ROOT
from kbatch.apiserver.kinds import Kind
from kbatch.store.errors import CompactedError, WatchCancelledError
from kbatch.store.kv import EventType, KeyValue, Watcher, pending_batches, prefix_end

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["GarbageCollector", "InvalidOwnerReport"]

_MAX_ROUNDS = 10_000


InvalidOwnerReport = Callable[[Node, Owner], None]


class GarbageCollector:
    """``report(dependent, ref)``, when given, is told of each reference whose uid names a namespaced
    object in another namespace than the dependent's, as it is observed (the runtime turns it into
    upstream's ``OwnerRefInvalidNamespace`` Warning event on the dependent)."""

    def __init__(self, server: APIServer, *, report: InvalidOwnerReport | None = None) -> None:
        self._server = server
        self._report = report
        kinds = [server.kind(spec.model) for spec in server.registry]
        self._roots = {kind.keys.root: kind for kind in kinds}
        self._graph = Graph()
        self._dirty: set[bytes] = set()
        self._woken = False
        self._watcher: Watcher | None = None
        self._resync()

    # --- public ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop watching the store (the graph is rebuilt by a new collector)."""
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None

    def has_pending(self) -> bool:
        """True when a store change or unfinished work may need a write."""
        return self._woken or bool(self._dirty)

    def sync(self) -> int:
        """Perform every pending action until nothing is left; returns the number of writes."""
        writes = 0
        for _ in range(_MAX_ROUNDS):
            self._drain()
            if not self._dirty:
                return writes
            batch = sorted(self._dirty)
            self._dirty.clear()
            for key in batch:
                writes += self._process(key)
        return writes

    # --- feeding the graph ---------------------------------------------------------------------

    def _kind_of(self, key: bytes) -> Kind | None:
        """The kind whose key root is the longest prefix of ``key`` (roots end with ``/``: one dict
        lookup per ``/`` of the key, not a scan of every kind's root per write)."""
        found, roots = None, self._roots
        end = 0
        while (end := key.find(b"/", end) + 1) > 0:
            kind = roots.get(key[:end])
            if kind is not None:
                found = kind
        return found

    def _resync(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
        store = self._server.store
        result = store.range(REGISTRY_ROOT, prefix_end(REGISTRY_ROOT))
        self._graph = Graph()
        for kv in result.kvs:
            self._observe(kv)
        end = prefix_end(REGISTRY_ROOT)
        self._watcher = store.watch(REGISTRY_ROOT, end, start_revision=result.revision + 1)
        self._watcher.set_notify(self._wake)

    def _wake(self) -> None:
        self._woken = True

    def _drain(self) -> None:
        self._woken = False
        assert self._watcher is not None
        try:
            for events in pending_batches(self._watcher):
                for event in events:
                    if event.type is EventType.PUT:
                        self._observe(event.kv)
                    else:
                        self._forget(event.kv.key)
        except (CompactedError, WatchCancelledError):
            self._resync()

    def _touch_related(self, node: Node) -> None:
        """Mark what a change of ``node`` may affect: its dependents, its live owners, its namespace."""
        graph = self._graph
        for dep in graph.dependents.get(node.uid, ()):
            self._dirty.add(dep)
        self._touch_owners(node)
        ns = self._server.namespaces.kind
        if node.namespace and ns is not None:
            ns_key = ns.keys.key(None, node.namespace)
            ns_node = graph.nodes.get(ns_key)
            if ns_node is not None and ns_node.deleting:
                self._dirty.add(ns_key)

    def _touch_owners(self, node: Node) -> None:
        for ref in node.owners:
            owner = self._graph.owner_node(node, ref)
            if owner is not None and owner.deleting:
                self._dirty.add(owner.key)

    def _observe(self, kv: KeyValue) -> None:
        kind = self._kind_of(kv.key)
        if kind is None:
            return
        held = self._server.decoded.held(kv)
        node = (Node.parse(kv.key, kind, kv.value) if held is None
                else Node.of(kv.key, kind, held.metadata))
        old = self._graph.put(node)
        if self._report is not None:
            self._report_misplaced(node, old)
        fresh = old is None or old.uid != node.uid
        if old is not None and fresh:
            self._touch_related(old)
        elif old is not None and old.owners != node.owners:
            self._touch_owners(old)  # an owner this object no longer references may stop waiting
        changed_refs = fresh or (old is not None and old.owners != node.owners)
        if node.deleting or (node.owners and changed_refs):
            self._dirty.add(node.key)  # an update that keeps the references (a status write) is not
        self._touch_related(node)

    def _report_misplaced(self, node: Node, old: Node | None) -> None:
        """Report references that name a namespaced owner in another namespace: the node's newly
        added ones, and, when the node itself is newly observed, its dependents' references to it."""
        assert self._report is not None
        graph = self._graph
        known = {r.uid for r in old.owners} if old is not None and old.uid == node.uid else set()
        for ref in node.owners:
            if ref.uid not in known and graph.misplaced_owner(node, ref):
                self._report(node, ref)
        if old is not None and old.uid == node.uid:
            return
        for dep in graph.dependents_of(node.uid):
            for ref in dep.owners:
                if ref.uid == node.uid and graph.misplaced_owner(dep, ref):
                    self._report(dep, ref)

    def _forget(self, key: bytes) -> None:
        old = self._graph.remove(key)
        if old is not None:
            self._touch_related(old)

    # --- acting --------------------------------------------------------------------------------

    def _process(self, key: bytes) -> int:
        node = self._graph.nodes.get(key)
        if node is None:
            return 0
        try:
            if node.deleting and node.kind.is_namespace:
                return self._server.namespaces.finalize_one(node.name)
            if node.deleting and ORPHAN in node.finalizers:
                return self._orphan(node)
            if node.deleting and FOREGROUND in node.finalizers:
                return self._foreground(node)
            if node.owners and not node.deleting:
                return self._attempt_delete(node)
        except (Conflict, NotFound):
            self._dirty.add(key)  # raced with another writer: the watch brings the new state
        return 0

    def _remove_owner_refs(self, node: Node, uids: set[str]) -> int:
        server = self._server
        obj = server.get(node.kind.model, node.name, node.namespace)
        if obj.metadata.uid != node.uid:
            return 0
        refs = [r for r in obj.metadata.owner_references or () if r.uid not in uids]
        if len(refs) == len(obj.metadata.owner_references or ()):
            return 0
        obj = edit(obj)
        obj.metadata.owner_references = refs or None
        server.update(obj)
        return 1

    def _remove_finalizer(self, node: Node, finalizer: str) -> int:
        server = self._server
        obj = server.get(node.kind.model, node.name, node.namespace)
        if obj.metadata.uid != node.uid or finalizer not in (obj.metadata.finalizers or ()):
            return 0
        obj = edit(obj)
        obj.metadata.finalizers = [f for f in obj.metadata.finalizers or () if f != finalizer]
        server.update(obj)
        return 1

    def _orphan(self, owner: Node) -> int:
        writes = 0
        for dep in self._graph.dependents_of(owner.uid):
            # The orphaning owner was a live owner until now, so references to gone owners are dropped
            # with it (as attemptToDelete would have while it lived): the outcome does not depend on
            # the order in which owner and dependent are processed.
            gone = {r.uid for r in dep.owners if self._graph.owner_node(dep, r) is None}
            writes += self._remove_owner_refs(dep, {owner.uid} | gone)
        return writes + self._remove_finalizer(owner, ORPHAN)

    def _foreground(self, owner: Node) -> int:
        blocking = [d for d in self._graph.dependents_of(owner.uid)
                    if any(r.uid == owner.uid and r.block for r in d.owners)]
        if blocking:
            return 0  # the dependents are being deleted; their deletion marks this owner dirty again
        return self._remove_finalizer(owner, FOREGROUND)

    def _unresolvable(self, node: Node) -> bool:
        """True when a reference stops the collector from judging ``node`` at all (upstream
        ``garbagecollector.go`` isDangling / attemptToDeleteItem): a reference through an apiVersion
        and kind the server does not serve (a REST-mapping error: retried, never taken as a gone
        owner), or a cluster-scoped object referencing a namespaced kind
        (namespacedOwnerOfClusterScopedObjectErr: never deleted)."""
        for ref in node.owners:
            try:
                spec = self._server.registry.for_gvk(ref.api_version, ref.kind)
            except StatusError:
                return True
            if node.namespace is None and spec.info.namespaced:
                return True
        return False

    def _attempt_delete(self, node: Node) -> int:
        graph = self._graph
        if self._unresolvable(node):
            return 0
        solid, gone = False, set()
        waiting = False
        for ref in node.owners:
            owner = graph.owner_node(node, ref)
            if owner is None:
                gone.add(ref.uid)
            elif owner.deleting and FOREGROUND in owner.finalizers:
                waiting = True
                gone.add(ref.uid)
            else:
                solid = True
        if solid:
            return self._remove_owner_refs(node, gone) if gone else 0
        if waiting and graph.dependents.get(node.uid):
            policy = "Foreground"
        elif ORPHAN in node.finalizers:
            policy = "Orphan"
        elif FOREGROUND in node.finalizers:
            policy = "Foreground"
        else:
            policy = "Background"
        try:
            self._server.delete(node.kind.model, node.name, node.namespace, propagation_policy=policy,
                                preconditions=Preconditions(uid=node.uid))
        except StatusError as err:
            if isinstance(err, (Conflict, NotFound)):
                raise
            return 0
        return 1
