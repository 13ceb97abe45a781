"""Object commands with kubectl's habits: apply, create, delete, patch.

The API layer and the state machinery are imported by the commands that run, not with this module,
so that parsing a command line (and ``kbatch serve``'s start) does not pay for them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from kbatch.cli.dry_run import DRY_RUN_SUFFIX
from kbatch.cli.durations import duration_option
from kbatch.cli.errors import UserError, command, each_reporting
from kbatch.cli.options import NAMESPACE, global_options
from kbatch.cli.render import render_json, render_name, render_yaml
from kbatch.cli.resolve import kind_info, namespace_for, split_kind_name

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["create_from_files", "format_output", "print_warnings", "register"]

FILES = typer.Option(..., "-f", "--filename", help="File, directory or - (stdin) with the objects.")
DRY_RUN = typer.Option("none", "--dry-run", help="none, client or server.")
SERVER_SIDE = typer.Option(False, "--server-side", help="Server-side apply: the server merges and tracks "
                           "field ownership (managedFields).")
# Each write command's default field manager follows kubectl's (k8s.io/kubectl v0.37.0-beta.0 pkg/cmd:
# create.go "kubectl-create", patch.go "kubectl-patch", apply.go FieldManagerClientSideApply
# "kubectl-client-side-apply" and, for --server-side, plain "kubectl"), "kubectl" read as "kbatch".
FIELD_MANAGER = typer.Option(None, "--field-manager", help="Name of the manager tracking the change "
                             "(default kbatch-client-side-apply; with --server-side, kbatch).")
_MANAGER_HELP = "Name of the manager tracking the change."
PATCH_MANAGER = typer.Option("kbatch-patch", "--field-manager", help=_MANAGER_HELP)
CLIENT_SIDE_APPLY_MANAGER = "kbatch-client-side-apply"
SERVER_SIDE_APPLY_MANAGER = "kbatch"
FORCE_CONFLICTS = typer.Option(False, "--force-conflicts", help="Server-side apply: take the fields other "
                               "managers own.")


def _dry(dry_run: str) -> tuple[bool, str]:
    if dry_run not in ("none", "client", "server"):
        raise UserError(f'invalid --dry-run value "{dry_run}": use none, client or server')
    return dry_run != "none", DRY_RUN_SUFFIX[dry_run]


Sourced = tuple[str, dict[str, Any]]  # an object of a manifest and the file it came from
Obj = dict[str, Any]


def _target(backend: Backend, sourced: Sourced, namespace: str | None) -> tuple[Any, str | None, str,
                                                                                dict[str, Any]]:
    """The kind, namespace and name an object goes to, and the object placed there (a copy). A kind
    the server does not serve is kubectl's client-side mapping error (cli-runtime ``mapper.go``)."""
    from kbatch.api.errors import BadRequest
    from kbatch.apiserver.client_apply import place
    from kbatch.cli.manifests import no_kind_match

    source, obj = sourced
    try:
        spec = backend.registry.for_gvk(obj["apiVersion"], obj["kind"])
    except BadRequest as err:
        raise no_kind_match(obj, source, err.message) from None
    placed = place(obj, spec.info, namespace)
    meta = placed["metadata"]
    return spec.info, meta.get("namespace"), meta.get("name") or "", placed


