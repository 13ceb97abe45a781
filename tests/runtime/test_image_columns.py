"""The image's columns (kbatch/runtime/pickling.py, session 43): deferred objects, the timers, the
garbage collector's graph and the API server's held objects written as columns come back as the
objects they were (one object where there was one, cycles included), the bytes of a run's image do not
depend on the process, and the pickler's memo holds fewer entries per pod than one reduce per object
did (docs/performance.md, "Session 43: the image's save")."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.apiserver.gc_graph import Graph, Node, Owner
from kbatch.runtime.controlplane import ControlPlane
from kbatch.runtime.pickling import ImagePickler
from kbatch.runtime.timers import TimerQueue


def _round_trip(obj: Any) -> Any:
    out = io.BytesIO()
    ImagePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return pickle.loads(out.getvalue())


def _memo_entries(obj: Any) -> int:
    pickler = ImagePickler(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dump(obj)
    return len(pickler.memo.copy())


@dataclass(slots=True, eq=False)
class Cell:
    """A slotted object the pickler defers (identity hash): its state is written after the root."""

    name: str
    links: list[Cell] = field(default_factory=list)
    other: Any = None


@dataclass(slots=True)
class Run:  # a non-frozen dataclass: no __hash__, deferred too
    cell: Cell | None
    count: int = 0


# --- identity, sharing, cycles ------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))))
def test_a_graph_of_deferred_objects_comes_back_with_the_same_shape(
        case: tuple[int, list[tuple[int, int]]]) -> None:
    """Any graph of deferred objects (self-links and cycles included) loads as a graph of the same
    shape: one object per object, each link to the object it linked to."""
    n, edges = case
    cells = [Cell(f"c{i}") for i in range(n)]
    for a, b in edges:
        cells[a].links.append(cells[b])
    runs = [Run(cells[i % n], i) for i in range(n)]
    back_cells, back_runs = _round_trip((cells, runs))
    index = {id(c): i for i, c in enumerate(back_cells)}
    assert len(index) == n
    assert [[index[id(x)] for x in c.links] for c in back_cells] == [[b for a, b in edges if a == i]
                                                                      for i in range(n)]
    assert [(index[id(r.cell)], r.count) for r in back_runs] == [(i % n, i) for i in range(n)]


def test_a_model_reachable_from_two_places_loads_as_one_object() -> None:
    pod = Pod.from_dict({"metadata": {"name": "p", "namespace": "default", "labels": {"a": "b"}},
                         "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    holder = Cell("h", other=pod)
    back_holder, back_pod, back_meta = _round_trip((holder, pod, pod.metadata))
    assert back_holder.other is back_pod and back_pod.metadata is back_meta
    assert back_pod.to_dict() == pod.to_dict()
    assert back_pod.model_fields_set == pod.model_fields_set
    back_pod.metadata.labels = {"c": "d"}  # an ordinary model again: assignable, dumpable
    assert back_pod.to_dict()["metadata"]["labels"] == {"c": "d"}


def test_an_object_that_refers_to_itself_survives() -> None:
    cell = Cell("self")
    cell.links.append(cell)
    cell.other = Run(cell)
    back = _round_trip(cell)
    assert back.links[0] is back and back.other.cell is back


def test_datetimes_of_one_instant_load_as_one_object() -> None:
    a, b = datetime(2025, 1, 1, tzinfo=UTC), datetime(2025, 1, 1, tzinfo=UTC)
    other_zone = datetime(2025, 1, 1, 1, tzinfo=timezone(timedelta(hours=1)))  # the same instant
    naive = datetime(2025, 1, 1)
    back = _round_trip([a, b, other_zone, naive, a])
    assert back == [a, b, other_zone, naive, a]
    assert back[0] is back[1] is back[4] and back[2] is not back[0] and back[2].tzinfo == other_zone.tzinfo
    assert back[3].tzinfo is None


# --- the columns of runtime containers ----------------------------------------------------------------
class _Target:
    def __init__(self) -> None:
        self.fired: list[Any] = []

    def hit(self, arg: Any) -> None:
        self.fired.append(arg)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 1.5, 2.0, 7.0]), st.booleans(), st.booleans()), max_size=30),
       st.floats(0, 8))
def test_timers_come_back_in_the_order_they_fire(specs: list[tuple[float, bool, bool]], now: float) -> None:
    """A timer queue written as columns fires the same timers in the same order, its callbacks'
    objects the loaded ones (a bound method by its object and name)."""
    target = _Target()
    queue = TimerQueue()
    handles = [queue.schedule_call(at, target.hit, i, periodic=periodic)
               for i, (at, periodic, _) in enumerate(specs)]
    for handle, (_, _, cancel) in zip(handles, specs, strict=True):
        if cancel:
            queue.cancel(handle)
    queue.schedule_call(3.0, sorted, [2, 1])  # a plain function
    back_queue, back_target = _round_trip((queue, target))

    def drain(q: TimerQueue) -> list[tuple[float, int, Any]]:
        out = []
        while (timer := q.pop_due(now)) is not None:
            out.append((timer.deadline, timer.seq, timer.fire()))
        return out

    assert drain(back_queue) == drain(queue)
    assert back_target.fired == target.fired and back_target is not target
    assert (len(back_queue), back_queue.has_pending_work(), back_queue.next_deadline()) == (
        len(queue), queue.has_pending_work(), queue.next_deadline())


def test_the_gc_graph_comes_back_node_for_node() -> None:
    kind: Any = "a Kind"  # the graph only carries it
    graph = Graph()
    job = Node(b"/registry/jobs/default/j", kind, "default", "j", "u-j", (), ("f",), False)
    graph.put(job)
    for i in range(3):
        owners = (Owner("u-j", "batch/v1", "Job", "j", True),) if i else ()
        graph.put(Node(f"/registry/pods/default/p{i}".encode(), kind, "default", f"p{i}", f"u{i}", owners, (),
                       i == 2))
    back = _round_trip(graph)
    assert back.nodes == graph.nodes and list(back.nodes) == list(graph.nodes)
    assert back.by_uid == graph.by_uid and back.dependents == graph.dependents
    p1, p2 = back.nodes[b"/registry/pods/default/p1"], back.nodes[b"/registry/pods/default/p2"]
    assert p1.owners[0] is p2.owners[0]  # equal owners load as one object
    assert _round_trip(Graph()).nodes == {}


# --- a control plane: its bytes, its memo ---------------------------------------------------------------
def _pods_running(pods: int) -> ControlPlane:
    cp = ControlPlane()
    cp.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
              "status": {"capacity": {"cpu": "64", "memory": "256Gi", "pods": "500"}}})
    cp.apply({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
              "spec": {"completions": pods, "parallelism": pods, "completionMode": "Indexed",
                       "template": {"spec": {"restartPolicy": "Never", "containers": [
                           {"name": "main", "image": "busybox", "command": ["sleep", "60"],
                            "resources": {"requests": {"cpu": "10m"}}}]}}}})
    cp.advance(30)
    return cp


def _image_body(cp: ControlPlane) -> bytes:
    out = io.BytesIO()
    ImagePickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(cp)
    return out.getvalue()


_WRITE_IMAGE = """
import sys
sys.path.insert(0, {tests!r})
from test_image_columns import _image_body, _pods_running
cp = _pods_running(12)
data = _image_body(cp)
assert _image_body(cp) == data  # written twice
sys.stdout.buffer.write(data)
"""


def test_the_same_run_writes_the_same_bytes() -> None:
    """Determinism: the image of one run is the same bytes in two processes (other addresses, so
    other ids and memo order for anything keyed by identity), and when written twice. The hash seed
    is fixed: pickle writes a set's members in its iteration order, which for strings depends on it,
    before this encoding as with it. (Nor is a loaded image written again the same bytes, before as
    now: loading shares what the run held apart.)"""
    code = _WRITE_IMAGE.format(tests=str(Path(__file__).parent))
    images = [subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, timeout=600,
                             env={**os.environ, "PYTHONHASHSEED": "7"}).stdout for _ in range(2)]
    assert images[0] == images[1] and len(images[0]) > 100_000


def test_the_hash_seed_does_not_change_the_bytes() -> None:
    """Determinism across processes whatever their ``PYTHONHASHSEED``: pickle writes a set's members
    and a dict's keys in their order in memory, which for a set of strings (or a dict filled from
    one) depends on the seed; what the image stores is ordered without it (the kind registry's name
    table, the API server's and the pickler's sets)."""
    code = _WRITE_IMAGE.format(tests=str(Path(__file__).parent))
    images = [subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, timeout=600,
                             env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert len(images[0]) > 100_000
    assert images[0] == images[1], _first_difference(*images)


def _first_difference(a: bytes, b: bytes) -> str:
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"first differing byte {at} of {len(a)}/{len(b)}: {a[max(0, at - 60):at + 20]!r}"


def test_the_memo_holds_fewer_entries_per_pod_than_a_reduce_per_object() -> None:
    """Memory shape: what a pod adds to the pickler's memo (every object it keeps alive until the save
    ends). One reduce per object, the encoding before session 43, added 87 entries per running pod
    at this size (82 at 60 pods over 30); the columns ~63."""
    small, large = _memo_entries(_pods_running(30)), _memo_entries(_pods_running(60))
    per_pod = (large - small) / 30
    assert per_pod < 70, per_pod


def test_a_long_chain_of_deferred_objects_needs_no_deep_recursion() -> None:
    """A deferred object's state is written after the root, so a chain of them is written one link
    per chunk item, not one nested reduce per link (which ran into the recursion limit)."""
    head = Cell("0")
    cell = head
    for i in range(1, 20_000):
        cell.other = cell = Cell(str(i))
    back = _round_trip(head)
    names = []
    while back is not None:
        names.append(back.name)
        back = back.other
    assert names == [str(i) for i in range(20_000)]
