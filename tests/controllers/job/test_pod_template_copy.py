"""``json_copy``: the template copy behind every created pod equals a deep copy and shares nothing."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st

from kbatch.controllers.job.pod_template import json_copy

_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)
_json = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=30)


@given(_json)
def test_json_copy_equals_deepcopy(value: object) -> None:
    assert json_copy(value) == copy.deepcopy(value)


def test_json_copy_shares_no_container() -> None:
    template = {"spec": {"containers": [{"name": "main", "env": []}]}, "t": (1, [2])}
    copied = json_copy(template)
    copied["spec"]["containers"][0]["env"].append({"name": "X"})
    copied["t"][1].append(3)
    assert template == {"spec": {"containers": [{"name": "main", "env": []}]}, "t": (1, [2])}
