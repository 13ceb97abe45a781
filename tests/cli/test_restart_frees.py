"""A command whose options restart the control plane (kbatch/cli/state.py ``_restart``) leaves no
copy of the loaded one behind: loading froze it with the rest of the heap (kbatch/runtime/image.py
``gc.freeze``), so its reference cycles were never collected, and the API server's garbage
collector left its store watch open, which held the old runtime and kept the shared watch log from
being trimmed: a restarting command held two control planes until it exited."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path
from typing import Any

import pytest

from kbatch.cli import state as state_module
from kbatch.cli.options import GlobalOptions
from kbatch.cli.state import StateDir


def test_a_restart_lets_the_loaded_runtime_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = StateDir(tmp_path)
    cp, config = state.load(GlobalOptions(state=str(tmp_path)))
    state.save(cp, config)
    cp.close()
    del cp
    again, _ = state.load(GlobalOptions(state=str(tmp_path)))
    watchers = again.store.watcher_counts()
    again.close()
    del again
    replaced: list[weakref.ref[Any]] = []
    restart = state_module._restart

    def watched(old: Any, new_config: Any, changed: list[str]) -> Any:
        replaced.append(weakref.ref(old.manager))  # in reference cycles, as a runtime is
        return restart(old, new_config, changed)

    monkeypatch.setattr(state_module, "_restart", watched)
    try:
        gates = "ServiceAccountNodeAudienceRestriction=false"  # any change of the recorded configuration
        fresh, _ = state.load(GlobalOptions(state=str(tmp_path), feature_gates=gates))
        assert len(replaced) == 1
        assert fresh.store.watcher_counts() == watchers  # the old collector's store watch is gone
        assert replaced[0]() is None  # collected as the restart finished, frozen heap or not
        fresh.close()
    finally:
        gc.unfreeze()
