"""bash's name references in a simulated script: ``declare -n REF=NAME`` (``local -n``,
``typeset -n``), bash(1) "PARAMETERS".

A reference's value is the name of another variable (or ``NAME[SUB]``, an element); reading or
assigning the reference reads or assigns that variable (:func:`kbatch.sim.shell_vars.deref` is the
name every read and assignment uses), except ``declare -n REF=…`` itself, ``unset -n REF``, a
``for REF in …`` loop (each word becomes what ``REF`` refers to) and ``${!REF}`` (the name
referred to). A reference with no value yet is an ordinary variable: ``REF=x`` gives it one.

Here are the checks ``declare -n`` makes (bash ``builtins/declare.def`` ``declare_internal``,
``valid_nameref_value``) and the warning of a circular chain (``variables.c``
``find_variable_nameref``), with bash's messages and statuses.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from kbatch.sim.shell_run import Shell
from kbatch.sim.shell_vars import CircularReference, attributes, deref

__all__ = ["bad_reference", "circular", "declared_name", "local_name", "unset_target"]

_TARGET = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.+\])?", re.DOTALL)


def bad_reference(name: str, value: str) -> str | None:
    """Why ``declare -n NAME=VALUE`` is refused (status 1, the declaration not made), or None."""
    if not value:
        return "`': not a valid identifier"
    if _TARGET.fullmatch(value) is None:
        return f"`{value}': invalid variable name for name reference"
    if value == name:
        return f"{name}: nameref variable self references not allowed"
    return None


def declared_name(shell: Shell, scope: MutableMapping[str, str], name: str, letters: str,
                  builtin: str) -> str | None:
    """The variable ``declare -x REF`` (no value) gives attributes to: the one a reference names
    (``-n`` / ``+n``: the last reference of the chain, bash's ``find_variable_last_nameref``); None
    when its chain is circular (bash warns twice and changes nothing) or too long."""
    try:
        target = deref(scope, name, reading=False)
    except CircularReference as error:
        circular(shell, name, builtin, error.warn)
        return None
    if "n" not in letters:
        return target
    while _is_reference(scope, scope.get(name, "")):
        name = scope[name]
    return name


def _is_reference(scope: MutableMapping[str, str], name: str) -> bool:
    return "n" in attributes(scope, name) and bool(scope.get(name))


def local_name(scope: MutableMapping[str, str], name: str) -> str:
    """The variable ``local REF`` makes the call's own: the one a reference names (itself when the
    chain fails, which the declaration then reports)."""
    try:
        return deref(scope, name, reading=False).partition("[")[0]
    except CircularReference:
        return name


def unset_target(shell: Shell, scope: MutableMapping[str, str], name: str) -> str:
    """What ``unset NAME`` unsets: the variable a reference names; the reference itself when its
    chain is circular (bash warns twice) or too long."""
    try:
        return deref(scope, name, reading=False)
    except CircularReference as error:
        circular(shell, name, "unset", error.warn)
        return name


def circular(shell: Shell, name: str, builtin: str, warn: bool) -> bool:
    """An assignment through a circular reference ``name`` (``warn``: one back to itself, which
    bash warns of; a chain too long fails silently): an assignment word then ends the script
    with status 1, as ``bash -c`` does (and a read-only variable's assignment; ``bash --posix`` ends
    both with 127), a builtin's (``declare a=1``) assigns nothing,
    warns twice and goes on. False when the script ended."""
    for _ in range(2 if builtin else 1):
        if warn:
            shell.error(f"bash: warning: {name}: circular name reference")
    if builtin:
        return True
    shell.status, shell.exited = 1, True
    return False
