"""Reading commands: get (with watch), describe, events, logs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import typer

from kbatch.api.jsonpath import TemplateError, compile_template, evaluate, evaluate_as_json
from kbatch.cli.durations import duration_option
from kbatch.cli.errors import UserError, command
from kbatch.cli.metrics_get import metrics_items, metrics_table, readable_virtual
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.outputs import add_label_columns, columns_from_file, custom_columns, sort_objects
from kbatch.cli.render import as_list, format_table, render_json, render_name, render_yaml
from kbatch.cli.resolve import DEFAULT_NAMESPACE, kind_info, kinds_for, namespace_for, split_kind_name
from kbatch.cli.warnings import warn_deprecated

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["register"]

ALL_NAMESPACES = typer.Option(False, "-A", "--all-namespaces", help="List across all namespaces.")
OUTPUTS = ("wide", "yaml", "json", "name", "jsonpath", "jsonpath-file", "jsonpath-as-json", "custom-columns",
           "custom-columns-file")
TEMPLATED = ("jsonpath", "jsonpath-file", "jsonpath-as-json", "custom-columns", "custom-columns-file")
DOCUMENTS = ("yaml", "json", "name", "jsonpath", "jsonpath-as-json", "custom-columns")
GO_TEMPLATES = ("go-template", "go-template-file", "template", "templatefile")
NO_GO_TEMPLATES = ("kbatch does not print Go templates (-o go-template, go-template-file, template, "
                   "templatefile, --template): no maintained Python library runs Go's text/template "
                   "faithfully; use -o jsonpath=… or kubectl against kbatch serve")


@dataclass(frozen=True)
class TableView:
    """How a table is printed: ``-o wide``, ``--no-headers``, ``-L``, ``--show-labels``."""

    output: str | None = None
    headers: bool = True
    label_columns: list[str] = field(default_factory=list)
    show_labels: bool = False


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    """kubectl's default ``--show-managed-fields=false``: json and yaml omit ``metadata.managedFields``."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}


def _print_objects(objs: list[dict[str, Any]], output: str, single: bool,
                   show_managed_fields: bool = False, headers: bool = True) -> None:
    if not show_managed_fields:
        objs = [_without_managed_fields(o) for o in objs]
    if output == "name":
        for obj in objs:
            typer.echo(render_name(obj))
        return
    doc = objs[0] if single and len(objs) == 1 else as_list(objs)
    if output.startswith("jsonpath="):
        typer.echo(evaluate(compile_template(output.partition("=")[2]), doc), nl=False)
    elif output.startswith("jsonpath-as-json="):
        typer.echo(evaluate_as_json(compile_template(output.partition("=")[2]), doc), nl=False)
    elif output.startswith("custom-columns="):
        text = custom_columns(output.partition("=")[2], objs, headers=headers)
        if text:
            typer.echo(text)
    else:
        typer.echo(render_json(doc) if output == "json" else render_yaml(doc))


