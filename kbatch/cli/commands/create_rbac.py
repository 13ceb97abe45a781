"""``kbatch create role|clusterrole|rolebinding|clusterrolebinding`` (k8s.io/kubectl
``pkg/cmd/create/create_role.go``, ``create_clusterrole.go``, ``create_rolebinding.go``,
``create_clusterrolebinding.go``); the objects are built by :mod:`kbatch.cli.generators.rbac`, the
commands hang off :data:`kbatch.cli.commands.create_generators.create_app`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from kbatch.cli.commands.create_generators import (
    ARGS,
    DRY_RUN,
    MANAGER,
    OUTPUT,
    SAVE_CONFIG,
    DashCommand,
    create_app,
    emit,
    name_and_command,
    run,
    string_slice,
)
from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE

if TYPE_CHECKING:
    from kbatch.cli.generators import Obj
    from kbatch.cli.generators.rbac import Resolve
    from kbatch.server.backend import Backend

__all__: list[str] = []

_VERB = typer.Option(None, "--verb", help="Verbs of the rule (repeatable, comma-separated).")
_RESOURCE = typer.Option(None, "--resource", help="RESOURCE[.GROUP][/SUBRESOURCE] (repeatable, "
                         "comma-separated).")
_RESOURCE_NAME = typer.Option(None, "--resource-name", help="Names the rule is limited to (repeatable).")
_USER = typer.Option(None, "--user", help="Users to bind (repeatable).")
_GROUP = typer.Option(None, "--group", help="Groups to bind (repeatable).")
_SERVICE_ACCOUNT = typer.Option(None, "--serviceaccount", help="NAMESPACE:NAME service accounts to bind "
                                "(repeatable).")


def _resolver(backend: Backend | None) -> Resolve:
    """kubectl's ``RESTMapper.ResourceFor`` over the server's kinds: a plural, singular or short name,
    optionally with its group, to the group and plural the server serves."""
    from kbatch.api.errors import StatusError

    def resolve(resource: str, group: str) -> tuple[str, str] | None:
        assert backend is not None
        try:
            info = backend.registry.for_name(f"{resource}.{group}" if group else resource).info
        except StatusError:
            return None
        return info.group, info.plural

    return resolve


def _warn(text: str) -> None:
    typer.echo(text, err=True)


def _bare_unknown(build: Callable[[Backend | None], Obj]) -> Callable[[Backend | None], Obj]:
    """An unknown resource printed as kubectl prints it: the bare line, exit 1."""
    from kbatch.cli.generators.rbac import UnknownResource

    def wrapped(backend: Backend | None) -> Obj:
        try:
            return build(backend)
        except UnknownResource as err:
            typer.echo(str(err), err=True)
            raise typer.Exit(1) from None

    return wrapped


@create_app.command("role", cls=DashCommand)
@command
def role(ctx: typer.Context, args: list[str] | None = ARGS, verb: list[str] | None = _VERB,
         resource: list[str] | None = _RESOURCE, resource_name: list[str] | None = _RESOURCE_NAME,
         namespace: str | None = NAMESPACE, output: str | None = OUTPUT, dry_run: str = DRY_RUN,
         save_config: bool = SAVE_CONFIG, field_manager: str = MANAGER) -> None:
    """Create a role with a single rule."""
    from kbatch.cli.generators import rbac

    name, _ = name_and_command(ctx, args)
    spec = rbac.role_spec(string_slice(verb), string_slice(resource), list(resource_name or []))

    def build(backend: Backend | None) -> Obj:
        return rbac.role(name, namespace, spec, _resolver(backend), _warn)

    run(ctx, namespace, emit(output, dry_run, save_config, field_manager), _bare_unknown(build),
        needs_server=True)


def _aggregation(values: list[str] | None) -> dict[str, str]:
    """component-base ``cliflag.MapStringString``: ``k=v`` pairs, comma-separated, repeatable."""
    out: dict[str, str] = {}
    for pair in string_slice(values):
        key, sep, value = pair.partition("=")
        if not sep:
            raise UserError(f'invalid argument "{pair}" for "--aggregation-rule" flag: {pair} must be '
                            "formatted as key=value")
        out[key.strip()] = value.strip()
    return out


@create_app.command("clusterrole", cls=DashCommand)
@command
def clusterrole(ctx: typer.Context, args: list[str] | None = ARGS, verb: list[str] | None = _VERB,
                resource: list[str] | None = _RESOURCE, resource_name: list[str] | None = _RESOURCE_NAME,
                non_resource_url: list[str] | None = typer.Option(
                    None, "--non-resource-url", help="A partial URL the role grants (repeatable)."),
                aggregation_rule: list[str] | None = typer.Option(
                    None, "--aggregation-rule", help="key=value labels of the ClusterRoles to aggregate."),
                output: str | None = OUTPUT, dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                field_manager: str = MANAGER) -> None:
    """Create a cluster role: one rule, non-resource URLs, or an aggregation rule."""
    from kbatch.cli.generators import rbac

    name, _ = name_and_command(ctx, args)
    spec = rbac.role_spec(string_slice(verb), string_slice(resource), list(resource_name or []),
                          string_slice(non_resource_url))
    aggregation = _aggregation(aggregation_rule)

    def build(backend: Backend | None) -> Obj:
        return rbac.cluster_role(name, spec, aggregation, _resolver(backend), _warn)

    run(ctx, None, emit(output, dry_run, save_config, field_manager), _bare_unknown(build), needs_server=True)


@create_app.command("rolebinding", cls=DashCommand)
@command
def rolebinding(ctx: typer.Context, args: list[str] | None = ARGS,
                role_name: str = typer.Option("", "--role", help="The Role to bind."),
                clusterrole_name: str = typer.Option("", "--clusterrole", help="The ClusterRole to bind."),
                user: list[str] | None = _USER, group: list[str] | None = _GROUP,
                serviceaccount: list[str] | None = _SERVICE_ACCOUNT, namespace: str | None = NAMESPACE,
                output: str | None = OUTPUT, dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                field_manager: str = MANAGER) -> None:
    """Create a role binding for a Role or a ClusterRole."""
    from kbatch.cli.generators.rbac import binding

    name, _ = name_and_command(ctx, args)
    if bool(role_name) == bool(clusterrole_name):
        raise UserError("exactly one of clusterrole or role must be specified")
    kind, ref = ("Role", role_name) if role_name else ("ClusterRole", clusterrole_name)
    obj = binding("RoleBinding", name, namespace, kind, ref, list(user or []), list(group or []),
                  list(serviceaccount or []))
    run(ctx, namespace, emit(output, dry_run, save_config, field_manager, "failed to create rolebinding: "),
        lambda _b: obj)


@create_app.command("clusterrolebinding", cls=DashCommand)
@command
def clusterrolebinding(ctx: typer.Context, args: list[str] | None = ARGS,
                       clusterrole_name: str = typer.Option(..., "--clusterrole",
                                                            help="The ClusterRole to bind."),
                       user: list[str] | None = _USER, group: list[str] | None = _GROUP,
                       serviceaccount: list[str] | None = _SERVICE_ACCOUNT, output: str | None = OUTPUT,
                       dry_run: str = DRY_RUN, save_config: bool = SAVE_CONFIG,
                       field_manager: str = MANAGER) -> None:
    """Create a cluster role binding for a ClusterRole."""
    from kbatch.cli.generators.rbac import binding

    name, _ = name_and_command(ctx, args)
    obj = binding("ClusterRoleBinding", name, None, "ClusterRole", clusterrole_name, list(user or []),
                  list(group or []), list(serviceaccount or []))
    run(ctx, None, emit(output, dry_run, save_config, field_manager,
                          "failed to create clusterrolebinding: "), lambda _b: obj)
