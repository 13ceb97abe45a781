"""``kbatch experiment run FILE [--out DIR]``: a sweep of simulated runs, their reports and a summary
(docs/experiment.md). Runs in memory (no state directory, no server); writes only under ``--out``,
and only once every point has run."""

from __future__ import annotations

from typing import Any

import typer

from kbatch.cli.errors import UserError, command

__all__ = ["register"]

experiment_app = typer.Typer(help="Simulation experiments: sweeps of workloads in virtual time.",
                             no_args_is_help=True)
FORMATS = ("table", "json", "csv")


def _progress_callback(bars: Any, plan: Any) -> Any:
    tasks = {p.point.index: bars.add(p.point.label, p.experiment.spec.horizon) for p in plan.points}

    def tick(t: Any) -> None:
        bars.update(tasks[t.point], t.reached, t.objects, t.writes)

    return tick


@experiment_app.command("run")
@command
def run(file: str = typer.Argument(..., help="The experiment file (YAML, kind: Experiment)."),
        out: str | None = typer.Option(None, "--out", help="Write every point's report and plots and the "
                                                          "summary here."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", help="Points run at once, in worker processes "
                                                                   "(default: one per CPU)."),
        output: str = typer.Option("table", "-o", "--output", help="The summary: table, json or csv."),
        plots: bool = typer.Option(True, "--plots/--no-plots", help="With --out: PNG plots too."),
        by: str | None = typer.Option(None, "--by", help="With --group: summarise one group of each point's "
                                                         "report (namespace, queue, kind or label=KEY)."),
        group: str | None = typer.Option(None, "--group", help="The value of --by whose workloads the "
                                                               "summary reads."),
        stop_when_finished: bool = typer.Option(False, "--stop-when-finished",
                                                help="Stop each point once every workload finished "
                                                     "(its report ends at the last finish).")) -> None:
    """Run every point of the experiment's sweep in virtual time; print the summary."""
    import json
    from pathlib import Path

    from kbatch.cli.progress import progress_bars
    from kbatch.experiment import ExperimentError, ExperimentResult, execute, load_plan
    from kbatch.experiment.summary import summary_csv

    if output not in FORMATS:
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        f'formats are: {",".join(FORMATS)}')
    if jobs is not None and jobs < 1:
        raise UserError("--jobs must be at least 1")
    if out is not None and Path(out).exists() and not Path(out).is_dir():
        raise UserError(f"--out {out}: exists and is not a directory")
    try:
        overrides = {k: v for k, v in (("by", by), ("group", group)) if v is not None}
        plan = load_plan(Path(file), summary=overrides, stop_when_finished=stop_when_finished)
        with progress_bars() as bars:
            tick = _progress_callback(bars, plan) if bars is not None else None
            result = ExperimentResult(plan, tuple(execute(plan, jobs=jobs, plots=plots and out is not None,
                                                          progress=tick)))
    except ExperimentError as err:
        raise UserError(f"{file}: {err}") from None
    if out is not None:
        try:
            written = result.write(out, plots=plots)
        except OSError as err:  # one line, as a file that cannot be read (not Python's "[Errno 13] …")
            raise UserError(f"cannot write {err.filename or out}: {err.strerror or err}") from None
        typer.echo(f"wrote {len(written)} files under {out}", err=True)
    if output == "json":
        typer.echo(json.dumps(result.to_dict(), indent=2))
    elif output == "csv":
        typer.echo(summary_csv(result.rows), nl=False)
    else:
        typer.echo(result.table())


def register(app: typer.Typer) -> None:
    app.add_typer(experiment_app, name="experiment")
