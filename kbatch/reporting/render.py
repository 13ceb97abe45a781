"""A report as text: a rich table for the terminal, JSON and CSV for tools.

* table: the workloads (one row each, durations in seconds; the first :data:`MAX_ROWS` by creation,
  with a line saying how many more there are), then per group the count, mean, p50,
  p90, p99 and max of each duration, then the cluster (makespan, throughput, mean utilisation per
  resource, peak pending pods and workloads), then the DRA devices under admin access, if any (a row
  per device and claim: node, namespace, pods, the spans it was held, seconds).
* ``json``: :meth:`Report.to_dict` (keys sorted, 2-space indent).
* ``csv``: one row per workload, the columns of :data:`~kbatch.reporting.records.WORKLOAD_COLUMNS`
  (durations in seconds, empty where unknown), then ``device_seconds[R]`` for each DRA resource ``R``
  some workload's pods held devices of (the pods' device-seconds summed; 0 for the others).
"""

from __future__ import annotations

import csv
import io
import json
from typing import TYPE_CHECKING, Any

from kbatch.reporting.records import WORKLOAD_COLUMNS, device_resources, workload_rows
from kbatch.reporting.workloads import DURATIONS

if TYPE_CHECKING:
    from kbatch.reporting.report import Report

__all__ = ["FORMATS", "render", "render_csv", "render_json", "render_table"]

FORMATS = ("table", "json", "csv")
MAX_ROWS = 200  # workload rows in the table; -o csv / -o json have them all
_SHORT = {"completion_time": "JCT", "queueing_delay": "QUEUED", "scheduling_latency": "SCHED LAT",
          "admission_delay": "ADMIT", "run_time": "RUN"}


def _s(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if abs(value) < 1000 else f"{value:.0f}"


def render_json(report: Report) -> str:
    return json.dumps(report.to_dict(), indent=2, sort_keys=True)


def render_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    rows = workload_rows(report)
    devices = device_resources(rows)
    writer.writerow([*WORKLOAD_COLUMNS, *(f"device_seconds[{name}]" for name in devices)])
    for row in rows:
        held = [row["device_seconds"].get(name, 0) for name in devices]
        writer.writerow([*("" if row[c] is None else row[c] for c in WORKLOAD_COLUMNS), *held])
    return out.getvalue()


def _workloads_table(report: Report, max_rows: int) -> Any:
    from rich.table import Table

    hidden = max(0, len(report.workloads) - max_rows)
    caption = f"... and {hidden} more workloads (-o csv or -o json lists them all)" if hidden else None
    table = Table(title="Workloads (seconds)", title_justify="left", caption=caption, caption_justify="left")
    for name in ("NAMESPACE", "NAME", "KIND", "OUTCOME", "PODS", "QUEUE"):
        table.add_column(name, no_wrap=True)
    for d in DURATIONS:
        table.add_column(_SHORT[d], justify="right")
    table.add_column("RESTARTS", justify="right")
    table.add_column("FAILED", justify="right")
    for r in report.workloads[:max_rows]:
        table.add_row(r.namespace, r.name, r.kind, r.outcome, str(r.pods), r.queue or "-",
                      *(_s(getattr(r, d)) for d in DURATIONS), str(r.restarts), str(r.failures))
    return table


def _summary_table(report: Report) -> Any:
    from rich.table import Table

    table = Table(title="Aggregates (seconds)" + (f" by {report.by}" if report.by else ""),
                  title_justify="left")
    for name in ("GROUP", "METRIC", "N", "MEAN", "P50", "P90", "P99", "MAX"):
        table.add_column(name, justify="left" if name in ("GROUP", "METRIC") else "right", no_wrap=True)
    for g in report.groups:
        for i, d in enumerate(DURATIONS):
            s = g.durations[d]
            table.add_row(g.group if i == 0 else "", d, str(s.count), _s(s.mean), _s(s.p50), _s(s.p90),
                          _s(s.p99), _s(s.max), end_section=i == len(DURATIONS) - 1)
    return table


def _cluster_table(report: Report) -> Any:
    from rich.table import Table

    table = Table(title="Cluster", title_justify="left", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    for g in report.groups:
        label = "" if g.group == "all" else f" ({g.group})"
        table.add_row(f"workloads{label}", f"{g.workloads} ({g.succeeded} succeeded, {g.failed} failed, "
                                           f"{g.workloads - g.finished} unfinished)")
        table.add_row(f"makespan{label}", f"{_s(g.makespan)} s")
        rate = "-" if g.throughput_per_min is None else f"{g.throughput_per_min:.3f}"
        table.add_row(f"throughput{label}", f"{rate} workloads/min")
    from rich.markup import escape

    rows = [("utilisation", "", u) for u in report.utilisation]
    rows += [("utilisation", escape(f" [{report.node_group}={group}]"), u)
             for group, series in report.utilisation_by_node_group for u in series]
    rows += [("quota admitted", escape(f" [flavor={flavor}]"), u)
             for flavor, series in report.utilisation_by_flavor for u in series]
    rows += [("under admin access", "", u) for u in report.admin_access_utilisation]
    for what, where, u in rows:
        mean = "-" if u.mean is None else f"{u.mean:.1%}"
        peak = max((s.value for s in u.ratio), default=0.0)
        table.add_row(f"{u.resource} {what}{where}", f"mean {mean}, peak {peak:.1%}")
    table.add_row("pending pods", f"peak {max((s.value for s in report.pending_pods), default=0):.0f}")
    table.add_row("pending workloads",
                  f"peak {max((s.value for s in report.pending_workloads), default=0):.0f}")
    return table


def _admin_access_table(report: Report) -> Any:
    from rich.table import Table

    table = Table(title="Devices under admin access (not counted as use; seconds from the origin)",
                  title_justify="left")
    for name in ("DEVICE", "NODE", "NAMESPACE", "CLAIM", "PODS", "FROM", "TO", "SECONDS"):
        table.add_column(name, justify="right" if name in ("FROM", "TO", "SECONDS") else "left")
    for r in report.admin_access:
        offsets = r.offsets(report.origin)
        table.add_row(f"{r.driver}/{r.pool}/{r.device}", r.node or "-", r.namespace, r.claim,
                      ", ".join(r.pods), "\n".join(_s(a) for a, _ in offsets),
                      "\n".join(_s(b) for _, b in offsets), _s(r.seconds))
    return table


def render_table(report: Report, *, workloads: bool = True, width: int | None = None,
                 max_rows: int = MAX_ROWS) -> str:
    """The three tables as text; at most ``max_rows`` workload rows (rich takes ~2.5 ms a row)."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width or 160, force_terminal=False, color_system=None)
    if workloads and report.workloads:
        console.print(_workloads_table(report, max_rows))
    console.print(_summary_table(report))
    console.print(_cluster_table(report))
    if report.admin_access:
        console.print(_admin_access_table(report))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())


def render(report: Report, output: str, *, workloads: bool = True) -> str:
    if output == "json":
        return render_json(report)
    if output == "csv":
        return render_csv(report).rstrip("\n")
    if output == "table":
        return render_table(report, workloads=workloads)
    raise ValueError(f'unable to match a printer suitable for the output format "{output}", allowed formats '
                     f'are: {",".join(FORMATS)}')
