"""The global options every command shares (``--state``, ``--server``, ``--controllers``)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import typer

__all__ = ["DEFAULT_STATE", "GlobalOptions", "global_options"]

DEFAULT_STATE = ".kbatch"


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    state: str = DEFAULT_STATE
    server: str | None = None
    controllers: str | None = None
    token: str | None = None


def global_options(ctx: typer.Context) -> GlobalOptions:
    """The options given to the top-level ``kbatch`` callback (defaults when run standalone)."""
    root = ctx.find_root()
    obj = root.obj
    if isinstance(obj, GlobalOptions):
        return obj
    return GlobalOptions(state=os.environ.get("KBATCH_STATE", DEFAULT_STATE),
                         server=os.environ.get("KBATCH_SERVER") or None,
                         controllers=os.environ.get("KBATCH_CONTROLLERS") or None,
                         token=os.environ.get("KBATCH_TOKEN") or None)
