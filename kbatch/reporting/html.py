"""A report as one self-contained HTML page: the tables and the plots (PNG, embedded as data URIs).

Nothing is loaded from elsewhere: no scripts, no style sheets, no fonts; the page can be mailed or
attached to an issue as it is.
"""

from __future__ import annotations

import base64
from datetime import datetime
from html import escape
from typing import TYPE_CHECKING

from kbatch.reporting.admin_access import AdminAccessRecord
from kbatch.reporting.records import WORKLOAD_COLUMNS, iso, workload_row
from kbatch.reporting.series import UtilisationSeries
from kbatch.reporting.workloads import DURATIONS

if TYPE_CHECKING:
    from kbatch.reporting.report import Report

__all__ = ["render_html"]

_STYLE = ("body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}"
          "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}td.n{text-align:right}"
          "th{background:#f0f0f0}img{max-width:100%;display:block;margin:1em 0}")


def _cell(value: object) -> str:
    if value is None:
        return "<td>-</td>"
    if isinstance(value, float):
        return f'<td class="n">{value:.2f}</td>'
    if isinstance(value, int):
        return f'<td class="n">{value}</td>'
    return f"<td>{escape(str(value))}</td>"


def _table(head: list[str], rows: list[list[object]]) -> str:
    out = ["<table><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for row in rows:
        out += ["<tr>", *(_cell(v) for v in row), "</tr>"]
    out.append("</table>")
    return "".join(out)


def _summary_rows(report: Report) -> list[list[object]]:
    rows: list[list[object]] = []
    for g in report.groups:
        for d in DURATIONS:
            s = g.durations[d]
            rows.append([g.group, d, s.count, s.mean, s.p50, s.p90, s.p99, s.max])
    return rows


def _cluster_rows(report: Report) -> list[list[object]]:
    rows: list[list[object]] = []
    for g in report.groups:
        rows.append([g.group, g.workloads, g.succeeded, g.failed, g.makespan, g.throughput_per_min])
    return rows


def _utilisation_row(u: UtilisationSeries) -> list[object]:
    peak = max((s.value for s in u.ratio), default=0.0)
    return [u.resource, "-" if u.mean is None else f"{u.mean:.1%}", f"{peak:.1%}"]


def _admin_row(r: AdminAccessRecord, origin: datetime) -> list[object]:
    spans = ", ".join(f"{a:.1f}-{b:.1f}" for a, b in r.offsets(origin))
    return [f"{r.driver}/{r.pool}/{r.device}", r.node, r.namespace, r.claim, ", ".join(r.pods), spans,
            r.seconds]


def render_html(report: Report, *, title: str = "kbatch report") -> str:
    from kbatch.reporting.plots import figures, png_bytes

    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{escape(title)}</title>",
             f"<style>{_STYLE}</style></head><body><h1>{escape(title)}</h1>",
             f"<p>From {iso(report.origin)} to {iso(report.end)}; durations in seconds.</p>",
             "<h2>Aggregates</h2>",
             _table(["group", "metric", "n", "mean", "p50", "p90", "p99", "max"], _summary_rows(report)),
             "<h2>Cluster</h2>",
             _table(["group", "workloads", "succeeded", "failed", "makespan (s)", "throughput (/min)"],
                    _cluster_rows(report)),
             _table(["resource", "mean utilisation", "peak"],
                    [_utilisation_row(u) for u in report.utilisation])]
    if report.admin_access:
        parts += ["<h2>Devices under admin access (not counted as use)</h2>",
                  _table(["resource", "mean share under admin access", "peak"],
                         [_utilisation_row(u) for u in report.admin_access_utilisation]),
                  _table(["device", "node", "namespace", "claim", "pods", "spans (s from origin)", "seconds"],
                         [_admin_row(r, report.origin) for r in report.admin_access])]
    for name, fig in figures(report).items():
        data = base64.b64encode(png_bytes(fig)).decode("ascii")
        parts.append(f'<h2>{escape(name)}</h2><img alt="{escape(name)}" src="data:image/png;base64,{data}">')
    rows = [[workload_row(r)[c] for c in WORKLOAD_COLUMNS] for r in report.workloads]
    parts += ["<h2>Workloads</h2>", _table(list(WORKLOAD_COLUMNS), rows), "</body></html>"]
    return "\n".join(parts)
