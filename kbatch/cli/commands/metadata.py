"""``kbatch label`` and ``kbatch annotate``, as kubectl's (k8s.io/kubectl v0.37.0-beta.0
``pkg/cmd/label/label.go`` ``RunLabel``, ``pkg/cmd/annotate/annotate.go`` ``RunAnnotate``).

Each object named (``TYPE NAME…``, ``TYPE/NAME…``, or ``TYPE`` with ``--all`` or ``-l``) is read, its
labels or annotations edited as :mod:`kbatch.cli.pairs` decides, and the change sent as the JSON merge
patch kubectl computes (``metadata.labels`` with the keys added and ``null`` for those removed; with
``--resource-version``, ``metadata.resourceVersion`` too, so the server refuses a stale one).
``--dry-run=client`` and ``--list`` send nothing; ``--dry-run=server`` sends the patch with
``dryRun=All``. kubectl prints ``--list``'s map in Go's random order; kbatch sorts the keys.
The write is recorded under ``--field-manager``, by default ``kbatch-label`` or ``kbatch-annotate``
(kubectl's defaults are ``kubectl-label`` and ``kubectl-annotate``; kbatch's own apply is ``kbatch``
where kubectl's is ``kubectl``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer

from kbatch.cli.dry_run import DRY_RUN_SUFFIX, dry_run_strategy
from kbatch.cli.errors import UserError, command, each_reporting
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.pairs import Edit, annotation_edit, apply_annotations, apply_labels, label_edit, split_args
from kbatch.cli.render import render_json, render_name, render_yaml
from kbatch.cli.resolve import kind_info, namespace_for

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["register"]

ARGS = typer.Argument(None, help="TYPE NAME… or TYPE/NAME…, then KEY=VAL or KEY- pairs.")
OVERWRITE = typer.Option(False, "--overwrite", help="Allow existing keys to get a new value.")
LIST = typer.Option(False, "--list", help="Print the object's keys and values instead.")
ALL = typer.Option(False, "--all", help="Every object of the type in the namespace.")
ALL_NAMESPACES = typer.Option(False, "-A", "--all-namespaces", help="In every namespace.")
SELECTOR = typer.Option(None, "-l", "--selector", help="Label selector.")
FIELD_SELECTOR = typer.Option(None, "--field-selector", help="Field selector (key=value, key!=value).")
RESOURCE_VERSION = typer.Option(None, "--resource-version",
                                help="Succeed only if this is the object's resourceVersion (one object).")
DRY_RUN = typer.Option("none", "--dry-run", help="none, client or server.")
OUTPUT = typer.Option(None, "-o", "--output", help="name, yaml or json.")
FILES = typer.Option(None, "-f", "--filename", help="Files naming the objects.")
LOCAL = typer.Option(False, "--local", help="Edit the objects of -f files; contact no server.")
LABEL_MANAGER = typer.Option("kbatch-label", "--field-manager",
                             help="Name of the manager tracking the change.")
ANNOTATE_MANAGER = typer.Option("kbatch-annotate", "--field-manager",
                                help="Name of the manager tracking the change.")


@dataclass(frozen=True, slots=True)
class Request:
    """One label or annotate command line, checked."""

    field: str  # "labels" or "annotations"
    edit: Edit
    overwrite: bool
    list_: bool
    resource_version: str | None
    dry_run: str
    output: str | None
    local: bool = False
    field_manager: str | None = None


@dataclass(frozen=True, slots=True)
class Selection:
    """Which objects of a TYPE: ``--all``, ``-A``, ``-l``, ``--field-selector``."""

    all_: bool = False
    all_namespaces: bool = False
    labels: str | None = None
    fields: str | None = None

    def any(self) -> bool:
        return bool(self.all_ or self.labels or self.fields)


@dataclass(frozen=True, slots=True)
class Target:
    info: Any
    namespace: str | None
    obj: dict[str, Any]




_EXAMPLE = {"labels": "pod.yaml", "annotations": "rsrc.yaml"}  # kubectl's two commands word it apart
_EXAMPLE_JSON = {"labels": "pod.json", "annotations": "rsrc.json"}


def _check(resources: list[str], edit: Edit, field: str, list_: bool, sel: Selection,
           dry_run: str, output: str | None, files: list[str], local: bool) -> None:
    """kubectl's ``Complete``/``Validate`` refusals, in its order."""
    dry_run_strategy(dry_run)
    if list_ and output:
        raise UserError("--list and --output may not be specified together")
    if sel.all_ and sel.labels:
        raise UserError("cannot set --all and --selector at the same time")
    if sel.all_ and sel.fields:
        raise UserError("cannot set --all and --field-selector at the same time")
    if local:
        if dry_run == "server":
            raise UserError("cannot specify --local and --dry-run=server - did you mean --dry-run=client?")
        if resources:
            raise UserError(f"can only use local files by -f {_EXAMPLE[field]} or "
                            f"--filename={_EXAMPLE_JSON[field]} when --local=true is set")
        if not files:
            raise UserError(f"one or more files must be specified as -f {_EXAMPLE[field]} or "
                            f"--filename={_EXAMPLE_JSON[field]}")
    elif not resources and not files:
        raise UserError("one or more resources must be specified as <resource> <name> or <resource>/<name>")
    if edit.empty() and not list_:
        raise UserError(f"at least one {field[:-1]} update is required")
    if output not in (None, "name", "yaml", "json"):
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        'formats are: json,name,yaml')


