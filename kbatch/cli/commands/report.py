"""``kbatch report``: what happened, from the objects' time stamps (docs/report.md).

Reads the local state directory, a running ``kbatch serve`` (``--server``), or ``-f FILE…`` of
``kubectl get -o json`` output; prints a table, ``-o json`` or ``-o csv``; ``--plot DIR`` writes PNGs,
``--html FILE`` one self-contained page. Nothing is written to the state.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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
    history: list[dict[str, object]] = []  # earlier versions of claims (the devices of finished pods)
    if files:
        objects, now = sources.from_files(_expand(files)), None
    else:
        from kbatch.cli.session import session

        opts = global_options(ctx)
        with session(opts, save=False) as backend:
            objects, now = sources.from_backend(backend)
            local = not opts.server and not opts.etcd_servers  # a state directory: its trace files
            if local and sources.claims_used(objects):
                history = sources.claim_history_of_state(opts.state, getattr(backend, "control_plane", None))
    objects = sources.in_namespace(objects, namespace)  # -n NS: its workloads, on every node
    result = build_report(objects, end=now, by=by, node_group=node_group or None,
                          history=sources.in_namespace(history, namespace))
    if plot:
        from kbatch.reporting.plots import write_plots

        with _writing(plot):
            written = write_plots(result, plot)
        for path in written:
            typer.echo(f"wrote {path}", err=True)
    if html:
        from kbatch.reporting.html import render_html

        page = render_html(result)
        with _writing(html):
            Path(html).write_text(page)
        typer.echo(f"wrote {html}", err=True)
    typer.echo(render(result, output, workloads=not summary))


@contextmanager
def _writing(target: str) -> Iterator[None]:
    """An output that cannot be written is one line naming it (``cannot write DIR: Permission
    denied``), as ``kbatch experiment run --out`` says it, not Python's ``[Errno 13] …``."""
    try:
        yield
    except OSError as err:
        raise UserError(f"cannot write {err.filename or target}: {err.strerror or err}") from None


def _expand(names: list[str]) -> list[str]:
    """``-f`` as ``kubectl get -f`` reads it: a missing path is kubectl's ``the path "X" does not
    exist``, a directory its ``.json``/``.yaml``/``.yml`` files (kbatch/cli/manifests.py)."""
    from kbatch.cli.manifests import manifest_files

    return [name if name == "-" else str(f) for name in names
            for f in ([name] if name == "-" else manifest_files(name))]


def register(app: typer.Typer) -> None:
    app.command()(report)
