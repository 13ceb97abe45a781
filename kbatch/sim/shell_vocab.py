"""Which commands the simulated shell runs as written, read off a parsed script without running it.

The runner (:mod:`kbatch.sim.shell_run`) dispatches on the names below (the text filters of
:mod:`kbatch.sim.shell_text` with the options modelled there; a pipeline when each of its commands
is); any other command runs the default duration and exits 0 ("anything else").
:func:`first_unmodelled` finds the first such
command for the create-time warning (:mod:`kbatch.sim.unmodelled`) and for command substitutions,
which are run only when everything inside them is modelled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kbatch.sim.clock_text import DATE_OPTIONS
from kbatch.sim.container_run import parse_sleep
from kbatch.sim.env_listing import env_modelled
from kbatch.sim.shell_arrays import ELEMENT, compound_assignment
from kbatch.sim.shell_eval import substitutes
from kbatch.sim.shell_pids import program
from kbatch.sim.shell_syntax import (
    Background,
    Case,
    For,
    Function,
    Group,
    If,
    Node,
    Piped,
    Redirected,
    Simple,
    While,
    negation,
    split_pipeline,
    words,
)
from kbatch.sim.shell_text import FILTERS, modelled_filter

__all__ = ["ASSIGNMENT", "BUILTINS", "FILE_COMMANDS", "KNOWN", "READS_STDIN", "TESTS", "command_target",
           "first_unmodelled", "modelled"]

BUILTINS = frozenset({"set", "umask"})
"""Builtins that take no time and answer 0 (``cd`` is modelled apart: it moves the directory)."""
TESTS = frozenset({"[", "[[", "test"})
FILE_COMMANDS = frozenset({"cat", "ls", "touch", "mkdir", "rm"})
KNOWN = BUILTINS | TESTS | FILE_COMMANDS | {"exit", "true", ":", "false", "echo", "wait", "cd", "let", "trap",
                                            "break", "continue", "sleep", "printf", "read", "tee", "yes",
                                            "shift", "local", "return", "printenv", "env", "pwd",
                                            "export", "unset", "readonly", "declare", "typeset", "eval"}
READS_STDIN = FILTERS | {"cat", "read", "tee"}
"""Commands that read their standard input (a pipeline stage that waits for the one before it)."""
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")


def modelled(argv: list[str], functions: frozenset[str] = frozenset()) -> bool:
    """Is the simple command ``argv`` (unexpanded words) one the runner models (``functions``: the
    names the script defines, calls of which are)?"""
    if not argv or all(ASSIGNMENT.match(w) or ELEMENT.match(w) for w in argv) or argv[0].startswith("(("):
        return True  # assignments, bash's ``(( EXPR ))``
    while ASSIGNMENT.match(argv[0]) and "$(" not in argv[0]:  # ``IFS=: read a b``
        argv = argv[1:]
    name, rest = argv[0] if argv[0] in functions else program(argv[0]), argv[1:]
    if name in FILTERS:
        return modelled_filter(_operands(argv))
    if name == "sleep":
        return bool(rest) and all("$" in w or parse_sleep(w) is not None for w in rest)
    if name == "date":  # the current time in the default format (kbatch/sim/clock_text.py)
        return all(w in DATE_OPTIONS for w in rest)
    if name == "exec":  # only redirections: the shell's own descriptors (XCU ``exec``); with a
        operands = _operands(rest)  # command, that command (not a function), without options
        return not operands or (not operands[0].startswith("-") and not ASSIGNMENT.match(operands[0])
                                and modelled(operands))  # ``exec X=1 cmd``: ``X=1`` is the program
    if name in ("command", "builtin"):  # the command they run, no function (bash ``command``, ``builtin``)
        operands = command_target(name, _operands(rest))
        return not operands or (not operands[0].startswith("-") and modelled(operands))
    return (name in KNOWN and env_modelled(name, _operands(rest))) or name in functions or "$" in name


_REDIRECTION = re.compile(r"^(\d*|&)(>>?|<<<|<)")


def command_target(name: str, rest: Sequence[str]) -> list[str]:
    """The command ``command [-p] [--] …`` or ``builtin [--] …`` runs: ``rest`` without their
    options (``builtins/command.def``, ``builtin.def``)."""
    options = ("-p", "--") if name == "command" else ("--",)
    start = 0
    while start < len(rest) and rest[start] in options:
        start += 1
    return list(rest[start:])


def _operands(argv: list[str]) -> list[str]:
    """``argv`` without its redirections (``< f``, ``2>/dev/null``, a here-document)."""
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif _REDIRECTION.match(word):
            skip = _REDIRECTION.sub("", word).lstrip("&") == "" and not word.startswith("<<#")
        else:
            out.append(word)
    return out


def _modelled_pipeline(command: str, functions: frozenset[str]) -> bool:
    pipeline = negation(command)[1]
    return all(compound_assignment(stage) is not None or modelled(words(stage), functions)
               for stage in split_pipeline(pipeline))


def _chains(node: Node) -> list[tuple[tuple[str, str], ...]]:
    if isinstance(node, Simple):
        return [node.chain]
    if isinstance(node, Piped):
        return [tuple((";", s) for s in node.stages if isinstance(s, str)), node.rest]
    return []


def _bodies(node: Node) -> list[Sequence[Node]]:
    if isinstance(node, If):
        return [*(part for branch in node.branches for part in branch), node.orelse or ()]
    if isinstance(node, For):
        return [node.body]
    if isinstance(node, While):
        return [node.init, node.condition, node.body, node.step]
    if isinstance(node, Case):
        return [body for _, body in node.arms]
    if isinstance(node, Background | Redirected):
        return [(node.node,)]
    if isinstance(node, Group):
        return [node.body]
    if isinstance(node, Function):
        return [(node.body,)]
    if isinstance(node, Piped):
        lead = () if node.lead is None else (node.lead,)
        return [tuple(s for s in node.stages if not isinstance(s, str)), lead]
    return []


def first_unmodelled(nodes: Sequence[Node], functions: frozenset[str] = frozenset()) -> str | None:
    """The first command in ``nodes`` the runner does not model, as written; None when none.
    ``functions``: names defined before (a command substitution's shell has its parent's); the
    functions ``nodes`` define anywhere count too (a call may come before the definition runs)."""
    functions = functions | _defined(nodes)
    for node in nodes:
        if isinstance(node, For) and substitutes(node.items.replace("$(seq", "")):
            return f"for {node.name} in {node.items}"
        for chain in _chains(node):
            found = next((c for _, c in chain if not _modelled_pipeline(c, functions)), None)
            if found is not None:
                return found
        for body in _bodies(node):
            found = first_unmodelled(body, functions)
            if found is not None:
                return found
    return None


def _defined(nodes: Sequence[Node]) -> frozenset[str]:
    """The names of the functions ``nodes`` define, at any depth."""
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, Function):
            names.add(node.name)
        for body in _bodies(node):
            names |= _defined(body)
    return frozenset(names)