def _targets(backend: Backend, resources: list[str], namespace: str | None,
             sel: Selection) -> tuple[list[Any], bool]:
    """The objects named, as (info, namespace, name) or a listed object, and whether exactly one object
    was named (cli-runtime ``Result.IntoSingleItemImplied``)."""
    if all(("/" in r) for r in resources):
        named = []
        for text in resources:
            kind, _, name = text.partition("/")
            if not kind or not name:
                raise UserError("arguments in resource/name form must have a single resource and name: "
                                f'"{text}"')
            info = kind_info(backend.registry, kind)
            named.append((info, namespace_for(info, namespace), name))
        return named, len(named) == 1 and not sel.any()
    if any(("/" in r) for r in resources):
        raise UserError("there is no need to specify a resource type as a separate argument when passing "
                        "arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' "
                        "instead of 'kubectl get resource resource/<resource_name>'")
    info = kind_info(backend.registry, resources[0])
    names = resources[1:]
    if names:
        ns = namespace_for(info, namespace)
        return [(info, ns, name) for name in names], len(names) == 1
    if not sel.any():
        raise UserError("resource(s) were provided, but no name was specified")
    ns = namespace_for(info, namespace, sel.all_namespaces)
    items = backend.list(info, ns, label_selector=sel.labels, field_selector=sel.fields)["items"]
    return [Target(info, (i.get("metadata") or {}).get("namespace"), i) for i in items], False


def _file_targets(backend: Backend, files: list[str], namespace: str | None,
                  local: bool) -> tuple[list[Any], bool]:
    """The objects of ``-f`` files: as written (``--local``) or as the server has them now; one file
    (not a directory) implies a single object, as cli-runtime's builder decides."""
    import copy
    from pathlib import Path

    from kbatch.cli.commands.objects import _target
    from kbatch.cli.manifests import read_sourced_manifests

    targets: list[Any] = []
    for sourced in read_sourced_manifests(files):
        info, ns, name, _placed = _target(backend, sourced, namespace)
        # --local prints the object as the file has it (no namespace filled in)
        targets.append(Target(info, ns, copy.deepcopy(sourced[1])) if local else (info, ns, name))
    return targets, len(files) == 1 and files[0] != "-" and not Path(files[0]).is_dir()


def _patch(field: str, before: dict[str, str], after: dict[str, str], rv: str | None) -> dict[str, Any]:
    """The JSON merge patch between the two maps (jsonpatch ``CreateMergePatch`` on the object)."""
    changes: dict[str, Any] = {k: v for k, v in after.items() if before.get(k) != v}
    changes.update({k: None for k in before if k not in after})
    meta: dict[str, Any] = {field: changes} if changes else {}
    if rv:
        meta["resourceVersion"] = rv
    return {"metadata": meta}


def _one(backend: Backend, req: Request, target: Target, single: bool) -> str:
    """Edit one object; the lines kubectl prints for it."""
    from kbatch.server.backend import WriteOptions

    obj = target.obj
    meta = obj.setdefault("metadata", {})
    current = dict(meta.get(req.field) or {})
    lines: list[str] = []
    if req.field == "labels":
        new, word = apply_labels(current, req.edit, req.overwrite)
        if req.dry_run != "client" and not req.list_:
            lines += [f'label "{key}" not found.' for key in req.edit.remove if key not in current]
    else:
        new, word = apply_annotations(current, req.edit, req.overwrite), "annotated"
    edited = {**obj, "metadata": {**meta, req.field: new}}
    if req.resource_version:
        edited["metadata"]["resourceVersion"] = req.resource_version
    out = edited
    changed = new != current or (req.field == "annotations") or bool(req.resource_version)
    if req.dry_run != "client" and not req.list_ and changed:
        opts = WriteOptions(dry_run=req.dry_run == "server", field_manager=req.field_manager)
        out = backend.patch(target.info, target.namespace, meta["name"],
                            _patch(req.field, current, new, req.resource_version), "merge", opts)
    if req.list_:
        return "\n".join(lines + _listing(target.info, edited, req.field, single))
    shown = edited if req.field == "labels" else out  # label prints its own object, annotate the reply
    suffix = "" if req.local else DRY_RUN_SUFFIX[req.dry_run]
    return "\n".join([*lines, _print(shown, req.output, word + suffix, zeros=not req.local)])


