"""``kbatch conformance``: run the conformance suite (``conformance/``) in this process and print its
report — each semantic, PASS/FAIL/SKIP, its upstream source — exactly as ``pytest conformance`` does
(issue 6). The exit code is pytest's: 0 when every selected check passed or was skipped.

Against in-process kbatch by default; ``--server URL`` (plus ``--token``) runs the suite over HTTP
through the suite's own target (``conformance.http_target:from_kubeconfig``, given a kubeconfig
written for that URL). That target sweeps the ``default`` namespace of a kbatch server before each
check, so ``--server`` is this command's own option: the global ``--server``/``KBATCH_SERVER`` is
not used, to never point the suite at a server by accident.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import typer

from kbatch.cli.errors import UserError, command

__all__ = ["register"]

HTTP_TARGET = "conformance.http_target:from_kubeconfig"


def suite_dir() -> str:
    """Where the installed ``conformance`` package lives (it ships with kbatch)."""
    spec = importlib.util.find_spec("conformance")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the conformance suite (package 'conformance') is not installed")
    return next(iter(spec.submodule_search_locations))


def kubeconfig_for(server: str, token: str | None) -> dict:
    """A one-context kubeconfig naming ``server`` (and a bearer ``token``)."""
    user = {"token": token} if token else {}
    return {"apiVersion": "v1", "kind": "Config", "current-context": "kbatch-conformance",
            "clusters": [{"name": "target", "cluster": {"server": server}}],
            "users": [{"name": "target", "user": user}],
            "contexts": [{"name": "kbatch-conformance",
                          "context": {"cluster": "target", "user": "target"}}]}


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the run, then restore them."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


@contextlib.contextmanager
def _target(server: str | None, token: str | None) -> Iterator[None]:
    if server is None:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="kbatch-conformance-") as tmp:
        path = Path(tmp) / "kubeconfig"
        path.write_text(json.dumps(kubeconfig_for(server, token)))  # JSON is YAML
        with _environment({"KUBECONFIG": str(path), "KBATCH_CONFORMANCE_TARGET": HTTP_TARGET}):
            yield


@command
def conformance(keyword: str | None = typer.Option(None, "-k", metavar="EXPRESSION",
                                                   help="Only checks matching this pytest -k expression."),
                server: str | None = typer.Option(None, "--server", metavar="URL",
                                                  help="Run over HTTP against this API server (a scratch "
                                                       "kbatch serve or cluster: the default namespace "
                                                       "is swept)."),
                token: str | None = typer.Option(None, "--token", help="Bearer token for --server."),
                verbose: bool = typer.Option(False, "-v", "--verbose", help="pytest's verbose output."),
                ) -> None:
    """Run the conformance suite and print its report: each semantic, PASS/FAIL/SKIP, upstream source."""
    import pytest

    args = [suite_dir(), "-p", "no:cacheprovider", "-v" if verbose else "-q",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]  # plugins the CLI imported already
    if keyword:
        args += ["-k", keyword]
    with _target(server, token):
        code = pytest.main(args)
    if int(code) != 0:
        raise typer.Exit(int(code))


def register(app: typer.Typer) -> None:
    app.command("conformance")(conformance)
