"""``kbatch report``: what happened, from the objects' time stamps (docs/report.md).

Reads the local state directory, a running ``kbatch serve`` (``--server``), or ``-f FILE…`` of
``kubectl get -o json`` output; prints a table, ``-o json`` or ``-o csv``; ``--plot DIR`` writes PNGs,
``--html FILE`` one self-contained page. Nothing is written to the state.
"""

from __future__ import annotations

from pathlib import Path

import typer

from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options

__all__ = ["register"]


@command
def report(ctx: typer.Context,
           output: str = typer.Option("table", "-o", "--output", help="table, json or csv."),
           by: str | None = typer.Option(None, "--by",
                                         help="Group the aggregates: namespace, queue, kind or label=KEY."),
           files: list[str] | None = typer.Option(None, "-f", "--filename",
                                                  help="Report on these files (kubectl get -o json|yaml "
                                                       "output; '-' for stdin) instead of the state."),
           node_group: str | None = typer.Option(None, "--node-group",
                                                 help="Utilisation also per value of this node label "
                                                      "(e.g. a Kueue flavor's node label)."),
           plot: str | None = typer.Option(None, "--plot", help="Write PNG plots into this directory."),
           html: str | None = typer.Option(None, "--html", help="Write a self-contained HTML page here."),
           summary: bool = typer.Option(False, "--summary",
                                        help="Table: no row per workload."),
           namespace: str | None = NAMESPACE) -> None:
    """Per-workload timelines, aggregates and cluster utilisation, from object time stamps."""
    from kbatch.reporting import build_report, sources
    from kbatch.reporting.metrics import group_key
    from kbatch.reporting.render import FORMATS, render

    if output not in FORMATS:
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        f'formats are: {",".join(FORMATS)}')
    try:
        group_key(by)
    except ValueError as err:
        raise UserError(str(err)) from None
    if files:
        objects, now = sources.from_files(files), None
    else:
        from kbatch.cli.session import session

        with session(global_options(ctx), save=False) as backend:
            objects, now = sources.from_backend(backend)
    objects = sources.in_namespace(objects, namespace)  # -n NS: its workloads, on every node
    result = build_report(objects, end=now, by=by, node_group=node_group or None)
    if plot:
        from kbatch.reporting.plots import write_plots

        for path in write_plots(result, plot):
            typer.echo(f"wrote {path}", err=True)
    if html:
        from kbatch.reporting.html import render_html

        Path(html).write_text(render_html(result))
        typer.echo(f"wrote {html}", err=True)
    typer.echo(render(result, output, workloads=not summary))


def register(app: typer.Typer) -> None:
    app.command()(report)
