"""``kbatch create``: ``-f FILE`` as before, and kubectl's generators as subcommands
(k8s.io/kubectl ``pkg/cmd/create/create.go`` and ``create_*.go``): ``job``, ``cronjob``, ``namespace``,
``configmap``, ``secret generic|docker-registry|tls``, ``serviceaccount``, ``priorityclass``, ``quota``,
``role``, ``rolebinding``, ``clusterrole``, ``clusterrolebinding``, ``poddisruptionbudget``, with
kubectl's aliases (``ns``, ``cm``, ``sa``, ``pc``, ``resourcequota``, ``pdb``, ``cj``).

What each builds is in :mod:`kbatch.cli.generators`; this module reads the flags and sends the object
the way every generator's ``Run`` does: ``--save-config`` records the object in the
``last-applied-configuration`` annotation, ``--dry-run=client`` prints without sending,
``--dry-run=server`` sends with ``dryRun=All``, ``--field-manager`` (default ``kbatch-create``, kubectl's
``kubectl-create``), ``-o yaml|json|name`` or ``KIND/NAME created``. A server's refusal is printed as
that generator prints it (some wrap it: ``error: failed to create job: …``).

:data:`create_app` is the typer group every ``create`` subcommand hangs off: another module adds its
own with ``create_app.command("token")(...)`` before the app is built (``app.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand

from kbatch.cli.dry_run import DRY_RUN_SUFFIX, dry_run_strategy
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options

if TYPE_CHECKING:
    from kbatch.cli.generators import Obj
    from kbatch.server.backend import Backend

__all__ = ["ARGS", "DRY_RUN", "MANAGER", "OUTPUT", "SAVE_CONFIG", "DashCommand", "Emit", "create_app",
           "emit", "name_and_command", "register", "run", "string_slice"]

create_app = typer.Typer(help="Create objects from files (-f) or with one of kubectl's generators.",
                         no_args_is_help=False, invoke_without_command=True)
secret_app = typer.Typer(help="Create a secret: generic, docker-registry or tls.", no_args_is_help=True)

OUTPUT = typer.Option(None, "-o", "--output", help="yaml, json or name.")
DRY_RUN = typer.Option("none", "--dry-run", help="none, client or server.")
SAVE_CONFIG = typer.Option(False, "--save-config", help="Record the object in the "
                            "kubectl.kubernetes.io/last-applied-configuration annotation, for a later apply.")
MANAGER = typer.Option("kbatch-create", "--field-manager", help="Name of the manager tracking the change.")
ARGS = typer.Argument(None, help="NAME, then for job and cronjob `-- COMMAND [ARGS...]`.", show_default=False)


class DashCommand(TyperCommand):
    """Remembers how many arguments followed ``--``, as cobra's ``ArgsLenAtDash`` (click drops it)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta["after_dash"] = len(args) - args.index("--") - 1 if "--" in args else -1
        return super().parse_args(ctx, args)


def name_and_command(ctx: typer.Context, args: list[str] | None) -> tuple[str, list[str]]:
    """``NameFromCommandArgs``: exactly one NAME before ``--``; what follows is the command."""
    args = list(args or [])
    after = ctx.meta.get("after_dash", -1)
    before = len(args) if after < 0 else len(args) - after
    if before != 1:
        ctx.fail(f"exactly one NAME is required, got {before}")
    return args[0], args[1:]


@dataclass(frozen=True, slots=True)
class Emit:
    """The flags every generator shares, and the prefix its ``Run`` puts on a server's refusal."""

    output: str | None
    dry_run: str
    save_config: bool
    field_manager: str
    wrap: str = ""


def _check(emit: Emit) -> None:
    dry_run_strategy(emit.dry_run)
    if emit.output not in (None, "", "yaml", "json", "name"):
        raise UserError(f'unable to match a printer suitable for the output format "{emit.output}", allowed '
                        'formats are: json,name,yaml')


def _with_last_applied(obj: Obj) -> Obj:
    """``util.CreateOrUpdateAnnotation``: the object's own JSON (annotation excluded), newline-ended."""
    import json

    from kbatch.apiserver.client_apply import LAST_APPLIED

    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n"
    meta = dict(obj["metadata"])
    meta["annotations"] = {**(meta.get("annotations") or {}), LAST_APPLIED: text}
    return {**obj, "metadata": meta}


