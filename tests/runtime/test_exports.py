"""The public surface of kbatch.runtime and kbatch.testing is exactly ``__all__`` (httpx's check)."""

from __future__ import annotations

import pytest

import kbatch.runtime
import kbatch.runtime.cache
import kbatch.runtime.workqueue
import kbatch.testing


@pytest.mark.parametrize("module", [kbatch.runtime, kbatch.runtime.cache, kbatch.runtime.workqueue,
                                    kbatch.testing])
def test_all_names_exist_and_are_unique(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(module, name), name
