"""The kbatch extension's actions: the Backend protocol documents exactly the ones that exist; new
nodes' names."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.server import actions
from kbatch.server.actions import first_free_block
from kbatch.server.backend import Backend


def test_backend_action_docstring_names_every_action_and_no_other() -> None:
    doc = Backend.action.__doc__ or ""
    listing = doc.split("There is no")[0]
    named = set(re.findall(r"``([a-z-]+)``", listing))
    assert named == set(actions.ACTIONS)


def test_reset_is_not_an_action() -> None:
    assert "reset" not in actions.ACTIONS


@given(st.sets(st.sampled_from([f"node-{i}" for i in range(12)] + ["node-01", "node-x", "gpu-3", "node-²"])),
       st.integers(min_value=1, max_value=5))
def test_new_nodes_take_thefirst_free_block_of_names(names: set[str], count: int) -> None:
    """The block search answers what trying every start in turn answers (it used to try them in turn,
    which never ended for a count of 2**40)."""
    start = 0
    while any(f"node-{i}" in names for i in range(start, start + count)):
        start += 1
    assert first_free_block(names, "node-", count) == start


def test_nodes_add_capacity_is_a_quantity_or_a_400_naming_it() -> None:
    """What ``nodes-add`` takes over HTTP: a number is a quantity (apimachinery's
    ``Quantity.UnmarshalJSON`` reads JSON numbers), a non-quantity one 400 line naming the argument."""
    from kbatch.api.errors import BadRequest

    assert actions.node_template({"cpu": 4, "memory": "8Gi"}).cpu == "4"
    with pytest.raises(BadRequest) as err:
        actions.node_template({"cpu": "abc"})
    assert str(err.value.message).startswith('invalid cpu "abc": quantities must match the regular')
    with pytest.raises(BadRequest, match=re.escape('invalid memory "1..2"')):
        actions.node_template({"memory": "1..2"})
