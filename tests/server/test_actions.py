"""The kbatch extension's actions: the Backend protocol documents exactly the ones that exist."""

from __future__ import annotations

import re

from kbatch.server import actions
from kbatch.server.backend import Backend


def test_backend_action_docstring_names_every_action_and_no_other() -> None:
    doc = Backend.action.__doc__ or ""
    listing = doc.split("There is no")[0]
    named = set(re.findall(r"``([a-z-]+)``", listing))
    assert named == set(actions.ACTIONS)


def test_reset_is_not_an_action() -> None:
    assert "reset" not in actions.ACTIONS
