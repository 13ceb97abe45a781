"""``ControlPlane.committed_at``: the virtual instant a store revision was committed at
(kbatch/runtime/revision_times.py), what a served watch row is measured against."""

from __future__ import annotations

from datetime import timedelta

from kbatch import ControlPlane
from kbatch.runtime.revision_times import KEPT


def _write(cp: ControlPlane, name: str) -> int:
    cp.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}})
    return cp.store.revision  # type: ignore[no-any-return]


def test_each_revision_keeps_the_instant_it_was_committed_at() -> None:
    cp = ControlPlane(seed=1, controllers="")
    start = cp.now()
    first = _write(cp, "a")
    cp.advance("10s")
    second = _write(cp, "b")
    cp.advance("5s")
    assert cp.committed_at(first) == start
    assert cp.committed_at(second) == start + timedelta(seconds=10)
    third = _write(cp, "c")  # at the current instant: no jump has recorded it yet
    assert cp.committed_at(third) == cp.now() == start + timedelta(seconds=15)


def test_only_the_newest_steps_are_kept() -> None:
    cp = ControlPlane(seed=1, controllers="")
    first = _write(cp, "a")
    for i in range(KEPT + 1):
        _write(cp, f"c{i}")
        cp.advance("1s")
    assert cp.committed_at(first) > cp.now() - timedelta(seconds=KEPT + 1)  # the oldest kept, not earlier
    assert len(cp.revision_times._revisions) <= KEPT
