"""DefaultStrategy.prepare_for_status_update: main-resource fields from old (as copies), status and
metadata from new."""

from __future__ import annotations

from kbatch.api.core_v1 import Pod
from kbatch.api.strategy import DefaultStrategy


def _pod(image: str, phase: str, label: str) -> Pod:
    return Pod.model_validate({"metadata": {"name": "p", "labels": {"l": label}},
                               "spec": {"containers": [{"name": "c", "image": image}]},
                               "status": {"phase": phase}})


def test_status_update_keeps_old_spec_and_new_status_and_metadata() -> None:
    old, new = _pod("old", "Pending", "old"), _pod("new", "Running", "new")
    DefaultStrategy().prepare_for_status_update(new, old)
    assert new.spec.containers[0].image == "old"  # type: ignore[union-attr]
    assert new.status.phase == "Running"  # type: ignore[union-attr]
    assert new.metadata.labels == {"l": "new"}
    assert (new.api_version, new.kind) == ("v1", "Pod")


def test_status_update_shares_nothing_with_old() -> None:
    old, new = _pod("old", "Pending", "old"), _pod("new", "Running", "new")
    DefaultStrategy().prepare_for_status_update(new, old)
    assert new.spec is not old.spec
    new.spec.containers[0].image = "changed"  # type: ignore[union-attr]
    new.spec.containers.append(new.spec.containers[0])  # type: ignore[union-attr]
    assert old.spec.containers[0].image == "old"  # type: ignore[union-attr]
    assert len(old.spec.containers) == 1  # type: ignore[union-attr]
