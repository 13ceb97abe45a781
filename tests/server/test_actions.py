"""The kbatch extension's actions: the Backend protocol documents exactly the ones that exist; new
nodes' names."""

from __future__ import annotations

import re

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
