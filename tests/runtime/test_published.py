"""The control plane's board of published controller state: typed keys, no string-keyed guessing."""

from __future__ import annotations

from kbatch.controllers.kueue.manager import KUEUE_MANAGER, KueueManager
from kbatch.runtime import ControlPlane, Published, PublishedKey


def test_a_key_gives_back_what_was_put_under_it_typed() -> None:
    board = Published()
    key = PublishedKey("answer", int)
    assert board.get(key) is None
    board.put(key, 42)
    assert board.get(key) == 42


def test_a_value_of_another_type_under_the_name_is_not_handed_out() -> None:
    board = Published()
    board.put(PublishedKey("kueue", str), "not a manager")
    assert board.get(KUEUE_MANAGER) is None


def test_the_kueue_controller_publishes_its_manager_and_only_when_it_runs() -> None:
    with_kueue = ControlPlane(controllers="*,kueue")
    assert isinstance(with_kueue.published.get(KUEUE_MANAGER), KueueManager)
    without = ControlPlane(controllers="job-controller")
    assert without.published.get(KUEUE_MANAGER) is None