def _send(backend: Backend, obj: Obj, namespace: str | None, emit: Emit) -> Obj:
    from kbatch.api.errors import StatusError
    from kbatch.cli.commands.objects import print_warnings
    from kbatch.cli.resolve import DEFAULT_NAMESPACE
    from kbatch.server.backend import WriteOptions

    info = backend.registry.for_gvk(obj["apiVersion"], obj["kind"]).info
    ns = (obj["metadata"].get("namespace") or namespace or DEFAULT_NAMESPACE) if info.namespaced else None
    opts = WriteOptions(dry_run=emit.dry_run == "server", field_manager=emit.field_manager)
    try:
        out = backend.create(info, ns, obj, opts)
    except StatusError as err:
        if not emit.wrap:
            raise
        raise UserError(f"{emit.wrap}{err.message}") from None
    print_warnings(opts.warnings)
    return out


def _print(obj: Obj, emit: Emit) -> None:
    from kbatch.cli.commands.objects import format_output
    from kbatch.cli.render import render_name

    if emit.output:
        typer.echo(format_output(obj, emit.output))
        return
    suffix = DRY_RUN_SUFFIX[emit.dry_run]
    typer.echo(f"{render_name(obj)} created{suffix}")


def run(ctx: typer.Context, namespace: str | None, emit: Emit,
         build: Callable[[Backend | None], Obj], *, needs_server: bool = False) -> None:
    """Build the object (with the server when it must read from it: ``--from``, a role's resources),
    then save its config, send it unless ``--dry-run=client``, and print it."""
    _check(emit)
    if emit.dry_run == "client" and not needs_server:
        obj = build(None)
        _print(_with_last_applied(obj) if emit.save_config else obj, emit)
        return
    from kbatch.cli.session import session

    with session(global_options(ctx)) as backend:
        obj = build(backend)
        if emit.save_config:
            obj = _with_last_applied(obj)
        if emit.dry_run != "client":
            obj = _send(backend, obj, namespace, emit)
        _print(obj, emit)


def emit(output: str | None, dry_run: str, save_config: bool, field_manager: str, wrap: str = "") -> Emit:
    return Emit(output or None, dry_run, save_config, field_manager, wrap)


# ---------------------------------------------------------------------------------------------
# create -f


@create_app.callback(invoke_without_command=True)
@command
def create(ctx: typer.Context,
           filename: list[str] | None = typer.Option(None, "-f", "--filename",
                                                     help="File, directory or - (stdin) with the objects."),
           dry_run: str = DRY_RUN, field_manager: str = MANAGER, output: str | None = OUTPUT) -> None:
    """Create objects from YAML/JSON files (fails for objects that already exist), or with a generator
    (`kbatch create job NAME --image=busybox -- echo hi`). A review (SubjectAccessReview, TokenReview,
    ...) is answered and not stored, as upstream's POST."""
    if ctx.invoked_subcommand is not None:
        return
    if not filename:
        raise UserError("must specify one of -f and -k")
    from kbatch.cli.commands.objects import create_from_files

    # -n is the global option here (kbatch/cli/options.py), so `create -n NS job …` reaches the generator
    create_from_files(ctx, filename, global_options(ctx).namespace, dry_run, field_manager, output)


# ---------------------------------------------------------------------------------------------
# batch


@create_app.command("job", cls=DashCommand)
@command
def job(ctx: typer.Context, args: list[str] | None = ARGS,
        image: str = typer.Option("", "--image", help="Image name to run."),
        source: str = typer.Option("", "--from", help="The resource to create a Job from (only "
                                   "cronjob/NAME is supported)."),
        namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
        save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a Job with the image and command given, or from a CronJob's job template."""
    from kbatch.cli.generators import workloads

    name, cmd = name_and_command(ctx, args)
    workloads.validate_job(image, source, cmd)

    def build(backend: Backend | None) -> Obj:
        if not source:
            return workloads.job_from_image(name, image, cmd, namespace)
        assert backend is not None
        return workloads.job_from_cronjob(name, _source_cronjob(backend, source, namespace), namespace)

    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create job: "), build,
        needs_server=bool(source))


def _source_cronjob(backend: Backend, source: str, namespace: str | None) -> Obj:
    """The object ``--from`` names, which must be a CronJob (``CreateJobOptions.Run``)."""
    from kbatch.cli.resolve import DEFAULT_NAMESPACE, kind_info, split_kind_name

    kind, name = split_kind_name(source)
    if not name:
        raise UserError("from must be an existing cronjob")
    info = kind_info(backend.registry, kind)
    obj = backend.get(info, (namespace or DEFAULT_NAMESPACE) if info.namespaced else None, name)
    if info.kind != "CronJob" or info.group != "batch":  # Go's %T of the typed object: *v1.Job
        raise UserError(f"unknown object type *{info.api_version.rpartition('/')[2]}.{info.kind}")
    return obj


