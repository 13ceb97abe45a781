"""``printenv`` and ``env`` (no operands) in the simulated shell: the variables the process has.

GNU coreutils / busybox ``printenv``: with no operand every variable as ``NAME=value``, one a line;
with operands the value of each that is set, one a line, and status 1 when any is not. ``env``
with no operand prints what ``printenv`` does (``env NAME=V CMD`` is not modelled: the vocabulary
leaves it to "anything else"). The environment is the container's (the runtime's ``HOSTNAME``, the
image's ``ENV``, the service variables, the container's own: docs/simulation.md "The environment")
together with what the script assigned: kbatch's shell does not tell exported variables from
others, so an unexported assignment is listed too. The order is the variables' names (a real
process lists them in its ``environ`` order, which upstream builds from Go maps, so no order is
promised).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kbatch.sim.shell_input import Input
    from kbatch.sim.shell_run import Shell

__all__ = ["ENV_COMMANDS", "env_modelled"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _printenv(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    if not args:
        shell.out("".join(f"{k}={scope[k]}\n" for k in sorted(scope) if _NAME.match(k)))
        shell.status = 0
        return
    found = [scope[name] for name in args if name in scope]
    shell.out("".join(f"{value}\n" for value in found))
    shell.status = 0 if len(found) == len(args) else 1


def _env(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    if args:  # it would run a command: "anything else" (the default duration, status 0)
        shell.status = 0
        shell.spend(shell.default)
        return
    _printenv(shell, [], scope, stdin)


ENV_COMMANDS = {"printenv": _printenv, "env": _env}


def env_modelled(name: str, operands: list[str]) -> bool:
    """``env`` is modelled without operands only (it would run a command with them)."""
    return name != "env" or not operands