def _read_template(path: str, what: str = "--template") -> str:
    """A ``-file`` format's template, with kubectl's message when it cannot be read (``error reading
    --template F`` for jsonpath-file, ``error reading template F`` for custom-columns-file)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        reason = (err.strerror or str(err)).lower()  # Go's *PathError: "open F: no such file or directory"
        raise UserError(f"error reading {what} {path}, open {path}: {reason}") from None


def _kind_infos(registry: Any, kinds: list[str], named: bool) -> list[Any]:
    """The kinds ``get`` lists. A create-only review has no ``GET`` route: its collection answers
    go-restful's 405 (:func:`kbatch.cli.resolve.kind_info`), a name under it the 404 of a path with
    no route at all, as kubectl sees them from a real API server."""
    from kbatch.api.errors import MethodNotAllowed
    from kbatch.server.routing import route_not_found

    try:
        return [info for k in kinds for info in kinds_for(registry, k)]
    except MethodNotAllowed:
        if named:
            raise route_not_found() from None
        raise


def _check_output(output: str | None) -> str | None:
    """kubectl's printer flags: a bad format or template is one error line before anything is read.
    Returns the output with a ``-file`` format's file read in (cli-runtime ``jsonpath_flags.go``,
    kubectl ``customcolumn_flags.go``): ``jsonpath-file=F`` → ``jsonpath=…``, ``custom-columns-file=F``
    → ``custom-columns=…`` (kubectl prints that one's headers even with ``--no-headers``)."""
    if output is None:
        return None
    name, sep, arg = output.partition("=")
    if name in GO_TEMPLATES:
        raise UserError(NO_GO_TEMPLATES)
    if name not in OUTPUTS or bool(sep) != (name in TEMPLATED):
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        f'formats are: {",".join(sorted(OUTPUTS))}')
    if sep and not arg:
        raise UserError("template format specified but no template given")
    if name == "jsonpath-file":
        name, arg = "jsonpath", _read_template(arg)
    elif name == "custom-columns-file":
        name, arg = "custom-columns", columns_from_file(_read_template(arg, "template"))
    try:
        if name in ("jsonpath", "jsonpath-as-json"):
            compile_template(arg)
        elif name == "custom-columns":
            custom_columns(arg, [])
    except TemplateError as err:
        raise UserError(f"error parsing {name} {arg}, {err}") from None
    return f"{name}={arg}" if sep else name


def _table_text(backend: Backend, info: Any, objs: list[dict[str, Any]], view: TableView,
                all_ns: bool, prefix: bool = False, now: datetime | None = None) -> str:
    """kubectl's table; with several kinds, names read ``job.batch/pi`` as kubectl prints them."""
    from kbatch.server.table import build_table

    table = build_table(objs, backend.registry.for_gvk(info.api_version, info.kind).table_printer,
                        now or backend.now())
    table = add_label_columns(table, objs, view.label_columns, view.show_labels)
    if prefix:
        label = f"{info.kind.lower()}.{info.group}" if info.group else info.kind.lower()
        for row in table["rows"]:
            row["cells"][0] = f"{label}/{row['cells'][0]}"
    return format_table(table, wide=view.output == "wide", with_namespace=all_ns and info.namespaced,
                        headers=view.headers)


def _fetch(backend: Backend, info: Any, ns: str | None, names: list[str], selector: str | None,
           field_selector: str | None) -> tuple[list[dict[str, Any]], str, bool]:
    from kbatch.api.errors import NotFound

    if not names:
        listed = backend.list(info, ns, label_selector=selector, field_selector=field_selector)
        return listed["items"], (listed.get("metadata") or {}).get("resourceVersion", ""), False
    objs, failed = [], False
    for name in names:
        try:
            objs.append(backend.get(info, ns, name))
        except NotFound as err:
            typer.echo(f"Error from server (NotFound): {err.message}", err=True)
            failed = True
    return objs, "", failed


LABEL_COLUMNS = typer.Option(None, "-L", "--label-columns",
                             help="A column per label key (repeat, or comma-separate).")


# cli-runtime ``pkg/resource/builder.go`` ``missingResourceError``: what kubectl get -w without a type meets
MISSING_RESOURCE = ("You must provide one or more resources by argument or filename.\n"
                    "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
                    "   '<resource> <name>'\n   '<resource>'")


def _missing_kind(ctx: typer.Context, watch: bool) -> UserError:
    """``get`` without a resource type, as kubectl words it (k8s.io/kubectl ``pkg/cmd/get/get.go``
    ``Complete``): a line on stderr, a blank one, then a usage error naming the parent's ``explain`` and
    the command's ``-h`` by the running program's command path (cobra's ``CommandPath``, kbatch's here,
    as the usage errors of ``kbatch/cli/app.py``); the first line's ``api-resources`` too
    (``cmdutil.SuggestAPIResources``). With ``--watch`` kubectl skips that check and its resource
    builder refuses instead."""
    if watch:
        return UserError(MISSING_RESOURCE)
    parent = ctx.parent.command_path if ctx.parent is not None else "kbatch"
    typer.echo(f'You must specify the type of resource to get. Use "{parent} api-resources" for a complete '
               "list of supported resources.\n", err=True)
    return UserError(f'Required resource not specified.\nUse "{parent} explain <resource>" for a detailed '
                     f"description of that resource (e.g. {parent} explain pods).\n"
                     f"See '{ctx.command_path} -h' for help and examples")