@create_app.command("cronjob", cls=DashCommand)
@create_app.command("cj", cls=DashCommand, hidden=True)
@command
def cronjob(ctx: typer.Context, args: list[str] | None = ARGS,
            image: str = typer.Option(..., "--image", help="Image name to run."),
            schedule: str = typer.Option(..., "--schedule", help="A schedule in the Cron format."),
            restart: str = typer.Option("", "--restart", help="The job's restart policy: OnFailure "
                                        "(default) or Never."),
            namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
            save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a CronJob with the image, schedule and command given."""
    from kbatch.cli.generators.workloads import cronjob as build_cronjob

    name, cmd = name_and_command(ctx, args)
    obj = build_cronjob(name, image, schedule, restart, cmd, namespace)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create cronjob: "),
        lambda _b: obj)


# ---------------------------------------------------------------------------------------------
# namespaces, accounts, scheduling, quota, disruption budgets


@create_app.command("namespace", cls=DashCommand)
@create_app.command("ns", cls=DashCommand, hidden=True)
@command
def namespace_(ctx: typer.Context, args: list[str] | None = ARGS, output: str | None = OUTPUT,
               dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
               field_manager: str = MANAGER) -> None:
    """Create a namespace."""
    from kbatch.cli.generators.cluster import namespace as build

    name, _ = name_and_command(ctx, args)
    run(ctx, None, emit(output, dry_run, save_config, field_manager), lambda _b: build(name))


@create_app.command("serviceaccount", cls=DashCommand)
@create_app.command("sa", cls=DashCommand, hidden=True)
@command
def serviceaccount(ctx: typer.Context, args: list[str] | None = ARGS, namespace: str | None = NAMESPACE,
                   output: str | None = OUTPUT, dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                   field_manager: str = MANAGER) -> None:
    """Create a service account."""
    from kbatch.cli.generators.cluster import service_account

    name, _ = name_and_command(ctx, args)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager,
                               "failed to create serviceaccount: "),
         lambda _b: service_account(name, namespace))


@create_app.command("priorityclass", cls=DashCommand)
@create_app.command("pc", cls=DashCommand, hidden=True)
@command
def priorityclass(ctx: typer.Context, args: list[str] | None = ARGS,
                  value: int = typer.Option(0, "--value", help="The value of this priority class."),
                  global_default: bool = typer.Option(False, "--global-default",
                                                      help="Whether this is the default priority."),
                  description: str = typer.Option("", "--description", help="When to use it."),
                  preemption_policy: str = typer.Option("PreemptLowerPriority", "--preemption-policy",
                                                        help="Preempt lower priorities, or Never."),
                  output: str | None = OUTPUT, dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                  field_manager: str = MANAGER) -> None:
    """Create a priority class."""
    from kbatch.cli.generators.cluster import priority_class

    name, _ = name_and_command(ctx, args)
    obj = priority_class(name, value, global_default, description, preemption_policy)
    run(ctx, None, emit(output, dry_run, save_config, field_manager, "failed to create priorityclass: "),
        lambda _b: obj)


@create_app.command("quota", cls=DashCommand)
@create_app.command("resourcequota", cls=DashCommand, hidden=True)
@command
def quota(ctx: typer.Context, args: list[str] | None = ARGS,
          hard: str = typer.Option("", "--hard", help="resource=quantity pairs, comma-separated."),
          scopes: str = typer.Option("", "--scopes", help="Quota scopes, comma-separated."),
          namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
          save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a resource quota."""
    from kbatch.cli.generators.cluster import quota as build

    name, _ = name_and_command(ctx, args)
    obj = build(name, namespace, hard, scopes)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create quota: "),
        lambda _b: obj)


@create_app.command("poddisruptionbudget", cls=DashCommand)
@create_app.command("pdb", cls=DashCommand, hidden=True)
@command
def poddisruptionbudget(ctx: typer.Context, args: list[str] | None = ARGS,
                        selector: str = typer.Option("", "--selector", help="A label selector."),
                        min_available: str = typer.Option("", "--min-available", help="N or N%."),
                        max_unavailable: str = typer.Option("", "--max-unavailable", help="N or N%."),
                        namespace: str | None = NAMESPACE, output: str | None = OUTPUT,
                        dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                        field_manager: str = MANAGER) -> None:
    """Create a pod disruption budget."""
    from kbatch.cli.generators.cluster import pod_disruption_budget

    name, _ = name_and_command(ctx, args)
    obj = pod_disruption_budget(name, namespace, selector, min_available, max_unavailable)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager,
                               "failed to create poddisruptionbudgets: "), lambda _b: obj)


# ---------------------------------------------------------------------------------------------
# configuration data


_FROM_FILE = typer.Option(None, "--from-file", help="[KEY=]PATH of a file or directory (repeatable, "
                          "comma-separated).")
