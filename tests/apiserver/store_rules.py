"""State-machine rules that disturb a server's store behind its back: snapshot, restore, compaction.

Mixed into the hypothesis state machines that check a cache the API server keeps against the store
(decoded objects, namespaces seen by admission); the machine sets ``self.server`` and calls
:meth:`StoreDisruptions.setup_store_rules` from ``__init__``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from kbatch.apiserver import APIServer


class StoreDisruptions(RuleBasedStateMachine):
    server: APIServer

    def setup_store_rules(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.snapshot: Path | None = None

    def teardown(self) -> None:
        self.dir.cleanup()

    @rule()
    def take_snapshot(self) -> None:
        self.snapshot = Path(self.dir.name) / "snap"
        self.server.store.snapshot(str(self.snapshot))

    @precondition(lambda self: self.snapshot is not None)
    @rule()
    def restore(self) -> None:
        self.server.store.restore(str(self.snapshot))

    @precondition(lambda self: self.server.store.revision > self.server.store.compact_revision)
    @rule()
    def compact(self) -> None:
        self.server.store.compact(self.server.store.revision)
