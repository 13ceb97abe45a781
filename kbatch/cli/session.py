"""A command's session: take the state directory, load its control plane, act, settle, save.

Local mode continues the control plane kept in a state directory (:mod:`kbatch.cli.state`: its image
holds everything the runtime holds, so N commands are one continuous run); remote mode (``--server
URL``) sends the same calls to ``kbatch serve``; etcd mode (``--etcd-servers``) reads and writes the
state kept in etcd as one more API server on it, running no controllers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer

from kbatch.api.errors import StatusError
from kbatch.cli.errors import UserError
from kbatch.cli.manifests import ManifestError
from kbatch.cli.options import GlobalOptions
from kbatch.cli.state import StateConfig, StateDir, addons_option
from kbatch.server.backend import Backend

__all__ = ["StateDir", "session"]


@contextmanager
def session(opts: GlobalOptions, *, save: bool = True) -> Iterator[Backend]:
    """Yield a backend for one command; local state is saved even when an API call failed (what
    succeeded before it stays done, as with kubectl), but not after an unexpected exception."""
    if opts.server:
        from kbatch.cli.remote import HttpBackend  # httpx only when talking to a server

        ca = Path(opts.state) / "tls" / "tls.crt"  # kbatch serve --tls's certificate, when it is this state's
        remote = HttpBackend(opts.server, token=opts.token,
                             ca_file=str(ca) if opts.server.startswith("https:") and ca.exists() else None)
        try:
            yield remote  # type: ignore[misc]
        finally:
            remote.close()
        return
    if opts.etcd_servers:
        with _on_etcd(opts) as backend:
            yield backend
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


@contextmanager
def _on_etcd(opts: GlobalOptions) -> Iterator[Backend]:
    """The state kept in etcd (``--etcd-servers``): this command is one more API server on it, with
    no controllers (they run in the elected leader among ``kbatch serve --etcd-servers`` processes)
    and the real clock. Nothing is loaded from or saved to the state directory."""
    import os

    from kbatch.runtime.controlplane import ControlPlane
    from kbatch.server.facade import SelfDrivenBackend
    from kbatch.store import StoreError

    if opts.controllers:
        raise UserError("--controllers with --etcd-servers: a command on etcd runs no controllers; they "
                        "run in the elected leader among `kbatch serve --etcd-servers` processes")
    try:
        from kbatch.store import EtcdStore

        store = EtcdStore(opts.etcd_servers or "")
    except (ImportError, ValueError, StoreError) as err:
        raise UserError(f"--etcd-servers {opts.etcd_servers}: {err}") from None
    # uids and generated names come from the seeded rng: each process needs a sequence of its own
    cp = ControlPlane(seed=int.from_bytes(os.urandom(8), "big"), controllers="", clock="real", store=store,
                      addons=addons_option(opts))  # installed only when the etcd holds no cluster yet
    try:
        yield SelfDrivenBackend(cp)
    finally:
        cp.close()
        store.close()


def _finish(backend: Any, state: StateDir, config: StateConfig, save: bool) -> None:
    if save:
        backend.settle()
        state.save(backend.control_plane, config)
