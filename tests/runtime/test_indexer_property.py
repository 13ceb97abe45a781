"""The informer's indexes always equal a brute-force scan, whatever sequence of upserts/deletes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from kbatch.api.frozen import edit
from kbatch.runtime.cache.indexer import (
    BY_CONTROLLER_UID,
    BY_LABEL,
    BY_NAMESPACE,
    BY_NODE_NAME,
    BY_OWNER_UID,
    DEFAULT_INDEXERS,
    Indexer,
    object_key,
)
from kbatch.testing import make_pod

_op = st.tuples(st.sampled_from(["upsert", "delete"]), st.sampled_from(["a", "b", "c"]),
                st.sampled_from(["ns1", "ns2"]), st.sampled_from(["", "n1", "n2"]),
                st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from(["1", "2"]), max_size=2),
                st.lists(st.tuples(st.sampled_from(["u1", "u2"]), st.booleans()), max_size=2))
_Op = tuple[str, str, str, str, dict[str, str], list[tuple[str, bool]]]
_INDEXES = (BY_NAMESPACE, BY_LABEL, BY_NODE_NAME, BY_OWNER_UID, BY_CONTROLLER_UID)


class _Owner:
    api_version, kind = "batch/v1", "Job"

    def __init__(self, uid: str) -> None:
        self.metadata = type("Meta", (), {"name": f"job-{uid}", "uid": uid})()


@settings(max_examples=80, deadline=None)
@given(st.lists(_op, max_size=25), st.integers(0, 25))
def test_indexes_match_brute_force(ops: list[_Op], first_query: int) -> None:
    """Indexes are built on their first query (``first_query`` ops in), then maintained; an update
    whose index inputs compare equal skips recomputing them (indexer._INPUTS), which must agree."""
    indexer = Indexer()
    for step, (verb, name, ns, node, labels, owners) in enumerate(ops):
        if step == first_query:
            for index in _INDEXES:
                indexer.index_keys(index, "")
        builder = make_pod(name, namespace=ns)
        for k, v in labels.items():
            builder = builder.label(k, v)
        for uid, controller in owners:
            builder = builder.owner(_Owner(uid), controller=controller)
        if node:
            builder = builder.node(node)
        pod = builder.obj()
        if verb == "upsert":
            indexer.upsert(pod)
        else:
            indexer.delete(object_key(pod))
    objects = indexer.values()
    for index in _INDEXES:
        fn = DEFAULT_INDEXERS[index]
        values = {v for o in objects for v in fn(o)} | {"ns1", "x=1", "n1", "u1"}
        for value in values:
            expected = sorted(object_key(o) for o in objects if value in tuple(fn(o)))
            assert indexer.index_keys(index, value) == expected
        assert all(indexer._indices[index].values()), "no empty buckets are left behind"


def test_an_index_is_maintained_only_once_queried() -> None:
    """Writes pay only for the indexes a reader asked for; the first query builds from every object."""
    indexer = Indexer()
    indexer.upsert(make_pod("a", namespace="ns1").node("n1").obj())
    assert indexer._indices == {}
    assert indexer.index_keys(BY_NODE_NAME, "n1") == ["ns1/a"]
    indexer.upsert(make_pod("b", namespace="ns2").node("n1").obj())
    assert list(indexer._indices) == [BY_NODE_NAME]
    assert indexer.index_keys(BY_NODE_NAME, "n1") == ["ns1/a", "ns2/b"]
    assert indexer.index_keys(BY_NAMESPACE, "ns2") == ["ns2/b"]
    indexer.delete("ns2/b")
    assert indexer.index_keys(BY_NODE_NAME, "n1") == ["ns1/a"]
    assert indexer.index_keys(BY_NAMESPACE, "ns2") == []


_pods = st.tuples(st.sampled_from(["a", "b", "c"]),
                   st.dictionaries(st.sampled_from(["x", "y"]), st.sampled_from(["1", "2"]), max_size=2),
                   st.sampled_from(["", "n1"]), st.sampled_from(["Running", "Succeeded"]))


def _mutables(value: object) -> list[object]:
    """Every model, list and dict reachable from ``value``."""
    if isinstance(value, BaseModel):
        return [value, *(m for v in value.__dict__.values() for m in _mutables(v))]
    if isinstance(value, list):
        return [value, *(m for v in value for m in _mutables(v))]
    if isinstance(value, dict):
        return [value, *(m for v in value.values() for m in _mutables(v))]
    return []


@settings(max_examples=40, deadline=None)
@given(st.lists(_pods, min_size=1, max_size=8))
def test_edited_copies_equal_the_held_objects_and_share_nothing_mutable_with_the_cache(
        specs: list[tuple[str, dict[str, str], str, str]]) -> None:
    """Held objects share equal parts with each other (model_intern); an edited copy of one must not."""
    indexer = Indexer()
    for name, labels, node, phase in specs:
        builder = make_pod(name, namespace="ns").phase(phase).condition("Ready")
        for k, v in labels.items():
            builder = builder.label(k, v)
        indexer.upsert((builder.node(node) if node else builder).obj())
    held = {id(m) for obj in indexer.values() for m in _mutables(obj)}
    before = [obj.to_json() for obj in indexer.values()]
    for key in indexer.list_keys():
        obj = indexer.get(key)
        copy = edit(obj)
        assert copy == obj and copy.to_json() == obj.to_json()
        assert not [m for m in _mutables(copy) if id(m) in held]
        copy.spec.containers[0].image = "changed"
        copy.metadata.labels = {"z": "9"}
    assert [obj.to_json() for obj in indexer.values()] == before
