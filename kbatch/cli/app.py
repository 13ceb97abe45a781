"""The typer application behind the ``kbatch`` console script."""

from __future__ import annotations

import typer

app = typer.Typer(help="kbatch: a local Kubernetes batch control plane in one process.",
                  no_args_is_help=True)


@app.command()
def version() -> None:
    """Print the kbatch version."""
    from importlib.metadata import version as dist_version

    typer.echo(f"kbatch {dist_version('kbatch')}")


def main() -> None:
    app()