def _raw(ctx: typer.Context, uri: str, kind: str | None, names: list[str] | None) -> None:
    """``get --raw``: kubectl refuses arguments beside it (``get.go`` ``Validate``)."""
    import sys

    from kbatch.cli.raw_get import raw_get
    from kbatch.cli.session import session

    if kind is not None or names:
        raise UserError("arguments may not be passed when --raw is specified")
    with session(global_options(ctx), save=False) as backend:
        sys.stdout.write(raw_get(backend, uri))


@command
def get(ctx: typer.Context, kind: str | None = typer.Argument(None,
                                                       help="KIND[,KIND…], a category (all) or KIND/NAME "
                                                            "(short names work)."),
        names: list[str] | None = typer.Argument(None, help="Names of the objects."),
        namespace: str | None = NAMESPACE, all_namespaces: bool = ALL_NAMESPACES,
        selector: str | None = typer.Option(None, "-l", "--selector", help="Label selector."),
        field_selector: str | None = typer.Option(None, "--field-selector", help="Field selector."),
        output: str | None = typer.Option(None, "-o", "--output",
                                          help="wide, yaml, json, name, jsonpath=TEMPLATE, "
                                               "jsonpath-file=FILE, jsonpath-as-json=TEMPLATE, "
                                               "custom-columns=HEADER:EXPR,… or custom-columns-file=FILE"),
        sort_by: str | None = typer.Option(None, "--sort-by", help="Sort by a JSONPath field, e.g. "
                                                                    "{.metadata.name}."),
        label_columns: list[str] | None = LABEL_COLUMNS,
        show_labels: bool = typer.Option(False, "--show-labels", help="Add a LABELS column."),
        template: str | None = typer.Option(None, "--template", help="Go templates are not supported "
                                                                     "(an error that says so)."),
        watch: bool = typer.Option(False, "-w", "--watch", help="After listing, watch for changes."),
        no_headers: bool = typer.Option(False, "--no-headers", help="Omit the header row."),
        show_managed_fields: bool = typer.Option(False, "--show-managed-fields",
                                                 help="Keep metadata.managedFields in json and yaml."),
        request_timeout: str = typer.Option("0", "--request-timeout",
                                            help="Stop watching after this long (Go duration, e.g. 30s; "
                                                 "0: never)."),
        raw: str | None = typer.Option(None, "--raw", help="Print the server's answer to GET of this URI "
                                                           "as is (kubectl get --raw).")) -> None:
    """List objects or show some, with kubectl's columns."""
    from kbatch.cli.session import session

    if raw is not None:
        _raw(ctx, raw, kind, names)
        return
    if kind is None:
        raise _missing_kind(ctx, watch)

    timeout = math.ceil(duration_option(request_timeout, "--request-timeout", bare_seconds=True))
    if template is not None:
        raise UserError(NO_GO_TEMPLATES)
    custom_file = (output or "").startswith("custom-columns-file=")
    output = _check_output(output)
    view = TableView(output, not no_headers or custom_file,
                     [k for v in label_columns or () for k in v.split(",") if k],
                     show_labels)
    kind, first = split_kind_name(kind)
    wanted = ([first] if first else []) + list(names or [])
    kinds = [k for k in kind.split(",") if k]
    if len(kinds) > 1 and (wanted or watch):
        raise UserError("several kinds can be listed together, but not with names or --watch")
    with session(global_options(ctx), save=False) as backend:
        metrics = readable_virtual(backend.registry, kinds[0]) if len(kinds) == 1 else None
        if metrics is not None:
            if watch:
                raise UserError("watch is not supported by the metrics API")  # metrics-server: no Watcher
            ns = namespace_for(_virtual_info(metrics), namespace, all_namespaces)
            items = metrics_items(backend, metrics, ns, wanted, selector, field_selector)
            _print_metrics(items, wanted, view, all_namespaces and metrics.namespaced, show_managed_fields,
                           ns)
            return
        infos = _kind_infos(backend.registry, kinds, bool(wanted))
        warn_deprecated(backend.registry, [(i.api_version, i.kind) for i in infos])
        if len(infos) > 1 and (wanted or watch):
            raise UserError("several kinds can be listed together, but not with names or --watch")
        found: list[tuple[Any, list[dict[str, Any]]]] = []
        failed, rv = False, ""
        for info in infos:
            ns = namespace_for(info, namespace, all_namespaces)
            objs, rv, missing = _fetch(backend, info, ns, wanted, selector, field_selector)
            failed = failed or missing
            found.append((info, objs))
        _print_found(backend, found, wanted, view, sort_by, all_namespaces, show_managed_fields,
                     namespace_for(infos[0], namespace, all_namespaces))
        if watch:
            info = infos[0]
            _watch(backend, info, namespace_for(info, namespace, all_namespaces), selector, field_selector,
                   rv, view, all_namespaces, timeout)
    if failed:
        raise typer.Exit(1)