class _BackendVerbs:
    """Client-side apply's three calls over a Backend (local or HTTP), honouring ``--dry-run``."""

    def __init__(self, backend: Backend, info: Any, dry_run: str, manager: str) -> None:
        from kbatch.server.backend import WriteOptions

        self.backend, self.info, self.dry_run = backend, info, dry_run
        self.opts = WriteOptions(dry_run=dry_run == "server", field_manager=manager)

    def get(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """The live object as a server answers it, with Go's unset fields (kbatch.api.wire_zeros), as
        kubectl reads it: a file printed by ``get -o yaml`` then holds nothing the live object lacks."""
        from kbatch.api.errors import NotFound
        from kbatch.api.wire_zeros import with_wire_zeros

        meta = obj["metadata"]
        if not meta.get("name"):
            return None
        try:
            return with_wire_zeros(self.backend.get(self.info, meta.get("namespace"), meta["name"]))
        except NotFound:
            return None

    def create(self, obj: dict[str, Any]) -> dict[str, Any]:
        if self.dry_run == "client":
            return obj
        return self.backend.create(self.info, obj["metadata"].get("namespace"), obj, self.opts)

    def patch(self, obj: dict[str, Any], current: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
        if self.dry_run == "client":
            return current
        meta = obj["metadata"]
        return self.backend.patch(self.info, meta.get("namespace"), meta["name"], patch, "merge", self.opts)

    def unchanged(self, current: dict[str, Any]) -> dict[str, Any]:
        return current


def _no_generate_name(placed: dict[str, Any], name: str) -> None:
    """kubectl ``pkg/cmd/apply/apply.go`` ``applyOneObject``: an object named only by
    ``generateName`` is refused before any request, in either apply mode."""
    generate = placed["metadata"].get("generateName")
    if not name and generate:
        raise UserError(f"from {generate}: cannot use generate name with apply")


def _apply_one(backend: Backend, obj: Sourced, namespace: str | None, dry_run: str, manager: str) -> str:
    from kbatch.apiserver.client_apply import client_side_apply

    info, _ns, name, placed = _target(backend, obj, namespace)
    _no_generate_name(placed, name)
    _is_dry, suffix = _dry(dry_run)
    verbs = _BackendVerbs(backend, info, dry_run, manager)
    outcome, out = client_side_apply(verbs, placed)
    print_warnings(verbs.opts.warnings)
    return f"{render_name(out)} {outcome}{suffix}"


def _server_side_apply(backend: Backend, obj: Sourced, namespace: str | None, dry_run: str,
                       manager: str, force: bool) -> str:
    """``kubectl apply --server-side``: one apply patch per object (kubectl ``pkg/cmd/apply``)."""
    info, ns, name, placed = _target(backend, obj, namespace)
    _no_generate_name(placed, name)
    if not name:
        raise UserError("server-side apply needs metadata.name on every object")
    _is_dry, suffix = _dry(dry_run)
    from kbatch.server.backend import WriteOptions

    opts = WriteOptions(dry_run=dry_run == "server")
    out = backend.apply(info, ns, name, placed, opts, field_manager=manager, force=force)
    print_warnings(opts.warnings)
    return f"{render_name(out)} serverside-applied{suffix}"


def print_warnings(texts: list[str]) -> None:
    """The ``Warning:`` headers of a write, as kubectl prints them (stderr, before the result)."""
    for text in texts:
        typer.echo(f"Warning: {text}", err=True)


def _warn_deprecated(backend: Backend, objects: list[dict[str, Any]]) -> None:
    """kubectl's ``Warning:`` line for manifests of a deprecated served version (kbatch/cli/warnings.py)."""
    from kbatch.cli.warnings import warn_deprecated

    warn_deprecated(backend.registry, ((o.get("apiVersion", ""), o.get("kind", "")) for o in objects))


def _warn_info(backend: Backend, info: Any) -> None:
    from kbatch.cli.warnings import warn_deprecated

    warn_deprecated(backend.registry, [(info.api_version, info.kind)])


@command
def apply(ctx: typer.Context, filename: list[str] = FILES, namespace: str | None = NAMESPACE,
          dry_run: str = DRY_RUN, server_side: bool = SERVER_SIDE, field_manager: str | None = FIELD_MANAGER,
          force_conflicts: bool = FORCE_CONFLICTS) -> None:
    """Create or update objects from YAML/JSON files (client-side apply, as kubectl apply; with
    --server-side, server-side apply)."""
    from kbatch.cli.manifests import read_sourced_manifests
    from kbatch.cli.session import session

    objects = read_sourced_manifests(filename)
    _dry(dry_run)
    if force_conflicts and not server_side:
        raise UserError("--force-conflicts only works with --server-side")
    if server_side and dry_run == "client":  # kubectl's message
        raise UserError("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server "
                        "instead?)")
    # apply.go GetApplyFieldManagerFlag: the flag if given, else by mode
    manager = field_manager or (SERVER_SIDE_APPLY_MANAGER if server_side else CLIENT_SIDE_APPLY_MANAGER)
    with session(global_options(ctx)) as backend:
        _warn_deprecated(backend, [obj for _, obj in objects])
        if server_side:
            each_reporting(objects, lambda obj: _server_side_apply(backend, obj, namespace, dry_run,
                                                                   manager, force_conflicts))
        else:
            each_reporting(objects, lambda obj: _apply_one(backend, obj, namespace, dry_run, manager))


def create_from_files(ctx: typer.Context, filename: list[str], namespace: str | None, dry_run: str,
                      field_manager: str, output: str | None) -> None:
    """``kbatch create -f``: create the files' objects (fails for objects that already exist); a review
    (SubjectAccessReview, TokenReview, ...) is answered and not stored, as upstream's POST. The
    command itself is :mod:`kbatch.cli.commands.create_generators`'s, beside kubectl's generators."""
    from kbatch.cli.manifests import read_sourced_manifests
    from kbatch.cli.session import session
    from kbatch.server.backend import WriteOptions

    objects = read_sourced_manifests(filename)
    _is_dry, suffix = _dry(dry_run)

    with session(global_options(ctx)) as backend:
        _warn_deprecated(backend, [obj for _, obj in objects])

        def one(obj: Sourced) -> str:
            opts = WriteOptions(dry_run=dry_run == "server", field_manager=field_manager)
            out = _create_one(backend, obj, namespace, dry_run, opts)
            print_warnings(opts.warnings)
            return format_output(out, output) if output else f"{render_name(out)} created{suffix}"

        each_reporting(objects, one)


def _create_one(backend: Backend, sourced: Sourced, namespace: str | None, dry_run: str, opts: Any) -> Obj:
    """What creating one object answers: the stored object, or a virtual resource's answer
    (:mod:`kbatch.cli.virtual_create`); with ``--dry-run=client`` the object as it would be sent."""
    from kbatch.apiserver.client_apply import place
    from kbatch.cli.virtual_create import create_virtual, virtual_info

    _, obj = sourced
    resource = backend.registry.virtual_for(str(obj.get("apiVersion")), str(obj.get("kind")))
    if resource is None:
        info, ns, _, placed = _target(backend, sourced, namespace)
        return placed if dry_run == "client" else backend.create(info, ns, placed, opts)
    placed = place(obj, virtual_info(resource), namespace)
    return placed if dry_run == "client" else create_virtual(backend, resource, placed, opts)


_NO_ROUTE = object()  # a delete target whose path kube-apiserver has no route for (a review's name)

CASCADE = {"background": "Background", "foreground": "Foreground", "orphan": "Orphan",
           "true": "Background", "false": "Orphan"}


@command
def delete(ctx: typer.Context, kind: str | None = typer.Argument(None, help="KIND or KIND/NAME."),
           names: list[str] | None = typer.Argument(None, help="Names of the objects."),
           filename: list[str] | None = typer.Option(None, "-f", "--filename",
                                                     help="Delete what files name."),
           namespace: str | None = NAMESPACE,
           selector: str | None = typer.Option(None, "-l", "--selector", help="Label selector."),
           all_: bool = typer.Option(False, "--all",
                                     help="Delete every object of the kind in the namespace."),
           cascade: str = typer.Option("background", "--cascade", help="background, foreground or orphan."),
           grace_period: int | None = typer.Option(None, "--grace-period",
                                                   help="Seconds; 0 is sent as 1 unless --force."),
           force: bool = typer.Option(False, "--force", help="Delete at once (grace period 0), without "
                                      "waiting for the pods' termination."),
           wait: bool = typer.Option(False, "--wait", help="Wait until the objects are gone (their "
                                     "finalizers, their pods' termination), moving virtual time."),
           timeout: str = typer.Option("0s", "--timeout", help="With --wait, how long at most (Go duration; "
                                       "0: a week, as kubectl)."),
           dry_run: str = DRY_RUN) -> None:
    """Delete objects by kind and name, by selector, or as named in files (returns once accepted;
    with --wait, once they are gone)."""
    policy = CASCADE.get(cascade.lower())
    if policy is None:
        raise UserError(f'invalid cascade value "{cascade}": use background, foreground or orphan')
    is_dry, suffix = _dry(dry_run)
    grace_period = _grace_period(grace_period, force)
    operation = "force deleted" if grace_period == 0 else "deleted"
    from kbatch.cli.session import session
    from kbatch.server.backend import DeleteOptions

    opts = DeleteOptions(propagation_policy=policy, grace_period_seconds=grace_period, dry_run=is_dry)
    seconds = duration_option(timeout, "--timeout") or _WEEK
    deleted: list[tuple[Any, str | None, str]] = []
    with session(global_options(ctx)) as backend:
        targets = _delete_targets(backend, kind, names or [], filename, namespace, selector, all_)
        if not targets:
            typer.echo("No resources found")  # kubectl writes it to its Out stream
            return

        warn_cluster_scope = [namespace is not None]  # kubectl's WarnClusterScope: -n given

        def one(target: tuple[Any, str | None, str]) -> str:
            info, ns, name = target
            if info is _NO_ROUTE:
                from kbatch.server.routing import route_not_found

                raise route_not_found()
            label = f"{info.kind.lower()}.{info.group}" if info.group else info.kind.lower()
            if warn_cluster_scope[0] and not info.namespaced:  # once, before the first such delete
                typer.echo("Warning: deleting cluster-scoped resources, not scoped to the provided namespace",
                           err=True)
                warn_cluster_scope[0] = False
            if dry_run != "client":
                backend.delete(info, ns, name, opts)
                deleted.append(target)
            return f'{label} "{name}" {operation}{suffix}'

        each_reporting(targets, one)  # type: ignore[arg-type]
        if wait and not is_dry:
            _wait_gone(backend, deleted, seconds)


_WEEK = 168 * 3600.0  # kubectl delete's wait when --timeout is 0


def _wait_gone(backend: Any, deleted: list[tuple[Any, str | None, str]], seconds: float) -> None:
    """kubectl ``pkg/cmd/delete/delete.go`` ``RunDelete`` with ``--wait``: after every delete was
    accepted, wait (``cmdwait.IsDeleted``, printing nothing) for each object in turn until it is gone,
    all within one ``--timeout``; the first that is not is kubectl wait's timeout error."""
    from kbatch.cli.commands.timecmd import wait_until

    left = seconds
    for info, ns, name in deleted:
        spec: dict[str, object] = {"kind": info.plural + (f".{info.group}" if info.group else ""),
                                   "name": name, "namespace": ns, "delete": True}
        out = wait_until(backend, left, spec)
        if not out.get("met"):
            raise UserError(f"timed out waiting for the condition on {info.plural}/{name}")
        left = max(left - float(out.get("advancedSeconds") or 0.0), 0.0)


def _grace_period(seconds: int | None, force: bool) -> int | None:
    """kubectl ``pkg/cmd/delete/delete.go`` (``Complete``, ``Validate``): ``--grace-period=0`` without
    ``--force`` becomes 1, to prevent accidental data loss; ``--force`` alone means 0, with kubectl's
    warning; ``--force`` with a positive grace period is refused."""
    if seconds == 0 and not force:
        return 1
    if force and (seconds is None or seconds < 0):
        seconds = 0
    if force and seconds == 0:
        typer.echo("warning: Immediate deletion does not wait for confirmation that the running resource "
                   "has been terminated. The resource may continue to run on the cluster indefinitely.",
                   err=True)
    elif force:
        raise UserError("--force and --grace-period greater than 0 cannot be specified together")
    return seconds


def _delete_targets(backend: Backend, kind: str | None, names: list[str], filename: list[str] | None,
                    namespace: str | None, selector: str | None, all_: bool) -> list[tuple[Any, str | None,
                                                                                           str]]:
    """What ``delete`` deletes. A create-only review answers as kube-apiserver does kubectl's requests:
    a name's ``DELETE`` finds no route (``Error from server (NotFound): the server could not find the
    requested resource``, one per name), ``-l``/``--all``'s list is the 405, and no name at all is the
    resource builder's error before any request."""
    from kbatch.api.errors import MethodNotAllowed

    if filename:
        from kbatch.cli.manifests import read_sourced_manifests

        return [_target(backend, obj, namespace)[:3] for obj in read_sourced_manifests(filename)]
    if not kind:
        raise UserError("you must provide one or more resources by argument or filename")
    if "/" in kind:
        kind_name, name = split_kind_name(kind)
        names = [name or "", *names]
        kind = kind_name
    try:
        info = kind_info(backend.registry, kind)
    except MethodNotAllowed:  # a create-only review (kind_info): what kubectl meets at each step
        if not names and not (selector or all_):
            raise UserError("resource(s) were provided, but no name was specified") from None
        if names:  # DELETE on a path no route serves: the 404 of kube-apiserver's NotFound handler
            return [(_NO_ROUTE, None, n) for n in names]
        raise  # the list kubectl sends first for -l or --all: go-restful's 405
    _warn_info(backend, info)
    ns = namespace_for(info, namespace)
    if names:
        return [(info, ns, n) for n in names]
    if not (selector or all_):
        raise UserError("resource(s) were provided, but no name was specified")
    items = backend.list(info, ns, label_selector=selector)["items"]
    return [(info, ns, i["metadata"]["name"]) for i in items]


PATCH_TYPES = ("strategic", "merge", "json")


@command
def patch(ctx: typer.Context, kind: str = typer.Argument(..., help="KIND or KIND/NAME."),
          name: str | None = typer.Argument(None, help="Name of the object."),
          patch_text: str = typer.Option(..., "-p", "--patch", help="The patch, as JSON or YAML."),
          patch_type: str = typer.Option("strategic", "--type", help="strategic, merge or json."),
          subresource: str | None = typer.Option(
              None, "--subresource", help="status to patch the status; ephemeralcontainers (pods) to add an "
              "ephemeral container, as kubectl debug does."),
          namespace: str | None = NAMESPACE,
          output: str | None = typer.Option(None, "-o", "--output", help="yaml, json or name."),
          field_manager: str = PATCH_MANAGER) -> None:
    """Patch an object's metadata, spec, or status (--subresource status), or a pod's ephemeral
    containers (--subresource ephemeralcontainers: kubectl patch sends any subresource to the server,
    which serves this one for pods only)."""
    if patch_type not in PATCH_TYPES:
        raise UserError(f'--type must be "json", "merge" or "strategic", got "{patch_type}"')
    if subresource not in (None, "status", "ephemeralcontainers"):
        raise UserError(f'invalid subresource "{subresource}": only status and ephemeralcontainers '
                        "are supported")
    body = _parse_patch(patch_text)
    kind, name = split_kind_name(kind, name)
    if not name:
        raise UserError("a name is required: kbatch patch KIND NAME -p PATCH")
    from kbatch.cli.session import session
    from kbatch.server.backend import WriteOptions

    with session(global_options(ctx)) as backend:
        info = kind_info(backend.registry, kind)
        _warn_info(backend, info)
        ns = namespace_for(info, namespace)
        before = backend.get(info, ns, name)
        opts = WriteOptions(field_manager=field_manager)
        out = backend.patch(info, ns, name, body, patch_type, opts, subresource=subresource)
        print_warnings(opts.warnings)
        changed = (out.get("metadata") or {}).get("resourceVersion") != \
            (before.get("metadata") or {}).get("resourceVersion")
        if output:
            typer.echo(format_output(out, output))
        else:
            typer.echo(f"{render_name(out)} patched" + ("" if changed else " (no change)"))


def _parse_patch(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        pass
    from kbatch.apiserver.manifests import YamlError, yaml_documents

    try:
        docs = yaml_documents(text)
    except YamlError:
        raise UserError(f"unable to parse the patch {text!r}: it is neither JSON nor YAML") from None
    return docs[0] if docs else None


def format_output(obj: dict[str, Any], output: str) -> str:
    """``-o json|yaml`` omit ``metadata.managedFields``, as kubectl's printers do unless
    ``--show-managed-fields`` (cli-runtime ``JSONYamlPrintFlags``)."""
    if output in ("json", "yaml"):
        meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k != "managedFields"}
        obj = {**obj, "metadata": meta}
    if output == "json":
        return render_json(obj)
    if output == "yaml":
        return render_yaml(obj)
    if output == "name":
        return render_name(obj)
    raise UserError(f'unable to match a printer suitable for the output format "{output}"')


def register(app: typer.Typer) -> None:
    app.command()(apply)
    app.command()(delete)
    app.command()(patch)
