"""``kbatch top nodes|pods``: the simulation's resource usage, printed as ``kubectl top`` prints it.

Usage is ``metrics.k8s.io/v1beta1``'s (:mod:`kbatch.server.metrics_api`, what ``kubectl top`` reads
from ``kbatch serve``). Layout from kubectl ``pkg/cmd/top`` and ``pkg/metricsutil/metrics_printer.go``:
cpu in millicores (``250m``), memory in MiB (``1024Mi``), a node's percentages of its allocatable
truncated to whole percents; every cell, the last too, is followed by a tab, so tabwriter pads it.
"""

from __future__ import annotations

from typing import Any

import typer

from kbatch.api.quantity import Quantity
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.resolve import DEFAULT_NAMESPACE

__all__ = ["register"]

Obj = dict[str, Any]


def _cpu(value: Any) -> str:
    return f"{Quantity(value or 0).milli_value()}m"


def _memory(value: Any) -> str:
    return f"{Quantity(value or 0).value() // (1024 * 1024)}Mi"


def _percent(value: Any, allocatable: Any, milli: bool) -> str:
    used, whole = Quantity(value or 0), Quantity(allocatable or 0)
    if whole.is_zero():
        return "0%"
    ratio = (used.milli_value() / whole.milli_value()) if milli else (used.value() / whole.value())
    return f"{int(ratio * 100)}%"


def _tabbed(rows: list[list[str]]) -> str:
    """Go tabwriter (padding 3) over cells that all end in a tab: every column is padded."""
    widths = [max(len(r[i]) for r in rows) + 3 for i in range(len(rows[0]))]
    return "\n".join("".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in rows)


def format_nodes(metrics: list[Obj], nodes: dict[str, Obj], headers: bool = True) -> str:
    rows = [["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]] if headers else []
    for m in metrics:
        name = m["metadata"]["name"]
        allocatable = ((nodes.get(name) or {}).get("status") or {}).get("allocatable") or {}
        usage = m.get("usage") or {}
        rows.append([name, _cpu(usage.get("cpu")), _percent(usage.get("cpu"), allocatable.get("cpu"), True),
                     _memory(usage.get("memory")),
                     _percent(usage.get("memory"), allocatable.get("memory"), False)])
    return _tabbed(rows) if rows else ""


def format_pods(metrics: list[Obj], all_namespaces: bool, containers: bool, headers: bool = True) -> str:
    head = (["NAMESPACE"] if all_namespaces else []) + (["POD"] if containers else [])
    rows = [[*head, "NAME", "CPU(cores)", "MEMORY(bytes)"]] if headers else []
    for m in metrics:
        meta = m["metadata"]
        prefix = [meta.get("namespace", "")] if all_namespaces else []
        if containers:
            rows += [[*prefix, meta["name"], c["name"], _cpu(c["usage"].get("cpu")),
                      _memory(c["usage"].get("memory"))] for c in m.get("containers") or ()]
            continue
        cpu, memory = Quantity(0), Quantity(0)
        for c in m.get("containers") or ():
            cpu = cpu.add(Quantity(c["usage"].get("cpu", 0)))
            memory = memory.add(Quantity(c["usage"].get("memory", 0)))
        rows.append([*prefix, meta["name"], _cpu(str(cpu)), _memory(str(memory))])
    return _tabbed(rows) if rows else ""


SELECTOR = typer.Option(None, "-l", "--selector", help="Label selector.")
NO_HEADERS = typer.Option(False, "--no-headers", help="Omit the header row.")


@command
def top(ctx: typer.Context, what: str = typer.Argument(..., help="nodes (node, no) or pods (pod, po)."),
        name: str | None = typer.Argument(None, help="One node or pod."),
        namespace: str | None = NAMESPACE,
        all_namespaces: bool = typer.Option(False, "-A", "--all-namespaces", help="Pods of every namespace."),
        selector: str | None = SELECTOR, containers: bool = typer.Option(False, "--containers",
                                                                           help="One line per container."),
        no_headers: bool = NO_HEADERS) -> None:
    """Resource usage of nodes or pods (what each running container requests), as kubectl top."""
    from kbatch.cli.session import session
    from kbatch.server.metrics_api import node_metrics_list, pod_metrics_list

    with session(global_options(ctx), save=False) as backend:
        if what in ("node", "nodes", "no"):
            listed = node_metrics_list(backend, name, selector)
            items = [listed] if name else listed["items"]
            nodes = {n["metadata"]["name"]: n for n in backend.list(backend.registry.for_name("nodes").info,
                                                                       None)["items"]}
            text = format_nodes(items, nodes, not no_headers)
        elif what in ("pod", "pods", "po"):
            ns = None if all_namespaces else namespace or DEFAULT_NAMESPACE
            listed = pod_metrics_list(backend, ns, name, selector)
            items = [listed] if name else listed["items"]
            text = format_pods(items, all_namespaces, containers, not no_headers)
            if not items:
                typer.echo(f"No resources found{f' in {ns} namespace' if ns else ''}.", err=True)
                return
        else:
            raise UserError(f'unknown command "{what}" for "kbatch top": use nodes or pods')
        typer.echo(text)


def register(app: typer.Typer) -> None:
    app.command()(top)
