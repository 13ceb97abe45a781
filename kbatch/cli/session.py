"""A command's session: take the state directory, load its control plane, act, settle, save.

Local mode continues the control plane kept in a state directory (:mod:`kbatch.cli.state`: its image
holds everything the runtime holds, so N commands are one continuous run); remote mode (``--server
URL``) sends the same calls to ``kbatch serve``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

from kbatch.api.errors import StatusError
from kbatch.cli.errors import UserError
from kbatch.cli.manifests import ManifestError
from kbatch.cli.options import GlobalOptions
from kbatch.cli.state import StateConfig, StateDir
from kbatch.server.backend import Backend

__all__ = ["StateDir", "session"]


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
        cp, config = state.load(opts)
        backend = versioned(ControlPlaneBackend(cp))
        backend.settle()
        try:
            yield backend
        except (StatusError, UserError, ManifestError, typer.Exit):
            _finish(backend, state, config, save)
            raise
        _finish(backend, state, config, save)


def _finish(backend: Any, state: StateDir, config: StateConfig, save: bool) -> None:
    if save:
        backend.settle()
        state.save(backend.control_plane, config)
