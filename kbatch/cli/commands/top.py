"""``kbatch top nodes|pods``: the simulation's resource usage, printed as ``kubectl top`` prints it.

Usage is ``metrics.k8s.io/v1beta1``'s (:mod:`kbatch.server.metrics_api`, what ``kubectl top`` reads
from ``kbatch serve``). Layout from kubectl ``pkg/cmd/top`` and ``pkg/metricsutil/metrics_printer.go``:
cpu in millicores (``250m``), memory in MiB (``1024Mi``), a node's percentages of its allocatable
(``--show-capacity``: its capacity) truncated to whole percents; every cell, the last too, is followed
by a tab, so tabwriter pads it. Rows are sorted by name (``-A``: namespace, name; ``--containers``:
containers by name too), or with ``--sort-by cpu|memory`` by usage, highest first (``metrics_sorter.go``;
ties keep name order). ``--sum`` adds kubectl's ``________`` line and the pods' total.
"""

from __future__ import annotations

from typing import Any

import typer

from kbatch.api.quantity import Quantity
from kbatch.api.tabwriter import tabwrite
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.resolve import DEFAULT_NAMESPACE

__all__ = ["register"]

Obj = dict[str, Any]


def _cpu(value: Any) -> str:
    return f"{Quantity(value or 0).milli_value()}m"


def _memory(value: Any) -> str:
    return f"{Quantity(value or 0).value() // (1024 * 1024)}Mi"


def _percent(value: Any, available: Any) -> str:
    """kubectl's fraction of the node's allocatable (or capacity): milli-units, truncated."""
    used, whole = Quantity(value or 0), Quantity(available or 0)
    if whole.is_zero():
        return "0%"
    return f"{int(used.milli_value() / whole.milli_value() * 100)}%"


def _line(cells: list[str]) -> str:
    """kubectl's ``printValue``: every cell, the last too, followed by a tab."""
    return "".join(f"{c}\t" for c in cells)


def _tabbed(lines: list[str]) -> str:
    return tabwrite("\n".join(lines), minwidth=6, padding=3)  # cli-runtime GetNewTabWriter


def _usage(items: list[Obj]) -> dict[str, Quantity]:
    """The summed ``cpu`` and ``memory`` of ``items`` (containers' or nodes' usage)."""
    total = {"cpu": Quantity(0), "memory": Quantity(0)}
    for item in items:
        for name in total:
            total[name] = total[name].add(Quantity((item.get("usage") or {}).get(name, 0)))
    return total


def _by_usage(sort_by: str | None, usage: Any, name: Any) -> Any:
    """kubectl's metrics sorters: ``cpu``/``memory`` descending by value (ties keep the API's name
    order, as Go's insertion sort does for the short lists it sorts that way), else by name."""
    def key(item: Any) -> Any:
        if sort_by == "cpu":
            return -usage(item)["cpu"].milli_value()
        if sort_by == "memory":
            return -usage(item)["memory"].value()
        return name(item)
    return key


def format_nodes(metrics: list[Obj], nodes: dict[str, Obj], headers: bool = True, sort_by: str | None = None,
                 capacity: bool = False) -> str:
    """``kubectl top nodes``' table (``--show-capacity``: percentages of capacity, not allocatable)."""
    lines = [_line(["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"])] if headers else []
    ordered = sorted(metrics, key=_by_usage(sort_by, lambda m: _usage([m]), lambda m: m["metadata"]["name"]))
    for m in ordered:
        name = m["metadata"]["name"]
        status = (nodes.get(name) or {}).get("status") or {}
        available = status.get("capacity" if capacity else "allocatable") or {}
        usage = m.get("usage") or {}
        lines.append(_line([name, _cpu(usage.get("cpu")), _percent(usage.get("cpu"), available.get("cpu")),
                            _memory(usage.get("memory")),
                            _percent(usage.get("memory"), available.get("memory"))]))
    return _tabbed(lines) if lines else ""


