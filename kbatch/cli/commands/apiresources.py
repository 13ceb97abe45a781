"""``kbatch api-resources`` and ``kbatch api-versions``, as kubectl's (k8s.io/kubectl
``pkg/cmd/apiresources``): the server's discovery, read as :mod:`kbatch.cli.api_resources` says."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import typer

from kbatch.cli.errors import UserError, command
from kbatch.cli.options import global_options

__all__ = ["register"]

# pflag's ParseBool (strconv.ParseBool)
_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
          "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}

ARGS = typer.Argument(None, hidden=True)
OUTPUT = typer.Option("", "-o", "--output", help="Output format: wide, name, json or yaml.")
NO_HEADERS = typer.Option(False, "--no-headers", help="Print no header line.")
API_GROUP = typer.Option(None, "--api-group", help="Only resources of this API group ('' the core one).")
NAMESPACED = typer.Option(None, "--namespaced", help="true: only namespaced resources; false: only the "
                                                     "cluster-scoped ones.")
VERBS = typer.Option(None, "--verbs", help="Only resources that support all these verbs.")
CATEGORIES = typer.Option(None, "--categories", help="Only resources in all these categories.")
SORT_BY = typer.Option("", "--sort-by", help="Sort by name or kind (default: by group).")
CACHED = typer.Option(False, "--cached", help="Accepted as kubectl's: kbatch keeps no discovery cache.")


def _discovery(backend: Any) -> Callable[[str], Any]:
    """The GET of a discovery path through the session's backend (kbatch.cli.raw_get), as JSON."""
    from kbatch.cli.raw_get import raw_get

    return lambda path: json.loads(raw_get(backend, path))


def _no_arguments(args: list[str] | None, name: str) -> None:
    if args:  # cmdutil.UsageErrorf, the arguments as Go prints a []string
        raise UserError(f"unexpected arguments: [{' '.join(args)}]\n"
                        f"See 'kbatch {name} -h' for help and examples")


def _flag_bool(value: str | None, flag: str) -> bool | None:
    if value is None:
        return None
    if value not in _BOOLS:  # pflag's parse error, as cobra prints it (not through kubectl's CheckErr)
        typer.echo(f'Error: invalid argument "{value}" for "{flag}" flag: strconv.ParseBool: parsing '
                   f'"{value}": invalid syntax\nSee \'kbatch api-resources --help\' for usage.', err=True)
        raise typer.Exit(1)
    return _BOOLS[value]


def _split(values: list[str] | None) -> list[str]:
    """A pflag string slice: repeated flags and comma-separated values."""
    return [v for value in values or [] for v in value.split(",") if v]


@command
def api_resources(ctx: typer.Context, args: list[str] | None = ARGS, output: str = OUTPUT,
                  no_headers: bool = NO_HEADERS, api_group: str | None = API_GROUP,
                  namespaced: str | None = NAMESPACED, verbs: list[str] | None = VERBS,
                  categories: list[str] | None = CATEGORIES, sort_by: str = SORT_BY,
                  cached: bool = CACHED) -> None:
    """Print the API resources the server serves, as kubectl api-resources."""
    from kbatch.cli import api_resources as discovery
    from kbatch.cli.session import session

    _no_arguments(args, "api-resources")
    if output not in discovery.OUTPUTS:
        allowed = ",".join(sorted(o for o in discovery.OUTPUTS if o))
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        f"formats are: {allowed}")
    if sort_by not in discovery.SORT_KEYS:
        raise UserError("--sort-by accepts only name or kind")
    scope = _flag_bool(namespaced, "--namespaced")
    with session(global_options(ctx), save=False) as backend:
        resources = discovery.preferred_resources(_discovery(backend))
    kept = discovery.select(resources, api_group=api_group, namespaced=scope, verbs=_split(verbs),
                            categories=_split(categories))
    typer.echo(discovery.render(discovery.sort_resources(kept, sort_by), output, headers=not no_headers),
               nl=False)


@command
def api_versions(ctx: typer.Context, args: list[str] | None = ARGS) -> None:
    """Print the API versions the server serves, as group/version, one per line (kubectl api-versions)."""
    from kbatch.cli.api_resources import api_versions as versions
    from kbatch.cli.session import session

    _no_arguments(args, "api-versions")
    with session(global_options(ctx), save=False) as backend:
        lines = versions(_discovery(backend))
    typer.echo("".join(f"{line}\n" for line in lines), nl=False)


def register(app: typer.Typer) -> None:
    app.command("api-resources")(api_resources)
    app.command("api-versions")(api_versions)
