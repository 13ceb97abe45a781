"""The Node authorizer's graph: which objects lead to which node (k8s.io/kubernetes
``plugin/pkg/auth/authorizer/node/graph.go``).

Every edge points toward a node::

    pod -> node                      (the pod is bound to it)
    secret, configmap, pvc, serviceaccount, resourceclaim -> pod
    pv -> pvc,  secret -> pv         (a bound volume and the secrets the kubelet reads for it)
    volumeattachment -> node,  resourceslice -> node

An edge into a pod or a node carries its *destination*, the node at the end of the chain; a walk from
an object toward node ``n`` follows only edges whose destination is ``n`` (or that have none: ``pv ->
pvc``, ``secret -> pv``), so a secret shared by pods on a thousand nodes is decided by looking at the
edges toward one. Removing a vertex also removes each neighbour left with no other edge (a secret no
remaining pod references is forgotten; a node with no pod left too).

Upstream also keeps, for vertices of more than 200 edges, an index of their destinations: a shortcut
that changes no answer, left out here. Vertices are keyed by (type, namespace, name); their numbers
are given in order of creation and decide nothing. Not thread-safe: the server feeds and reads it
from one thread.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CONFIGMAP", "NODE", "POD", "PV", "PVC", "RESOURCE_CLAIM", "RESOURCE_SLICE", "SECRET",
           "SERVICE_ACCOUNT", "VOLUME_ATTACHMENT", "NodeGraph", "Vertex"]

# vertex types, named as upstream's ``vertexTypes`` prints them
CONFIGMAP, RESOURCE_SLICE, NODE, POD = "configmap", "resourceslice", "node", "pod"
PVC, PV, RESOURCE_CLAIM, SECRET = "pvc", "pv", "resourceclaim", "secret"
VOLUME_ATTACHMENT, SERVICE_ACCOUNT = "volumeattachment", "serviceAccount"

Vertex = tuple[str, str, str]  # (type, namespace, name)


class NodeGraph:
    """Vertices and directed edges; ``has_path`` answers the authorizer's question."""

    def __init__(self) -> None:
        self._ids: dict[Vertex, int] = {}
        self._vertices: dict[int, Vertex] = {}
        self._out: dict[int, dict[int, int | None]] = {}  # from -> {to: destination node id}
        self._in: dict[int, set[int]] = {}  # to -> froms
        self._next = 0

    # -- vertices and edges ----------------------------------------------------------------------

    def _vertex(self, vertex: Vertex) -> int:
        found = self._ids.get(vertex)
        if found is not None:
            return found
        vid = self._next
        self._next += 1
        self._ids[vertex] = vid
        self._vertices[vid] = vertex
        self._out[vid] = {}
        self._in[vid] = set()
        return vid

    def _degree(self, vid: int) -> int:
        return len(self._out[vid]) + len(self._in[vid])

    def _edge(self, src: int, dst: int, destination: int | None) -> None:
        self._out[src][dst] = destination
        self._in[dst].add(src)

    def _remove(self, vid: int) -> None:
        for dst in self._out.pop(vid):
            self._in[dst].discard(vid)
        for src in self._in.pop(vid):
            self._out[src].pop(vid, None)
        del self._ids[self._vertices.pop(vid)]

    def _delete(self, vertex: Vertex) -> None:
        """``deleteVertexLocked``: the vertex, and each neighbour whose only edge was to or from it."""
        vid = self._ids.get(vertex)
        if vid is None:
            return
        lonely = [n for n in (*self._out[vid], *self._in[vid]) if self._degree(n) == 1]
        self._remove(vid)
        for n in lonely:
            if n in self._vertices:
                self._remove(n)

    # -- what the populator writes ---------------------------------------------------------------

    def add_pod(self, namespace: str, name: str, node: str, refs: Iterable[Vertex]) -> None:
        """``AddPod``: ``pod -> node`` and ``ref -> pod`` for each referenced object (a mirror pod is
        given none)."""
        self._delete((POD, namespace, name))
        pod = self._vertex((POD, namespace, name))
        node_id = self._vertex((NODE, "", node))
        self._edge(pod, node_id, node_id)
        for ref in refs:
            self._edge(self._vertex(ref), pod, node_id)

    def delete_pod(self, namespace: str, name: str) -> None:
        self._delete((POD, namespace, name))

    def add_pv(self, name: str, claim: tuple[str, str] | None, secrets: Iterable[tuple[str, str]]) -> None:
        """``AddPV``: ``pv -> pvc`` for a bound volume and ``secret -> pv`` for each secret the kubelet
        reads; no destination, since the claim's pod may not exist yet."""
        self._delete((PV, "", name))
        if claim is None:
            return
        pv = self._vertex((PV, "", name))
        self._edge(pv, self._vertex((PVC, claim[0], claim[1])), None)
        for namespace, secret in secrets:
            self._edge(self._vertex((SECRET, namespace, secret)), pv, None)

    def delete_pv(self, name: str) -> None:
        self._delete((PV, "", name))

    def add_to_node(self, vertex_type: str, name: str, node: str) -> None:
        """``AddVolumeAttachment``/``AddResourceSlice``: the cluster-scoped object -> its node."""
        self._delete((vertex_type, "", name))
        if node:
            vid, node_id = self._vertex((vertex_type, "", name)), self._vertex((NODE, "", node))
            self._edge(vid, node_id, node_id)

    def delete(self, vertex_type: str, name: str) -> None:
        self._delete((vertex_type, "", name))

    # -- what the authorizer reads ---------------------------------------------------------------

    def has_path(self, node: str, vertex: Vertex) -> bool:
        """``hasPathFrom``: a walk from ``vertex`` reaches ``node`` along edges toward it."""
        node_id, start = self._ids.get((NODE, "", node)), self._ids.get(vertex)
        if node_id is None or start is None:
            return False
        stack, seen = [start], {start}
        while stack:
            vid = stack.pop()
            if vid == node_id:
                return True
            for dst, destination in self._out[vid].items():
                if destination is not None:
                    if destination != node_id:
                        continue  # toward another node
                    return True
                if dst not in seen:
                    seen.add(dst)
                    stack.append(dst)
        return False

    def vertices(self) -> list[Vertex]:
        """Every vertex, sorted (for tests)."""
        return sorted(self._ids)

    def check_invariants(self) -> None:
        """Every edge is recorded at both of its ends, and every vertex in every index."""
        for src, outs in self._out.items():
            for dst in outs:
                assert src in self._in[dst], (self._vertices[src], self._vertices[dst])
        for dst, ins in self._in.items():
            for src in ins:
                assert dst in self._out[src]
        assert set(self._ids.values()) == set(self._vertices) == set(self._out) == set(self._in)
