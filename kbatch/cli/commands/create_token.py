"""``kbatch create token NAME``: a service-account token, as ``kubectl create token`` asks for one.

kubectl (``staging/src/k8s.io/kubectl/pkg/cmd/create/create_token.go``): the flags ``--audience``
(repeatable), ``--duration`` (0 or unset: the server decides; whole seconds only),
``--bound-object-kind`` (``Pod``, ``Secret`` or ``Node``, each ``v1``), ``--bound-object-name``,
``--bound-object-uid``, checked with kubectl's messages before any request; then one POST of an
authentication.k8s.io/v1 TokenRequest to ``serviceaccounts/NAME/token``. The token is printed (with
a newline only on a terminal), or the whole TokenRequest with ``-o yaml|json``. A server error is
``error: failed to create token: …``.

Over ``--server`` the POST goes to ``kbatch serve``; in local mode the state's own API server answers
it (:meth:`kbatch.apiserver.server.APIServer.create_token`), signed with the key ``kbatch serve``
derives for the same state without ``--token`` (docs/serviceaccounts.md, "The key"). Nothing is
stored. ``register`` adds it to ``kbatch create``'s group of generators.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from kbatch.cli.errors import UserError, command
from kbatch.cli.options import NAMESPACE, global_options

if TYPE_CHECKING:
    from kbatch.server.backend import Backend

__all__ = ["BOUND_KINDS", "register", "token", "token_request"]

Obj = dict[str, Any]
BOUND_KINDS = {"Node": "v1", "Pod": "v1", "Secret": "v1"}  # boundObjectKinds


def token_request(audiences: list[str], seconds: float, kind: str, name: str, uid: str) -> Obj:
    """The TokenRequest kubectl sends, after its ``Validate`` (a :class:`UserError` with its message)."""
    if seconds < 0:
        raise UserError("--duration must be greater than or equal to 0")
    if seconds != int(seconds):
        raise UserError("--duration cannot be expressed in units less than seconds")
    if any(not audience for audience in audiences):
        raise UserError("--audience must not be an empty string")
    if not kind:
        if name:
            raise UserError("--bound-object-name can only be set if --bound-object-kind is provided")
        if uid:
            raise UserError("--bound-object-uid can only be set if --bound-object-kind is provided")
    else:
        if kind not in BOUND_KINDS:
            raise UserError(f"supported --bound-object-kind values are {', '.join(sorted(BOUND_KINDS))}")
        if not name:
            raise UserError("--bound-object-name is required if --bound-object-kind is provided")
    spec: Obj = {"audiences": audiences} if audiences else {}
    if seconds > 0:
        spec["expirationSeconds"] = int(seconds)
    if kind:
        ref = {"kind": kind, "apiVersion": BOUND_KINDS[kind], "name": name}
        spec["boundObjectRef"] = {**ref, "uid": uid} if uid else ref
    return {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "metadata": {}, "spec": spec}


def _create(backend: Backend, namespace: str, name: str, body: Obj) -> tuple[Obj, list[str]]:
    """The answer of ``serviceaccounts/NAME/token`` and its warnings, from the state's own API server
    or over HTTP."""
    cp = getattr(backend, "control_plane", None)
    server = getattr(cp, "server", None)
    if server is not None:
        out, warnings = server.create_token(namespace, name, body)
        return out, list(warnings)
    from kbatch.api.base import ApiInfo
    from kbatch.server.backend import WriteOptions

    # the subresource's path as a collection of its own: POST …/serviceaccounts/NAME/token
    info = ApiInfo("", "v1", "TokenRequest", f"serviceaccounts/{name}/token", True)
    opts = WriteOptions()
    return backend.create(info, namespace, body, opts), opts.warnings


@command
def token(ctx: typer.Context, name: str = typer.Argument(..., help="The service account."),
          namespace: str | None = NAMESPACE,
          audience: list[str] = typer.Option([], "--audience", help="Audience of the requested token "
                                             "(repeatable; default: the API server's)."),
          duration: str = typer.Option("0s", "--duration", help="Requested lifetime (0: the server's "
                                       "default)."),
          bound_object_kind: str = typer.Option("", "--bound-object-kind", help="Pod, Secret or Node."),
          bound_object_name: str = typer.Option("", "--bound-object-name"),
          bound_object_uid: str = typer.Option("", "--bound-object-uid"),
          output: str | None = typer.Option(None, "-o", "--output",
                                            help="yaml or json: the TokenRequest.")) -> None:
    """Request a service account token (kubectl create token)."""
    from kbatch.api.errors import StatusError
    from kbatch.cli.durations import duration_option
    from kbatch.cli.session import session

    seconds = duration_option(duration, "--duration")
    body = token_request(list(audience), seconds, bound_object_kind, bound_object_name, bound_object_uid)
    with session(global_options(ctx)) as backend:
        try:
            out, warnings = _create(backend, namespace or "default", name, body)
        except StatusError as err:
            raise UserError(f"failed to create token: {err.message}") from None
    for warning in warnings:
        typer.echo(f"Warning: {warning}", err=True)
    text = str((out.get("status") or {}).get("token") or "")
    if not text:
        raise UserError("failed to create token: no token in server response")
    if output:
        typer.echo(_render(out, output))
    else:
        sys.stdout.write(text + ("\n" if sys.stdout.isatty() else ""))


def _render(out: Obj, output: str) -> str:
    """``-o yaml|json`` (kubectl's PrintFlags for this command)."""
    from kbatch.cli.render import render_json, render_yaml

    if output not in ("yaml", "json"):
        raise UserError(f'unable to match a printer suitable for the output format "{output}", allowed '
                        'formats are: json,yaml')
    return render_json(out) if output == "json" else render_yaml(out)


def register(app: typer.Typer) -> None:
    """``kbatch create token``: one more subcommand of ``create``'s group (``app`` is not used)."""
    from kbatch.cli.commands.create_generators import create_app

    create_app.command("token")(token)
