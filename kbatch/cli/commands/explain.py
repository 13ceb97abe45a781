"""``kbatch explain RESOURCE[.FIELD…]``, as kubectl explain (k8s.io/kubectl v0.37.0-beta.0
``pkg/cmd/explain/explain.go``, ``pkg/explain/explain.go``): the kind's OpenAPI v3 schema, the one
:mod:`kbatch.server.openapi` serves, printed by :mod:`kbatch.cli.explain`."""

from __future__ import annotations

import json
from typing import Any

import typer

from kbatch.cli.errors import UserError, command
from kbatch.cli.options import global_options
from kbatch.cli.resolve import kind_info

__all__ = ["register"]


def _split(registry: Any, text: str) -> tuple[Any, list[str]]:
    """The kind and the field path: ``jobs.spec.template`` or, group-qualified, ``jobs.batch.spec``
    (``SplitAndParseResourceRequestWithMatchingPrefix``: a served ``resource.group`` prefix wins)."""
    first, *rest = text.split(".")
    info = kind_info(registry, first)  # the server doesn't have a resource type "x"
    qualified = f"{info.plural}.{info.group}" if info.group else info.plural
    if (info.group and text.startswith(qualified + ".")) or text == qualified:
        rest = [p for p in text[len(qualified):].split(".") if p]
    if any(not part for part in rest):
        raise UserError(f"invalid jsonpath syntax: {text}")
    return info, rest


def _with_version(registry: Any, info: Any, api_version: str) -> dict[str, str]:
    group, _, version = api_version.rpartition("/")
    for spec in registry:
        if (spec.info.group, spec.info.version, spec.info.plural) == (group, version, info.plural):
            return {"group": group, "version": version, "kind": spec.info.kind}
    gvr = f"{group}/{version}, Resource={info.plural}" if group else f"/{version}, Resource={info.plural}"
    raise UserError(f'couldn\'t find resource for "{gvr}"')


@command
def explain(ctx: typer.Context, args: list[str] | None = typer.Argument(None, help="RESOURCE or "
                                                                        "RESOURCE.FIELD.PATH."),
            recursive: bool = typer.Option(False, "--recursive", help="Every field below, names and types."),
            max_depth: int = typer.Option(0, "--max-depth", help="With --recursive: this many levels."),
            api_version: str | None = typer.Option(None, "--api-version",
                                                   help="The GROUP/VERSION to explain.")) -> None:
    """Describe a kind's fields from its OpenAPI schema, as kubectl explain."""
    if not args:  # kubectl's Validate; cmdutil.SuggestAPIResources(parent)
        parent = ctx.parent.command_path if ctx.parent is not None else "kbatch"
        raise UserError("You must specify the type of resource to explain. "
                        f'Use "{parent} api-resources" for a complete list of supported resources.')
    if len(args) > 1:
        raise UserError("We accept only this format: explain RESOURCE")
    resource = args[0]
    if max_depth > 0 and not recursive:
        raise UserError("--max-depth requires --recursive")
    if max_depth < 0:
        raise UserError("--max-depth must be non-negative")
    from kbatch.cli.explain import MissingField, explain_text
    from kbatch.cli.session import session
    from kbatch.server.openapi import OpenAPI

    with session(global_options(ctx), save=False) as backend:
        registry = backend.registry
        try:
            info, path = _split(registry, resource)
        except UserError as err:  # kubectl's CheckErr prints a no-match error without "error: "
            typer.echo(str(err), err=True)
            raise typer.Exit(1) from None
        gvk = _with_version(registry, info, api_version) if api_version else \
            {"group": info.group, "version": info.version, "kind": info.kind}
        gv = f"apis/{gvk['group']}/{gvk['version']}" if gvk["group"] else f"api/{gvk['version']}"
        raw = OpenAPI(registry).v3_document(gv)
        doc = json.loads(raw) if raw else {}
        try:
            text = explain_text(doc, gvk, path, (max_depth or -1) if recursive else 0)
        except MissingField as err:
            typer.echo(err.header, nl=False)  # stdout, as kubectl's template wrote it before failing
            raise UserError(str(err)) from None
        typer.echo(text, nl=False)


def register(app: typer.Typer) -> None:
    app.command()(explain)
