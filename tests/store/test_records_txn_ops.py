"""The fast-built txn guard and put (kbatch.store.records) equal (and hash as) the constructor-built ones."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.store.kv import Compare, PutOp
from kbatch.store.records import make_compare, make_put


@given(st.binary(min_size=1, max_size=20), st.sampled_from(["version", "create", "mod"]),
       st.sampled_from(["=", "!=", "<", ">"]), st.integers(0, 2**63 - 1))
def test_make_compare_equals_the_constructor(key: bytes, target: str, op: str, value: int) -> None:
    built = Compare(key, target, op, value)  # type: ignore[arg-type]
    fast = make_compare(key, target, op, value)  # type: ignore[arg-type]
    assert fast == built and hash(fast) == hash(built) and repr(fast) == repr(built)


@given(st.binary(min_size=1, max_size=20), st.binary(max_size=50))
def test_make_put_equals_the_constructor(key: bytes, value: bytes) -> None:
    fast = make_put(key, value)
    assert fast == PutOp(key, value) and hash(fast) == hash(PutOp(key, value))


def test_fast_built_values_stay_immutable() -> None:
    with pytest.raises(AttributeError):
        make_put(b"k", b"v").value = b"w"  # type: ignore[misc]
