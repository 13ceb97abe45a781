"""A report as PNG pictures (matplotlib, loaded only here).

=================  ======================================================================
utilisation.png    requested / allocatable per resource over time (steps); DRA devices under
                   admin access (not use) dotted, in their resource's colour
queue.png          pending pods and pending workloads over time (steps)
durations.png      the distribution (empirical CDF) of completion time, queueing delay,
                   scheduling latency and run time
gantt.png          every pod that ran, a bar on its node's row from start to finish, one
                   colour per workload
=================  ======================================================================

With a node group (``--node-group LABEL``) also ``utilisation_by_node_group.png``: a panel per
resource, a line per value of the label.

Figures are drawn on matplotlib's object API (``Figure`` and the Agg canvas), never ``pyplot``:
no global state, no display needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kbatch.reporting.series import Step

if TYPE_CHECKING:
    from kbatch.reporting.report import Report

__all__ = ["PLOTS", "figures", "write_plots"]

PLOTS = ("utilisation", "queue", "durations", "gantt")
_DPI = 100


def _figure(width: float = 8.0, height: float = 4.0) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=_DPI, layout="constrained")


def _xy(steps: Sequence[Step], horizon: float) -> tuple[list[float], list[float]]:
    xs = [s.t for s in steps] + [horizon]
    ys = [s.value for s in steps] + [steps[-1].value if steps else 0.0]
    return xs, ys


def _horizon(report: Report) -> float:
    return max((report.end - report.origin).total_seconds(), 1e-9)


def utilisation_figure(report: Report) -> Any:
    fig = _figure()
    ax = fig.add_subplot()
    horizon = _horizon(report)
    admin = {u.resource: u for u in report.admin_access_utilisation}
    for u in report.utilisation:
        xs, ys = _xy(u.ratio, horizon)
        [line] = ax.step(xs, [y * 100 for y in ys], where="post", label=u.resource)
        if u.resource in admin:  # devices under admin access: not use, drawn apart (dotted, same colour)
            xs, ys = _xy(admin[u.resource].ratio, horizon)
            ax.step(xs, [y * 100 for y in ys], where="post", linestyle=":", color=line.get_color(),
                    label=f"{u.resource} under admin access")
    ax.set(title="Utilisation (requests / allocatable)", xlabel="time (s)", ylabel="%", ylim=(0, 105),
           xlim=(0, horizon))
    if report.utilisation:
        ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return fig


def node_group_figure(report: Report) -> Any:
    """One panel per resource, one line per node group (``--node-group LABEL``)."""
    resources = [u.resource for u in report.utilisation]
    fig = _figure(8.0, 2.2 * max(len(resources), 1) + 0.6)
    axes = fig.subplots(max(len(resources), 1), 1, sharex=True, squeeze=False)[:, 0]
    horizon = _horizon(report)
    for ax, resource in zip(axes, resources, strict=False):
        for group, series in report.utilisation_by_node_group:
            u = next(s for s in series if s.resource == resource)
            xs, ys = _xy(u.ratio, horizon)
            ax.step(xs, [y * 100 for y in ys], where="post", label=group)
        ax.set(title=f"{resource} by {report.node_group}", ylabel="%", ylim=(0, 105), xlim=(0, horizon))
        ax.legend(loc="upper right", fontsize="small")
        ax.grid(alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    return fig


def queue_figure(report: Report) -> Any:
    from matplotlib.ticker import MaxNLocator

    fig = _figure()
    ax = fig.add_subplot()
    horizon = _horizon(report)
    for steps, label, style in ((report.pending_pods, "pending pods", "-"),
                                (report.pending_workloads, "pending workloads", "--")):
        xs, ys = _xy(steps, horizon)
        ax.step(xs, ys, where="post", label=label, linestyle=style)
    ax.set(title="Queue length", xlabel="time (s)", ylabel="count", xlim=(0, horizon))
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return fig


def durations_figure(report: Report) -> Any:
    fig = _figure()
    ax = fig.add_subplot()
    for name in ("completion_time", "queueing_delay", "scheduling_latency", "run_time"):
        values = sorted(v for v in (getattr(r, name) for r in report.workloads) if v is not None)
        if values:
            n = len(values)
            ax.step([values[0], *values], [0.0, *((i + 1) / n for i in range(n))], where="post", label=name)
    ax.set(title="Distribution over workloads (CDF)", xlabel="seconds", ylabel="fraction of workloads",
           ylim=(0, 1.05))
    ax.set_xlim(left=0)
    if ax.lines:
        ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    return fig


def gantt_figure(report: Report) -> Any:
    nodes = sorted({p.node for p in report.pods if p.node and p.started is not None})
    fig = _figure(8.0, max(2.5, 0.35 * len(nodes) + 1.5))
    ax = fig.add_subplot()
    horizon = _horizon(report)
    colours = [f"C{i}" for i in range(10)]
    index_of = {u: i for i, r in enumerate(report.workloads) for u in r.pod_uids}
    for pod in report.pods:
        if not pod.node or pod.started is None:
            continue
        start = (pod.started - report.origin).total_seconds()
        stop = (pod.finished - report.origin).total_seconds() if pod.finished else horizon
        row = nodes.index(pod.node)
        ax.broken_barh([(start, max(stop - start, horizon / 1000))], (row - 0.4, 0.8),
                       facecolors=colours[index_of.get(pod.uid, 0) % len(colours)], edgecolors="black",
                       linewidth=0.3)
    ax.set_yticks(range(len(nodes)), labels=nodes)
    ax.set(title="Pods on nodes over time", xlabel="time (s)", xlim=(0, horizon),
           ylim=(-0.6, len(nodes) - 0.4))
    ax.invert_yaxis()
    ax.grid(axis="x", alpha=0.3)
    return fig


def figures(report: Report) -> dict[str, Any]:
    """The plots by name: :data:`PLOTS`, and ``utilisation_by_node_group`` with ``--node-group``."""
    out = {"utilisation": utilisation_figure(report), "queue": queue_figure(report),
           "durations": durations_figure(report), "gantt": gantt_figure(report)}
    if report.utilisation_by_node_group:
        out["utilisation_by_node_group"] = node_group_figure(report)
    return out


def png_bytes(fig: Any) -> bytes:
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    out = io.BytesIO()
    fig.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def write_plots(report: Report, directory: str | Path) -> list[Path]:
    """Write every plot as ``DIR/<name>.png`` (the directory is created); returns the paths."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, fig in figures(report).items():
        path = target / f"{name}.png"
        path.write_bytes(png_bytes(fig))
        written.append(path)
    return written
