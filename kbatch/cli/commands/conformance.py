"""``kbatch conformance``: run the conformance suite (the ``conformance`` package that ships with
kbatch) in this process with ``pytest.main``, and print its report — each semantic, PASS/FAIL/SKIP,
its upstream source — or write it for CI (``--junit-xml FILE``, ``-o json``). The exit code is
pytest's: 0 when every selected check passed or was skipped, 1 when one failed, 5 when none matched.

Targets: in-process kbatch by default; ``--server URL`` (plus ``--token``) or ``--kubeconfig FILE``
/ ``--context NAME`` run the suite over HTTP through ``conformance.http_target:from_kubeconfig``.
Every check works in a fresh namespace of its own, created and deleted by the suite (names seeded by
``--seed``), and writes nothing outside it. ``--server`` is this command's own option: the global
``--server``/``KBATCH_SERVER`` is not used, to never point the suite at a server by accident.

``--list`` prints every semantic with its upstream source and runs nothing; ``--family NAME`` and
``-k EXPRESSION`` select. The pytest run's own output goes to stderr with ``-o json``, so stdout is
the JSON document alone.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import typer

from kbatch.cli.errors import UserError, command

__all__ = ["register"]

HTTP_TARGET = "conformance.http_target:from_kubeconfig"
NEEDS = "pip install 'pytest>=8' 'hypothesis>=6.100'"


def suite_dir() -> Path:
    """Where the installed ``conformance`` package lives (it ships with kbatch)."""
    spec = importlib.util.find_spec("conformance")
    if spec is None or not spec.submodule_search_locations:
        raise UserError("the conformance suite (package 'conformance') is not installed; reinstall kbatch")
    return Path(next(iter(spec.submodule_search_locations)))


def _require_test_runner() -> None:
    """pytest and hypothesis are kbatch dependencies; an environment that lost them gets one line."""
    missing = [name for name in ("pytest", "hypothesis") if not _importable(name)]
    if missing:
        raise UserError(f"kbatch conformance needs {' and '.join(missing)}, which is not installed: {NEEDS}")


def _importable(name: str) -> bool:
    try:
        __import__(name)
    except ImportError:
        return False
    return True


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


def target_environment(tmp: Path, server: str | None, token: str | None, kubeconfig: str | None,
                       context: str | None) -> dict[str, str]:
    """The suite's environment variables for the chosen target (empty: in-process kbatch)."""
    if server and kubeconfig:
        raise UserError("--server and --kubeconfig both name a target: give one")
    env: dict[str, str] = {}
    if server:
        path = tmp / "kubeconfig"
        path.write_text(json.dumps(kubeconfig_for(server, token)))  # JSON is YAML
        env["KUBECONFIG"] = str(path)
    elif kubeconfig:
        if not Path(kubeconfig).expanduser().is_file():
            raise UserError(f"--kubeconfig {kubeconfig}: no such file")
        env["KUBECONFIG"] = str(Path(kubeconfig).expanduser().resolve())
    if context:
        env["KBATCH_CONFORMANCE_CONTEXT"] = context
    if server or kubeconfig or context:
        env["KBATCH_CONFORMANCE_TARGET"] = HTTP_TARGET
    return env


def pytest_args(suite: Path, *, keyword: str | None, families: list[str], verbose: bool, listing: bool,
                json_file: Path | None, junit_file: str | None) -> list[str]:
    """The ``pytest.main`` arguments: the installed suite, none of the calling directory's pytest
    configuration (``-c`` an empty file, the suite's parent as rootdir; third-party plugins are not
    loaded either, see :func:`conformance`), and the report options."""
    args = [str(suite), "-c", os.devnull, "--rootdir", str(suite.parent), "-p", "no:cacheprovider",
            "-v" if verbose else "-q", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
    if keyword:
        args += ["-k", keyword]
    for family in families:
        args += ["--conformance-family", family]
    if listing:
        args.append("--conformance-list")
    if json_file is not None:
        args += ["--conformance-json", str(json_file)]
    if junit_file:
        args += ["--conformance-junit-xml", str(Path(junit_file).expanduser().resolve())]
    return args


def _check_families(families: list[str]) -> None:
    from conformance.families import by_name

    for name in families:
        try:
            by_name(name)
        except KeyError as err:
            raise UserError(str(err.args[0])) from None


@command
def conformance(keyword: str | None = typer.Option(None, "-k", metavar="EXPRESSION",
                                                   help="Only checks matching this pytest -k expression."),
                family: list[str] = typer.Option([], "--family", metavar="NAME",
                                                 help="Only this family of checks (repeatable), e.g. job."),
                server: str | None = typer.Option(None, "--server", metavar="URL",
                                                  help="Run over HTTP against this API server."),
                token: str | None = typer.Option(None, "--token", help="Bearer token for --server."),
                kubeconfig: str | None = typer.Option(None, "--kubeconfig", metavar="FILE",
                                                      help="Run against the cluster of this kubeconfig."),
                context: str | None = typer.Option(None, "--context", metavar="NAME",
                                                   help="Kubeconfig context (default: the current one)."),
                seed: int = typer.Option(0, "--seed", envvar="KBATCH_CONFORMANCE_SEED",
                                         help="Seed of the per-check namespace names (and in-process runs)."),
                junit_xml: str | None = typer.Option(None, "--junit-xml", metavar="FILE",
                                                     help="Also write the report as JUnit XML."),
                output: str = typer.Option("table", "-o", "--output", help="table or json."),
                listing: bool = typer.Option(False, "--list",
                                             help="List every semantic and its upstream source; run none."),
                verbose: bool = typer.Option(False, "-v", "--verbose", help="pytest's verbose output."),
                ) -> None:
    """Run the conformance suite and print its report: each semantic, PASS/FAIL/SKIP, upstream source."""
    if output not in ("table", "json"):
        raise UserError(f"--output {output!r}: use table or json")
    _require_test_runner()
    _check_families(family)
    import pytest

    with tempfile.TemporaryDirectory(prefix="kbatch-conformance-") as tmp:
        # hypothesis keeps its files in the temporary directory, not in a .hypothesis/ where the user is
        storage = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or f"{tmp}/hypothesis"
        env = {**target_environment(Path(tmp), server, token, kubeconfig, context),
               "KBATCH_CONFORMANCE_SEED": str(seed), "HYPOTHESIS_STORAGE_DIRECTORY": storage,
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # no third-party plugin reorders or reseeds the run
               "PYTEST_ADDOPTS": ""}  # nor the caller's pytest options (`-n 2` names an unloaded plugin)
        json_file = Path(tmp) / "report.json" if output == "json" else None
        args = pytest_args(suite_dir(), keyword=keyword, families=family, verbose=verbose, listing=listing,
                           json_file=json_file, junit_file=junit_xml)
        quiet = contextlib.redirect_stdout(sys.stderr) if json_file else contextlib.nullcontext()
        with _environment(env), quiet:
            code = int(pytest.main(args))
        if json_file is not None and json_file.exists():
            typer.echo(json_file.read_text(), nl=False)
    if code != 0:
        raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    app.command("conformance")(conformance)
