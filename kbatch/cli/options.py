"""The global options every command shares, accepted before or after the command as kubectl's are.

``--state``, ``--server``, ``--controllers``, ``--token`` and ``-n/--namespace`` belong to the
top-level ``kbatch`` command. kubectl declares its global flags on the root command and cobra
accepts them anywhere on the line (k8s.io/kubectl ``pkg/cmd/cmd.go``, ``AddFlags`` on the persistent
flag set), so ``kbatch get pods --state D`` and ``kbatch --state D get pods`` mean the same.
:class:`KbatchGroup` gets there by moving every global option found after the command name (with its
value) to just before it, before click parses; the last occurrence wins, as in cobra. A command
that declares an option of the same name keeps it (``serve --token``: the token the server requires;
``conformance --server``); ``-n`` declared by a command falls back to the global one
(:data:`NAMESPACE`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import typer
from typer.core import TyperGroup

__all__ = ["DEFAULT_STATE", "NAMESPACE", "GlobalOptions", "KbatchGroup", "global_options", "hoist_globals"]

DEFAULT_STATE = ".kbatch"


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    state: str = DEFAULT_STATE
    server: str | None = None
    etcd_servers: str | None = None  # the state is kept in etcd, not in the state directory
    controllers: str | None = None
    token: str | None = None
    namespace: str | None = None
    # the control plane's configuration (kbatch/cli/state.py: recorded in the state, a change restarts)
    feature_gates: str | None = None
    enable_admission_plugins: str | None = None
    disable_admission_plugins: str | None = None
    scheduler_config: str | None = None  # a KubeSchedulerConfiguration file
    clock_start: str | None = None  # a new state's virtual epoch: "now" or RFC 3339 (recorded at creation)
    kueue_config: str | None = None  # a Kueue Configuration file
    # a new state's cluster starts without the StorageClass `standard` (recorded at creation)
    no_default_storage_class: bool = False


def global_options(ctx: typer.Context) -> GlobalOptions:
    """The options given to the top-level ``kbatch`` callback (defaults when run standalone)."""
    root = ctx.find_root()
    obj = root.obj
    if isinstance(obj, GlobalOptions):
        return obj
    env = os.environ.get
    return GlobalOptions(state=env("KBATCH_STATE", DEFAULT_STATE), server=env("KBATCH_SERVER") or None,
                         etcd_servers=env("KBATCH_ETCD_SERVERS") or None,
                         controllers=env("KBATCH_CONTROLLERS") or None, token=env("KBATCH_TOKEN") or None,
                         feature_gates=env("KBATCH_FEATURE_GATES") or None,
                         enable_admission_plugins=env("KBATCH_ENABLE_ADMISSION_PLUGINS") or None,
                         disable_admission_plugins=env("KBATCH_DISABLE_ADMISSION_PLUGINS") or None,
                         scheduler_config=env("KBATCH_SCHEDULER_CONFIG") or None,
                         clock_start=env("KBATCH_CLOCK_START") or None,
                         kueue_config=env("KBATCH_KUEUE_CONFIG") or None,
                         no_default_storage_class=_truthy(env("KBATCH_NO_DEFAULT_STORAGE_CLASS")))


def _truthy(value: str | None) -> bool:
    """An env var for a flag, as click reads one: ``1``, ``true``, ``yes``, ``on`` (any case)."""
    return (value or "").strip().lower() in ("1", "true", "yes", "on", "t", "y")


def _or_global_namespace(ctx: typer.Context, value: str | None) -> str | None:
    return value if value is not None else global_options(ctx).namespace


NAMESPACE: Any = typer.Option(None, "-n", "--namespace", callback=_or_global_namespace,
                              help="Namespace (default: default).")

Table = dict[str, bool]  # option string → whether it takes a value


def _options(command: Any) -> Table:
    table: Table = {"-h": False, "--help": False}
    for param in getattr(command, "params", ()):
        takes = not (getattr(param, "is_flag", False) or getattr(param, "count", False))
        for opt in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())):
            if opt.startswith("-"):
                table[opt] = takes
    return table


def pflag_short(token: str, table: Table) -> str:
    """``-v=4`` as ``-v4``: pflag reads a shorthand followed by ``=`` as the shorthand with the
    rest as its value (spf13/pflag ``flag.go`` ``parseSingleShortArg``), so kubectl takes ``-v=4``,
    ``-n=team``; click would read the value as ``=4``. Other tokens are returned unchanged."""
    if len(token) > 2 and token[0] == "-" and token[1] != "-" and token[2] == "=" and table.get(token[:2]):
        return token[:2] + token[3:]
    return token


def _match(token: str, table: Table) -> tuple[str, bool] | None:
    """The option ``token`` names in ``table`` and whether the next token is its value."""
    if token in table:
        return token, table[token]
    if token.startswith("--") and "=" in token:
        name = token.split("=", 1)[0]
        return (name, False) if name in table else None
    if token.startswith("-") and not token.startswith("--") and len(token) > 2 and table.get(token[:2]):
        return token[:2], False  # -nteam: a short option with its value attached
    return None


def hoist_globals(root: Any, ctx: Any, args: list[str]) -> list[str]:
    """``args`` with the global options that follow the command name moved in front of it."""
    globals_ = _options(root)
    args = list(args)
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        args[i] = pflag_short(args[i], globals_)
        found = _match(args[i], globals_)
        if found is None:
            return args  # click reports the unknown option
        i += 2 if found[1] else 1
    hoisted: list[str] = []
    head, kept = args[:i], []
    command, rest, j = root, args[i:], 0
    while j < len(rest):
        token = rest[j]
        if token == "--":
            kept += rest[j:]
            break
        table = _options(command) if command is not root else {}
        own = _match(pflag_short(token, table), table) if table else None
        token = rest[j] = pflag_short(token, table if own else globals_)
        glob = None if own else _match(token, globals_)
        if own or glob:
            name, takes_value = own or glob  # type: ignore[misc]
            if glob and takes_value and j + 1 == len(rest):
                ctx.fail(f"Option '{name}' requires an argument.")
            (kept if own else hoisted).extend(rest[j:j + 2] if takes_value else [token])
            j += 2 if takes_value else 1
            continue
        sub = command.get_command(ctx, token) if hasattr(command, "get_command") and \
            not token.startswith("-") else None
        if sub is not None:
            command = sub
        kept.append(token)
        j += 1
    return head + hoisted + kept


GLOBAL_NOTE = ("Global options (--state, --server, --controllers, --token, -n, --feature-gates, ...) work "
               "here too (kbatch --help).")


class KbatchGroup(TyperGroup):
    """The top-level group: global options anywhere on the line (module docstring); every command's
    help says so."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        pending = list(self.commands.values())
        while pending:
            command = pending.pop()
            if not getattr(command, "epilog", None):
                command.epilog = GLOBAL_NOTE
            pending += list(getattr(command, "commands", {}).values())

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_globals(self, ctx, args))
