"""A command's session: load the state directory, act, settle, save atomically.

Local mode keeps the embedded control plane in a state directory (``--state DIR``, env
``KBATCH_STATE``, default ``./.kbatch``); a directory that does not exist yet is created holding
an empty control plane (no nodes). Each command takes an exclusive lock on the directory, loads the
snapshot, acts, runs the controllers until idle at the current virtual time, and saves the
snapshot atomically (write to a temporary file, then rename: a killed command leaves the previous
snapshot intact). Remote mode (``--server URL``) sends the same calls to ``kbatch serve``.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from kbatch.api.errors import StatusError
from kbatch.cli.errors import UserError
from kbatch.cli.manifests import ManifestError
from kbatch.cli.options import GlobalOptions
from kbatch.server.backend import Backend

__all__ = ["SNAPSHOT", "TRACE", "StateDir", "session"]

SNAPSHOT = "snapshot.kbatch"
TRACE = "trace.jsonl"
KUEUE_CONFIG = "kueue-config.yaml"


class StateDir:
    """The files of one local state directory."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @property
    def snapshot(self) -> Path:
        return self.path / SNAPSHOT

    @contextmanager
    def locked(self) -> Iterator[StateDir]:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UserError(f"cannot create state directory {self.path}: {err.strerror}") from None
        with open(self.path / ".lock", "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                served = self.served_at()
                if served:  # a server holds the state for as long as it runs: waiting would hang
                    raise UserError(f"the state in {self.path} is being served by kbatch serve at {served}; "
                                    f"use --server {served} (or KBATCH_SERVER)") from None
                fcntl.flock(lock, fcntl.LOCK_EX)  # another command: wait for it to finish
            try:
                yield self
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    @property
    def server_file(self) -> Path:
        """Written by ``kbatch serve`` while it holds the state: the URL it listens on."""
        return self.path / "server"

    def served_at(self) -> str:
        try:
            return self.server_file.read_text().strip()
        except OSError:
            return ""

    @property
    def kueue_config_file(self) -> Path:
        """Kueue's Configuration, as last given with ``--kueue-config``."""
        return self.path / KUEUE_CONFIG

    def kueue_config(self, given: str | None) -> str | None:
        """The Kueue Configuration in force: ``given`` (a file, checked, then kept here) or the one
        kept from an earlier command."""
        if given is not None:
            from kbatch.api.errors import StatusError
            from kbatch.controllers.kueue.config import check_config_text

            try:
                text = Path(given).read_text()
            except OSError as err:
                raise UserError(f"--kueue-config: cannot read {given}: {err.strerror}") from None
            try:
                check_config_text(text)
            except StatusError as err:
                raise UserError(f"--kueue-config: {err}") from None
            self.kueue_config_file.write_text(text)
            return text
        try:
            return self.kueue_config_file.read_text()
        except OSError:
            return None

    def load(self, controllers: str | None, kueue_config: str | None = None) -> Any:
        """The control plane stored here, or a fresh empty one."""
        from kbatch.server.facade import new_control_plane, restore_control_plane

        config = self.kueue_config(kueue_config)
        if self.snapshot.exists():
            cp = restore_control_plane(self.snapshot, controllers=controllers, kueue_config=config)
        else:
            cp = new_control_plane(controllers=controllers, kueue_config=config)
        cp.trace.draining = True  # every line of this session goes to the trace file
        return cp

    @property
    def trace(self) -> Path:
        return self.path / TRACE

    def save(self, control_plane: Any) -> None:
        """Snapshot first (atomic), then append this session's trace lines (the trace is a log: a
        crash between the two loses only the newest lines, never the state)."""
        from kbatch.server.facade import save_control_plane

        save_control_plane(control_plane, self.snapshot)
        lines = control_plane.trace.drain()
        if lines:
            with open(self.trace, "a") as out:
                out.write("".join(line + "\n" for line in lines))

    def reset(self) -> None:
        self.snapshot.unlink(missing_ok=True)
        self.trace.unlink(missing_ok=True)


@contextmanager
def session(opts: GlobalOptions, *, save: bool = True) -> Iterator[Backend]:
    """Yield a backend for one command; local state is saved even when an API call failed (what
    succeeded before it stays done, as with kubectl), but not after an unexpected exception."""
    if opts.server:
        from kbatch.cli.remote import HttpBackend  # httpx only when talking to a server

        remote = HttpBackend(opts.server, token=opts.token)
        try:
            yield remote  # type: ignore[misc]
        finally:
            remote.close()
        return
    from kbatch.server.facade import ControlPlaneBackend
    from kbatch.server.versions import versioned

    with StateDir(opts.state).locked() as state:
        backend = versioned(ControlPlaneBackend(state.load(opts.controllers, opts.kueue_config)))
        backend.settle()
        try:
            yield backend
        except (StatusError, UserError, ManifestError, typer.Exit):
            _finish(backend, state, save)
            raise
        _finish(backend, state, save)


def _finish(backend: Any, state: StateDir, save: bool) -> None:
    if save:
        backend.settle()
        state.save(backend.control_plane)
