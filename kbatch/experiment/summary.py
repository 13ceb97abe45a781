"""The summary of a sweep: one row per point (its parameters and headline numbers), as a table, CSV and
a plot of the swept metrics against the swept parameter.

A row is read from the point's report records (``Report.to_dict()``), so it can be rebuilt from the
``report.json`` files an experiment wrote. Its numbers are the report's overall aggregates: the
count of workloads and of finished ones, makespan, throughput, and for each duration
(``completion_time``, ``queueing_delay``, ``scheduling_latency``, ``admission_delay``, ``run_time``)
the mean, p50, p90 and max; and the mean utilisation of each resource over the makespan. With
``spec.summary.by``/``group`` the counts and durations are that one group's; ``stopped_early`` says
that the point stopped once every workload had finished (``spec.stopWhenFinished``).

The plot (``summary.png``) draws the mean of each of ``spec.summary.metrics`` against the parameter
``spec.summary.x`` (default: the first one of the sweep); with more parameters, one line per
combination of the others.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.experiment.sweep import text_of
from kbatch.reporting.workloads import DURATIONS

__all__ = ["STATS", "summary_csv", "summary_figure", "summary_row", "summary_table"]

STATS = ("mean", "p50", "p90", "max")
_SHORT = {"completion_time": "JCT", "queueing_delay": "QUEUED", "scheduling_latency": "SCHED LAT",
          "admission_delay": "ADMIT", "run_time": "RUN"}


def _overall(report: Mapping[str, Any]) -> Mapping[str, Any]:
    groups = report.get("summary") or []
    return next((g for g in groups if g.get("group") == "all"), groups[-1] if groups else {})


def _group(report: Mapping[str, Any], group: str | None) -> Mapping[str, Any]:
    """The aggregates of ``group`` (``None``: all workloads); a group without workloads at this
    point reads as none (0 workloads, no durations)."""
    if group is None:
        return _overall(report)
    return next((g for g in report.get("summary") or () if g.get("group") == group), {})


def summary_row(index: int, label: str, params: Sequence[tuple[str, Any]],
                report: Mapping[str, Any], group: str | None = None,
                stopped_early: bool = False) -> dict[str, Any]:
    """One point's row: ``point``, ``label``, ``params``, counts, ``durations``, ``utilisation``;
    with ``group`` the counts and durations are that group's of the report's ``--by`` (the
    utilisation stays the cluster's: the group shares it)."""
    overall = _group(report, group)
    durations = overall.get("durations") or {}
    cluster = report.get("cluster") or {}
    return {
        "point": index, "label": label, "params": dict(params), "group": group or "all",
        "workloads": overall.get("workloads", 0), "finished": overall.get("finished", 0),
        "succeeded": overall.get("succeeded", 0), "failed": overall.get("failed", 0),
        "makespan": overall.get("makespan"), "throughput_per_min": overall.get("throughput_per_min"),
        "durations": {d: {s: (durations.get(d) or {}).get(s) for s in STATS} for d in DURATIONS},
        "utilisation": {r: u.get("mean") for r, u in sorted((cluster.get("utilisation") or {}).items())},
        "stopped_early": stopped_early,
    }


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"point": row["point"]}
    out |= {k: text_of(v) for k, v in row["params"].items()}
    counts = ("workloads", "finished", "succeeded", "failed", "makespan", "throughput_per_min")
    out |= {k: row[k] for k in counts}
    for d, stats in row["durations"].items():
        out |= {f"{d}_{s}": v for s, v in stats.items()}
    out |= {f"{r}_utilisation": v for r, v in row["utilisation"].items()}
    out["group"] = row.get("group", "all")
    out["stopped_early"] = row.get("stopped_early", False)
    return out


def summary_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    flat = [_flat(r) for r in rows]
    columns: list[str] = []
    for r in flat:
        columns += [c for c in r if c not in columns]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(flat)
    return out.getvalue()


def _fmt(value: float | None, scale: float = 1.0, suffix: str = "") -> str:
    return "-" if value is None else f"{value * scale:.1f}{suffix}"


def summary_table(name: str, rows: Sequence[Mapping[str, Any]], metrics: Sequence[str],
                  width: int = 200, by: str | None = None) -> str:
    """The rich table ``kbatch experiment run`` prints: one row per point (``by``: the grouping the
    rows' ``group`` is a value of, named in the title)."""
    from rich.console import Console
    from rich.table import Table

    params = list(rows[0]["params"]) if rows else []
    group = rows[0].get("group") if rows and by else None
    scope = f", group {group} of {by}" if group else ""
    table = Table(title=f"Experiment {name}{scope} (seconds; mean / p90 / max)", title_justify="left")
    for p in params:
        table.add_column(p.upper())
    table.add_column("WORKLOADS", justify="right")
    for m in metrics:
        table.add_column(_SHORT.get(m, m.upper()), justify="right")
    table.add_column("MAKESPAN", justify="right")
    resources = sorted({r for row in rows for r in row["utilisation"]})
    shown = [r for r in resources if r == "nvidia.com/gpu"] or resources[:1]
    for r in shown:
        table.add_column(f"{r} UTIL", justify="right")
    for row in rows:
        cells = [text_of(v) for v in row["params"].values()]
        cells.append(f"{row['finished']}/{row['workloads']}")
        for m in metrics:
            s = row["durations"][m]
            cells.append(" / ".join(_fmt(s[k]) for k in ("mean", "p90", "max")))
        cells.append(_fmt(row["makespan"]))
        cells += [_fmt(row["utilisation"].get(r), 100, "%") for r in shown]
        table.add_row(*cells)
    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    console.print(table)
    text: str = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def summary_figure(name: str, rows: Sequence[Mapping[str, Any]], x: str | None,
                   metrics: Sequence[str]) -> Any:
    """Mean of each metric against ``x``; a line per metric and combination of the other parameters."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 4.5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    params = list(rows[0]["params"]) if rows else []
    x = x or (params[0] if params else None)
    others = [p for p in params if p != x]
    series: dict[tuple[str, str], list[tuple[Any, float]]] = {}
    for row in rows:
        rest = ",".join(f"{p}={text_of(row['params'][p])}" for p in others)
        at = row["params"][x] if x else row["point"]
        for m in metrics:
            mean = row["durations"][m]["mean"]
            if mean is not None:
                series.setdefault((m, rest), []).append((at, mean))
    xs_all = [row["params"][x] if x else row["point"] for row in rows]
    categories = None if _numeric(xs_all) else list(dict.fromkeys(text_of(v) for v in xs_all))
    for (metric, rest), points in series.items():
        xs = [p[0] if categories is None else categories.index(text_of(p[0])) for p in points]
        label = f"{metric} (mean)" + (f", {rest}" if rest else "")
        ax.plot(xs, [p[1] for p in points], marker="o", label=label)
    if categories is not None:
        ax.set_xticks(range(len(categories)), categories)
    ax.set_xlabel(x or "point")
    ax.set_ylabel("seconds")
    ax.set_title(f"{name}: {', '.join(metrics)} against {x or 'point'}")
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize="small")
    return fig