def _listing(info: Any, obj: dict[str, Any], field: str, single: bool) -> list[str]:
    values = (obj.get("metadata") or {}).get(field) or {}
    indent = "" if single else " "
    head = [] if single else [f"Listing {field} for {info.kind}.{info.group}/{obj['metadata']['name']}:"]
    return head + [f"{indent}{k}={values[k]}" for k in sorted(values)]


def _print(obj: dict[str, Any], output: str | None, operation: str, zeros: bool = True) -> str:
    """cli-runtime ``NamePrintFlags``: the operation follows the name unless ``-o name`` asked
    (``ShortOutput``); json and yaml omit ``metadata.managedFields`` (``JSONYamlPrintFlags``,
    ``--show-managed-fields`` false). A ``--local`` object (``zeros`` off) is kubectl's unstructured
    read of the file and prints as written, without Go's empty structs."""
    if output == "name":
        return render_name(obj)
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
    if output == "json":
        return render_json({**obj, "metadata": meta}, zeros)
    if output == "yaml":
        return render_yaml({**obj, "metadata": meta}, zeros)
    return f"{render_name(obj)} {operation}"


def _run(ctx: typer.Context, field: str, args: list[str] | None, req_parts: dict[str, Any],
         namespace: str | None, sel: Selection) -> None:
    from kbatch.cli.session import session

    resources, pairs = split_args(args or [], field[:-1])
    edit = label_edit(pairs) if field == "labels" else annotation_edit(pairs)
    files, local = req_parts.pop("files"), req_parts.pop("local")
    _check(resources, edit, field, req_parts["list_"], sel, req_parts["dry_run"],
           req_parts["output"], files, local)
    if local:
        req_parts["dry_run"] = "client"  # nothing is sent; kubectl prints no "(dry run)" for --local
    req = Request(field=field, edit=edit, local=local, **req_parts)
    with session(global_options(ctx), save=not local) as backend:
        if files:
            targets, single = _file_targets(backend, files, namespace, local)
        else:
            targets, single = _targets(backend, resources, namespace, sel)
        if not single and req.resource_version:
            raise UserError("--resource-version may only be used with a single resource")
        def one(target: Any) -> str:
            if not isinstance(target, Target):
                info, ns, name = target
                target = Target(info, ns, backend.get(info, ns, name))
            return _one(backend, req, target, single)

        each_reporting(targets, one)


@command
def label(ctx: typer.Context, args: list[str] | None = ARGS, namespace: str | None = NAMESPACE,
          overwrite: bool = OVERWRITE, list_: bool = LIST, all_: bool = ALL,
          all_namespaces: bool = ALL_NAMESPACES, selector: str | None = SELECTOR,
          field_selector: str | None = FIELD_SELECTOR,
          resource_version: str | None = RESOURCE_VERSION, dry_run: str = DRY_RUN,
          output: str | None = OUTPUT, filename: list[str] | None = FILES, local: bool = LOCAL,
          field_manager: str = LABEL_MANAGER) -> None:
    """Update the labels of objects (KEY=VAL sets, KEY- removes), as kubectl label."""
    _run(ctx, "labels", args, dict(overwrite=overwrite, list_=list_, resource_version=resource_version,
                                   dry_run=dry_run, output=output, files=filename or [], local=local,
                                   field_manager=field_manager),
         namespace, Selection(all_, all_namespaces, selector, field_selector))


@command
def annotate(ctx: typer.Context, args: list[str] | None = ARGS, namespace: str | None = NAMESPACE,
             overwrite: bool = OVERWRITE, list_: bool = LIST, all_: bool = ALL,
             all_namespaces: bool = ALL_NAMESPACES, selector: str | None = SELECTOR,
             field_selector: str | None = FIELD_SELECTOR,
             resource_version: str | None = RESOURCE_VERSION, dry_run: str = DRY_RUN,
             output: str | None = OUTPUT, filename: list[str] | None = FILES, local: bool = LOCAL,
             field_manager: str = ANNOTATE_MANAGER) -> None:
    """Update the annotations of objects (KEY=VAL sets, KEY- removes), as kubectl annotate."""
    _run(ctx, "annotations", args, dict(overwrite=overwrite, list_=list_, resource_version=resource_version,
                                        dry_run=dry_run, output=output, files=filename or [], local=local,
                                        field_manager=field_manager),
         namespace, Selection(all_, all_namespaces, selector, field_selector))


def register(app: typer.Typer) -> None:
    app.command()(label)
    app.command()(annotate)
