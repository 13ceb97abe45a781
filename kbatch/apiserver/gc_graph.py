"""The garbage collector's view of the object graph: who owns whom, built from stored metadata.

Upstream keeps the same structure in ``pkg/controller/garbagecollector/graph.go`` (nodes with owners
and dependents, fed by informers). Here it is fed by one store watch over every kind, and only the
metadata needed for GC is read: from the decode cache's object when it holds the stored version (a
write's own object, while an informer watches its kind), else parsed from the stored JSON (no model
validation).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import islice
from operator import attrgetter
from typing import Any

from pydantic_core import from_json

from kbatch.api.meta import ObjectMeta
from kbatch.apiserver.kinds import Kind

__all__ = ["Graph", "Node", "Owner"]


@dataclass(frozen=True, slots=True)
class Owner:
    uid: str
    api_version: str
    kind: str
    name: str
    block: bool

    @property
    def group(self) -> str:
        """The API group of ``api_version`` (``apps/v1`` → ``apps``, ``v1`` → the core group ``""``)."""
        return self.api_version.rpartition("/")[0]


@dataclass(frozen=True, slots=True)
class Node:
    key: bytes
    kind: Kind
    namespace: str | None
    name: str
    uid: str
    owners: tuple[Owner, ...]
    finalizers: tuple[str, ...]
    deleting: bool

    @staticmethod
    def parse(key: bytes, kind: Kind, value: bytes) -> Node:
        meta = from_json(value, cache_strings=False).get("metadata") or {}
        owners = tuple(Owner(r.get("uid", ""), r.get("apiVersion", ""), r.get("kind", ""), r.get("name", ""),
                             bool(r.get("blockOwnerDeletion")))
                       for r in meta.get("ownerReferences") or ())
        return Node(key, kind, meta.get("namespace"), meta.get("name", ""), meta.get("uid", ""), owners,
                    tuple(meta.get("finalizers") or ()), meta.get("deletionTimestamp") is not None)

    @staticmethod
    def of(key: bytes, kind: Kind, meta: ObjectMeta) -> Node:
        """:meth:`parse` of the stored value whose decoded object's metadata is ``meta`` (the stored JSON
        omits empty values, which the parse reads as ``""``; the object holds ``None`` for them)."""
        owners = tuple(Owner(r.uid or "", r.api_version or "", r.kind or "", r.name or "",
                             bool(r.block_owner_deletion))
                       for r in meta.owner_references or ())
        return Node(key, kind, meta.namespace, meta.name or "", meta.uid or "", owners,
                    tuple(meta.finalizers or ()), meta.deletion_timestamp is not None)


_OWNER_FIELDS = attrgetter("uid", "api_version", "kind", "name", "block")
_NODE_FIELDS = attrgetter("key", "kind", "namespace", "name", "uid", "finalizers", "deleting")


class Graph:
    """Nodes by key, keys by uid, dependents (keys) by owner uid."""

    def __init__(self) -> None:
        self.nodes: dict[bytes, Node] = {}
        self.by_uid: dict[str, bytes] = {}
        self.dependents: dict[str, set[bytes]] = {}

    # --- pickling (a saved control plane, docs/cli.md) -----------------------------------------------
    def __getstate__(self) -> tuple[Any, ...]:
        """The nodes as columns, their owners flattened (a count per node): a saved control plane has
        a node per object, several per pod, each otherwise a reduce tuple of its own
        (kbatch/runtime/pickling.py). Nodes and owners are frozen values: a load makes them again
        (equal owners as one object). The dependents' keys are written sorted: a set of bytes would be
        written in an order that follows the hash seed (tests/runtime/test_image_columns.py)."""
        nodes = list(self.nodes.values())
        columns = [list(c) for c in zip(*map(_NODE_FIELDS, nodes), strict=True)] if nodes else [[]] * 7
        owners = [_OWNER_FIELDS(o) for n in nodes for o in n.owners]
        return (columns, array("q", (len(n.owners) for n in nodes)),
                [list(c) for c in zip(*owners, strict=True)] if owners else [[]] * 5,
                self.by_uid, {uid: sorted(keys) for uid, keys in self.dependents.items()})

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        columns, counts, owner_columns, self.by_uid, dependents = state
        self.dependents = {uid: set(keys) for uid, keys in dependents.items()}
        shared: dict[Owner, Owner] = {}
        owners = iter([shared.setdefault(o, o) for o in map(Owner, *owner_columns)])
        keys, kinds, namespaces, names, uids, finalizers, deleting = columns
        self.nodes = {key: Node(key, kind, namespace, name, uid, tuple(islice(owners, count)), fins, gone)
                      for key, kind, namespace, name, uid, count, fins, gone
                      in zip(keys, kinds, namespaces, names, uids, counts, finalizers, deleting, strict=True)}

    def put(self, node: Node) -> Node | None:
        old = self.remove(node.key)
        self.nodes[node.key] = node
        self.by_uid[node.uid] = node.key
        for owner in node.owners:
            self.dependents.setdefault(owner.uid, set()).add(node.key)
        return old

    def remove(self, key: bytes) -> Node | None:
        old = self.nodes.pop(key, None)
        if old is None:
            return None
        if self.by_uid.get(old.uid) == key:
            del self.by_uid[old.uid]
        for owner in old.owners:
            deps = self.dependents.get(owner.uid)
            if deps is not None:
                deps.discard(key)
                if not deps:
                    del self.dependents[owner.uid]
        return old

    def owner_node(self, dependent: Node, ref: Owner) -> Node | None:
        """The live owner a reference points at: same uid, name, group and kind, in a scope it may own from
        (a namespaced dependent: same namespace or cluster-scoped owner; a cluster-scoped one:
        cluster-scoped owner only)."""
        key = self.by_uid.get(ref.uid)
        owner = self.nodes.get(key) if key is not None else None
        if owner is None or owner.name != ref.name or owner.kind.info.kind != ref.kind:
            return None
        if owner.kind.info.group != ref.group:
            return None  # upstream's isDangling reads the owner through the reference's apiVersion
        if owner.kind.info.namespaced and owner.namespace != dependent.namespace:
            return None
        return owner

    def misplaced_owner(self, dependent: Node, ref: Owner) -> bool:
        """True when ``ref``'s uid is a namespaced object in another namespace than ``dependent``'s
        (a cluster-scoped dependent included): upstream's graph builder reports this as
        ``OwnerRefInvalidNamespace`` (``graph_builder.go`` addDependentToOwners, processGraphChanges)."""
        key = self.by_uid.get(ref.uid)
        owner = self.nodes.get(key) if key is not None else None
        return (owner is not None and owner.kind.info.namespaced
                and owner.namespace != dependent.namespace)

    def dependents_of(self, uid: str) -> list[Node]:
        return [self.nodes[k] for k in sorted(self.dependents.get(uid, ()))]
