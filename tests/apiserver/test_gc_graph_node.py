"""The GC graph's node of a stored object is the same whether read from the decode cache's object or
parsed from the stored JSON (the collector takes the held object when there is one)."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import ConfigMap
from kbatch.api.meta import ObjectMeta, OwnerReference
from kbatch.apiserver.codec import encode
from kbatch.apiserver.gc_graph import Node
from kbatch.apiserver.kinds import Kind
from kbatch.families import builtin_registry

TEXT = st.sampled_from(["", "a", "b-1"])
FLAG = st.sampled_from([None, True, False])
REFS = st.fixed_dictionaries({"apiVersion": TEXT, "kind": TEXT, "name": TEXT, "uid": TEXT},
                             optional={"controller": FLAG, "blockOwnerDeletion": FLAG}
                             ).map(OwnerReference.model_validate)
METAS = st.builds(ObjectMeta, name=st.none() | TEXT, namespace=st.none() | TEXT, uid=st.none() | TEXT,
                  owner_references=st.none() | st.lists(REFS, max_size=3),
                  finalizers=st.none() | st.lists(TEXT, max_size=3),
                  deletion_timestamp=st.sampled_from([None, datetime(2026, 1, 1, tzinfo=UTC)]),
                  labels=st.none() | st.dictionaries(TEXT, TEXT, max_size=2))


@settings(max_examples=200, deadline=None)
@given(METAS)
def test_the_node_of_the_held_object_is_the_node_parsed_from_its_stored_form(meta: ObjectMeta) -> None:
    kind = Kind.of(builtin_registry().for_model(ConfigMap))
    obj = ConfigMap(metadata=meta)
    data = encode(obj)
    stored = ConfigMap.model_validate_json(data)  # what the decode cache holds for those bytes
    assert Node.of(b"k", kind, stored.metadata) == Node.parse(b"k", kind, data)