def format_pods(metrics: list[Obj], all_namespaces: bool, containers: bool, headers: bool = True,
                sort_by: str | None = None, total: bool = False) -> str:
    """``kubectl top pods``' table; ``total`` is ``--sum``'s two closing lines (kubectl counts the
    NAMESPACE and POD columns towards their indent only when it prints headers)."""
    head = (["NAMESPACE"] if all_namespaces else []) + (["POD"] if containers else [])
    lines = [_line([*head, "NAME", "CPU(cores)", "MEMORY(bytes)"])] if headers else []
    width = 3 + (len(head) if headers else 0)

    def name(m: Obj) -> Any:
        meta = m["metadata"]
        return (meta.get("namespace", ""), meta["name"]) if all_namespaces else meta["name"]

    ordered = sorted(metrics, key=_by_usage(sort_by, lambda m: _usage(m.get("containers") or []), name))
    for m in ordered:
        meta = m["metadata"]
        prefix = [meta.get("namespace", "")] if all_namespaces else []
        if containers:
            rows = sorted(m.get("containers") or (), key=_by_usage(sort_by, lambda c: _usage([c]),
                                                                    lambda c: c["name"]))
            lines += [_line([*prefix, meta["name"], c["name"], _cpu(c["usage"].get("cpu")),
                             _memory(c["usage"].get("memory"))]) for c in rows]
            continue
        usage = _usage(m.get("containers") or [])
        lines.append(_line([*prefix, meta["name"], _cpu(str(usage["cpu"])), _memory(str(usage["memory"]))]))
    if total:
        summed = _usage([c for m in metrics for c in m.get("containers") or ()])
        lines.append(_line([""] * (width - 2) + ["________", "________"]))
        sums = [_cpu(str(summed["cpu"])), _memory(str(summed["memory"]))]
        lines.append(_line([""] * (width - 3) + ["", *sums]))
    return _tabbed(lines) if lines else ""


SELECTOR = typer.Option(None, "-l", "--selector", help="Label selector.")
NO_HEADERS = typer.Option(False, "--no-headers", help="Omit the header row.")
SHOW_CAPACITY = typer.Option(False, "--show-capacity", help="Nodes: percentages of capacity.")


@command
def top(ctx: typer.Context, what: str = typer.Argument(..., help="nodes (node, no) or pods (pod, po)."),
        name: str | None = typer.Argument(None, help="One node or pod."),
        namespace: str | None = NAMESPACE,
        all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="Pods of every namespace."),
        selector: str | None = SELECTOR, containers: bool = typer.Option(False, "--containers",
                                                                           help="One line per container."),
        no_headers: bool = NO_HEADERS,
        sort_by: str | None = typer.Option(None, "--sort-by", help="cpu or memory (highest first)."),
        total: bool = typer.Option(False, "--sum", help="Pods: print the sum of their usage."),
        show_capacity: bool = SHOW_CAPACITY) -> None:
    """Resource usage of nodes or pods (what each running container requests, or what the pod's
    kwok.x-k8s.io/usage-cpu|memory annotations declare), as kubectl top."""
    from kbatch.cli.session import session
    from kbatch.server.metrics_api import node_metrics_list, pod_metrics_list

    if sort_by and sort_by not in ("cpu", "memory"):
        raise UserError("--sort-by accepts only cpu or memory")
    with session(global_options(ctx), save=False) as backend:
        if what in ("node", "nodes", "no"):
            listed = node_metrics_list(backend, name, selector)
            items = [listed] if name else listed["items"]
            nodes = {n["metadata"]["name"]: n for n in backend.list(backend.registry.for_name("nodes").info,
                                                                       None)["items"]}
            text = format_nodes(items, nodes, not no_headers, sort_by, show_capacity)
        elif what in ("pod", "pods", "po"):
            ns = None if all_namespaces else namespace or DEFAULT_NAMESPACE
            listed = pod_metrics_list(backend, ns, name, selector)
            items = [listed] if name else listed["items"]
            text = format_pods(items, all_namespaces, containers, not no_headers, sort_by, total)
            if not items:
                typer.echo(f"No resources found{f' in {ns} namespace' if ns else ''}.", err=True)
                return
        else:
            raise UserError(f'unknown command "{what}" for "kbatch top": use nodes or pods')
        typer.echo(text)


def register(app: typer.Typer) -> None:
    app.command()(top)