_FROM_LITERAL = typer.Option(None, "--from-literal", help="KEY=VALUE (repeatable).")
_FROM_ENV_FILE = typer.Option(None, "--from-env-file", help="A file of KEY=VALUE lines (repeatable).")
_APPEND_HASH = typer.Option(False, "--append-hash", help="Append a hash of the content to the name.")


def string_slice(values: list[str] | None) -> list[str]:
    """pflag's ``StringSlice``: each occurrence split at commas."""
    return [part for value in values or () for part in value.split(",")]


def _hashed(obj: Obj, append_hash: bool) -> Obj:
    """``--append-hash``: the name suffixed with the content's hash (``generators/name_hash.py``)."""
    from kbatch.cli.generators.name_hash import with_hash_suffix

    return with_hash_suffix(obj) if append_hash else obj


@create_app.command("configmap", cls=DashCommand)
@create_app.command("cm", cls=DashCommand, hidden=True)
@command
def configmap(ctx: typer.Context, args: list[str] | None = ARGS, from_file: list[str] | None = _FROM_FILE,
              from_literal: list[str] | None = _FROM_LITERAL,
              from_env_file: list[str] | None = _FROM_ENV_FILE,
              append_hash: bool = _APPEND_HASH,
              namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
              save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a config map from files, directories, literal values or env files."""
    from kbatch.cli.generators.data import Sources, config_map

    name, _ = name_and_command(ctx, args)
    sources = Sources(string_slice(from_file), list(from_literal or []), string_slice(from_env_file))
    obj = _hashed(config_map(name, namespace, sources, os.environ), append_hash)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create configmap: "),
        lambda _b: obj)


@secret_app.command("generic", cls=DashCommand)
@command
def secret_generic(ctx: typer.Context, args: list[str] | None = ARGS,
                   from_file: list[str] | None = _FROM_FILE, from_literal: list[str] | None = _FROM_LITERAL,
                   from_env_file: list[str] | None = _FROM_ENV_FILE,
                   type_: str = typer.Option("", "--type", help="The type of secret to create."),
                   append_hash: bool = _APPEND_HASH,
                   namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
                   save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a secret from files, directories, literal values or env files."""
    from kbatch.cli.generators.data import Sources, generic_secret

    name, _ = name_and_command(ctx, args)
    sources = Sources(string_slice(from_file), list(from_literal or []), string_slice(from_env_file))
    obj = _hashed(generic_secret(name, namespace, sources, type_, os.environ), append_hash)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create secret "),
        lambda _b: obj)


@secret_app.command("docker-registry", cls=DashCommand)
@command
def secret_docker_registry(ctx: typer.Context, args: list[str] | None = ARGS,
                           server: str = typer.Option("https://index.docker.io/v1/", "--docker-server"),
                           username: str = typer.Option("", "--docker-username"),
                           password: str = typer.Option("", "--docker-password"),
                           email: str = typer.Option("", "--docker-email"),
                           from_file: list[str] | None = _FROM_FILE,
                           append_hash: bool = _APPEND_HASH,
                           namespace: str | None = NAMESPACE, output: str | None = OUTPUT,
                           dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                           field_manager: str = MANAGER) -> None:
    """Create a secret for a Docker registry (kubernetes.io/dockerconfigjson)."""
    from kbatch.cli.generators.data import docker_registry_secret

    name, _ = name_and_command(ctx, args)
    obj = _hashed(docker_registry_secret(name, namespace, server, username, password, email,
                                         string_slice(from_file)), append_hash)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create secret "),
        lambda _b: obj)


@secret_app.command("tls", cls=DashCommand)
@command
def secret_tls(ctx: typer.Context, args: list[str] | None = ARGS,
               cert: str = typer.Option("", "--cert", help="Path to PEM encoded public key certificate."),
               key: str = typer.Option("", "--key", help="Path to the certificate's private key."),
               append_hash: bool = _APPEND_HASH, namespace: str | None = NAMESPACE,
               output: str | None = OUTPUT, dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
               field_manager: str = MANAGER) -> None:
    """Create a TLS secret (kubernetes.io/tls) from a certificate and its private key."""
    from kbatch.cli.generators.tls import tls_secret

    name, _ = name_and_command(ctx, args)
    obj = _hashed(tls_secret(name, namespace, cert, key), append_hash)
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create secret: "),
        lambda _b: obj)


create_app.add_typer(secret_app, name="secret")


def register(app: typer.Typer) -> None:
    from kbatch.cli.commands import create_rbac  # noqa: F401  (its commands hang off create_app)

    app.add_typer(create_app, name="create")