def _virtual_info(resource: Any) -> Any:
    from kbatch.cli.virtual_create import virtual_info

    return virtual_info(resource)


def _print_metrics(items: list[dict[str, Any]], wanted: list[str], view: TableView, all_ns: bool,
                   show_managed_fields: bool, ns: str | None) -> None:
    """NodeMetrics or PodMetrics as kubectl prints metrics-server's (:mod:`kbatch.cli.metrics_get`)."""
    output = view.output or ""
    if output.partition("=")[0] in DOCUMENTS:
        if items or not wanted:
            _print_objects(items, output, single=len(wanted) == 1, show_managed_fields=show_managed_fields,
                           headers=view.headers)
    elif items:
        typer.echo(format_table(metrics_table(items), wide=output == "wide", with_namespace=all_ns,
                                headers=view.headers))
    elif not wanted:
        typer.echo(f"No resources found in {ns} namespace." if ns else "No resources found", err=True)


def _sorted(objs: list[dict[str, Any]], sort_by: str | None) -> list[dict[str, Any]]:
    if not sort_by or not objs:
        return objs
    try:
        return sort_objects(objs, sort_by)
    except TemplateError as err:
        raise UserError(str(err)) from None


def _print_found(backend: Backend, found: list[tuple[Any, list[dict[str, Any]]]], wanted: list[str],
                 view: TableView, sort_by: str | None, all_ns: bool, show_managed_fields: bool,
                 ns: str | None) -> None:
    everything = _sorted([o for _, objs in found for o in objs], sort_by)
    output = view.output or ""
    if output.partition("=")[0] in DOCUMENTS:
        if everything or not wanted:
            _print_objects(everything, output, single=len(wanted) == 1,
                           show_managed_fields=show_managed_fields, headers=view.headers)
    elif everything:
        tables = [_table_text(backend, info, _sorted(objs, sort_by), view, all_ns, prefix=len(found) > 1)
                  for info, objs in found if objs]
        typer.echo("\n\n".join(tables))
    elif not wanted:
        # kubectl get (k8s.io/kubectl pkg/cmd/get/get.go, Run): the namespace only when every kind listed
        # is namespaced and not -A; otherwise "No resources found", without a full stop
        namespaced = not all_ns and all(info.namespaced for info, _ in found)
        typer.echo(f"No resources found in {ns} namespace." if namespaced else "No resources found", err=True)


def _watch(backend: Backend, info: Any, ns: str | None, selector: str | None, field_selector: str | None,
           rv: str, view: TableView, all_ns: bool, timeout: int) -> None:
    """Print each change as it comes, where something else can change the state: ``kbatch serve``
    (remote mode) or etcd (``--etcd-servers``, shared with the servers on it); a local state
    directory is this command's alone, so its list is all there is."""
    from kbatch.server.backend import WatchOptions
    from kbatch.server.facade import SelfDrivenBackend

    opts = WatchOptions(label_selector=selector, field_selector=field_selector, resource_version=rv or None,
                        timeout_seconds=timeout or None)
    if getattr(backend, "remote", False):
        from kbatch.cli.remote import HttpBackend

        assert isinstance(backend, HttpBackend)  # the remote backend, whose watch is a blocking iterator
        events: Any = backend.watch(info, ns, opts)
    elif isinstance(backend, SelfDrivenBackend):  # on etcd: the store pushes other processes' writes
        events = _pushed_events(backend.watch(info, ns, opts), timeout)
    else:
        return
    opened = backend.now()
    try:
        for event in events:
            _print_event(backend, info, event, view, all_ns, opened)
    except KeyboardInterrupt:
        pass
    finally:
        events.close()


_SIGNAL_SLICE = 0.25  # seconds a watch waits for the store before it checks for a pending signal


def _pushed_events(stream: Any, timeout: int) -> Iterator[dict[str, Any]]:
    """A pull-based store watch as a blocking iterator: wait for the store's notify, then poll; end
    after ``timeout`` seconds (``--request-timeout``; 0: until interrupted)."""
    import threading

    from kbatch.runtime.clock import RealClock

    woken = threading.Event()
    stream.set_notify(woken.set)
    clock = RealClock()  # the machine's clock is read only through runtime/clock.py
    deadline = clock.now() + timeout if timeout else None
    try:
        while True:
            yield from stream.poll()
            left = None if deadline is None else deadline - clock.now()
            if left is not None and left <= 0:
                return
            # in slices: the kernel may deliver Ctrl-C to one of gRPC's threads, and the main thread
            # only runs Python's handler (KeyboardInterrupt) once its own wait returns
            woken.wait(_SIGNAL_SLICE if left is None else min(left, _SIGNAL_SLICE))
            woken.clear()
    finally:
        stream.close()


def _print_event(backend: Backend, info: Any, event: dict[str, Any], view: TableView, all_ns: bool,
                 opened: datetime) -> None:
    """One change as a row measured as ``kubectl get -w`` gets it from the server: at the instant
    the change was committed (kbatch/server/table.py ``sent_at``), not at a later now."""
    from kbatch.api.errors import StatusError
    from kbatch.server.table import sent_at

    if event.get("type") == "ERROR":
        raise StatusError((event.get("object") or {}).get("message", "watch failed"))
    if event.get("type") not in ("ADDED", "MODIFIED", "DELETED"):
        return
    obj = event["object"]
    if view.output and view.output != "wide":
        _print_objects([obj], view.output, single=True, headers=False)
    else:
        typer.echo(_table_text(backend, info, [obj], replace(view, headers=False), all_ns,
                               now=sent_at(backend, obj, opened)))


@command
def describe(ctx: typer.Context, kind: str = typer.Argument(..., help="KIND or KIND/NAME."),
             name: str | None = typer.Argument(None, help="Name of the object."),
             namespace: str | None = NAMESPACE, all_namespaces: bool = ALL_NAMESPACES) -> None:
    """Show an object in detail, with its events."""
    from kbatch.cli.describe import describe_object
    from kbatch.cli.session import session

    kind, name = split_kind_name(kind, name)
    with session(global_options(ctx), save=False) as backend:
        info = kind_info(backend.registry, kind)
        warn_deprecated(backend.registry, [(info.api_version, info.kind)])
        ns = namespace_for(info, namespace, all_namespaces)
        objs = [backend.get(info, ns, name)] if name else backend.list(info, ns)["items"]
        spec = backend.registry.for_gvk(info.api_version, info.kind)
        # kubectl's describe command (k8s.io/kubectl pkg/cmd/describe/describe.go, Run): each page ends
        # in a newline and the next follows "\n\n"; nothing found names the namespace asked, even for a
        # cluster-scoped kind, and with -A none
        if not objs:
            where = "" if all_namespaces else f" in {namespace or DEFAULT_NAMESPACE} namespace."
            typer.echo(f"No resources found{where}", err=True)
            return
        typer.echo("\n\n\n".join(describe_object(backend, spec, obj) for obj in objs))


def _involves(event: dict[str, Any], kind: str | None, name: str | None) -> bool:
    ref = event.get("involvedObject") or {}
    return (not kind or (ref.get("kind") or "").lower() == kind) and (not name or ref.get("name") == name)


@command
def events(ctx: typer.Context, namespace: str | None = NAMESPACE, all_namespaces: bool = ALL_NAMESPACES,
           for_: str | None = typer.Option(None, "--for", help="Only events about KIND/NAME."),
           types: str | None = typer.Option(None, "--types", help="Comma-separated: Normal,Warning."),
           output: str | None = typer.Option(None, "-o", "--output", help="yaml or json.")) -> None:
    """List events, oldest first (as kubectl events)."""
    from kbatch.cli.session import session
    from kbatch.families.core.describe_text import event_sort_time

    kind_name = None
    if for_:
        kind, name = split_kind_name(for_)
        kind_name = (kind, name)
    with session(global_options(ctx), save=False) as backend:
        info = kind_info(backend.registry, "events")
        ns = namespace_for(info, namespace, all_namespaces)
        items = backend.list(info, ns)["items"]
        if kind_name:
            target = kind_info(backend.registry, kind_name[0]).kind.lower()
            items = [e for e in items if _involves(e, target, kind_name[1])]
        if types:
            wanted = {t.strip().lower() for t in types.split(",")}
            items = [e for e in items if (e.get("type") or "").lower() in wanted]
        items.sort(key=lambda e: (event_sort_time(e), (e.get("metadata") or {}).get("name", "")))
        if output in ("yaml", "json"):
            _print_objects(items, output, single=False)
        elif items:
            typer.echo(_table_text(backend, info, items, TableView(), all_namespaces))
        else:
            typer.echo(f"No events found{f' in {ns} namespace' if ns else ''}.", err=True)


@command
def logs(ctx: typer.Context, target: str = typer.Argument(..., help="POD, pod/NAME or job/NAME."),
         container: str | None = typer.Option(None, "-c", "--container", help="Container name."),
         namespace: str | None = NAMESPACE) -> None:
    """Print the logs of a pod's container (what the simulated container wrote)."""
    from kbatch.cli.log_target import choose_container
    from kbatch.cli.session import session

    kind, name = split_kind_name(target) if "/" in target else ("pod", target)
    with session(global_options(ctx), save=False) as backend:
        info = kind_info(backend.registry, kind)
        ns = namespace_for(info, namespace) or "default"
        pod = _log_pod(backend, info, ns, name or "")
        try:
            chosen, notice = choose_container(pod, container)
        except ValueError as err:
            raise UserError(str(err)) from None
        if notice:
            typer.echo(notice, err=True)
        typer.echo(backend.pod_log(ns, pod["metadata"]["name"], chosen), nl=False)


def _log_pod(backend: Any, info: Any, ns: str, name: str) -> dict[str, Any]:
    """The pod ``kubectl logs`` reads for a pod or a Job (kbatch/cli/log_target.py); the object is
    fetched first, a missing one worded as kubectl's builder wraps it."""
    from kbatch.api.errors import NotFound
    from kbatch.cli.log_target import choose_pod
    from kbatch.families.batch.describe import selector_string

    if info.kind not in ("Pod", "Job"):
        raise UserError(f"cannot get the logs from {info.kind}: kbatch reads the logs of pods and Jobs")
    try:
        obj = backend.get(info, ns, name)
    except NotFound as err:
        raise UserError(f"error from server (NotFound): {err.message} in namespace \"{ns}\"") from None
    if info.kind == "Pod":
        return dict(obj)
    selector = selector_string((obj.get("spec") or {}).get("selector") or {})
    pods = backend.list(kind_info(backend.registry, "pods"), ns, label_selector=selector)["items"]
    if not pods:
        raise UserError(f"no pods found for job/{name}")
    pod, notice = choose_pod(pods)
    if notice:
        typer.echo(notice, err=True)
    return dict(pod)


def register(app: typer.Typer) -> None:
    app.command()(get)
    app.command()(describe)
    app.command()(events)
    app.command()(logs)
