"""A simulated script's function as bash's ``declare -f`` / ``typeset -f`` prints it: the body
re-laid out the way bash's ``print_cmd.c`` (``make_command_string_internal``,
``print_function_def``) writes a parsed command, for the constructs :mod:`kbatch.sim.shell_syntax`
parses.

The layout: ``NAME () `` on a line, then the body, always as a ``{ … }`` group (a ``( … )`` or
another compound body inside one), its redirections after the ``}``; four spaces of indentation a
level; commands of a list each on their own line ended by ``;`` but the last (``&`` keeps a
background command and the next on one line); the bodies of ``if`` / ``for`` / ``while`` /
``until`` end each command with ``;``, the last too; ``elif`` is an ``else`` holding a nested ``if``;
``for NAME`` alone is ``for NAME in "$@"``; ``case`` arms are ``PAT | PAT)`` with the ``;;`` on a
line of their own; a simple command's words as written, one space apart, a redirection's operator
and its target a space apart (``> /dev/null``, ``2> f``; ``2>&1`` stays, ``>&2`` is ``1>&2``). A
here-document and bash's ``[[ ]]`` / ``(( ))`` normalisations are not modelled (their words stay
as written).
"""

from __future__ import annotations

import re

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
    split_pipeline,
)
from kbatch.sim.shell_trace import written_words
from kbatch.sim.shell_words import negation

__all__ = ["function_text"]

_STEP = 4
_REDIRECT = re.compile(r"^([0-9]*)(>>|>\||<>|>|<)(.+)$", re.DOTALL)


def function_text(name: str, body: Node) -> str:
    """``declare -f NAME``'s text of function ``name`` (its last line without the newline)."""
    redirects = " " + _words(body.redirects) if isinstance(body, Redirected) else ""
    if isinstance(body, Redirected):
        body = body.node
    inner = body.body if isinstance(body, Group) and not body.subshell else (body,)
    return f"{name} () \n{{ \n{_pad(_STEP)}{_list(inner, _STEP, False)}\n}}{redirects}"


def _pad(level: int) -> str:
    return " " * level


def _list(nodes: tuple[Node, ...], level: int, closed: bool) -> str:
    """Commands at ``level``, one a line (the first not indented: the caller placed it); ``closed``:
    the last ended by ``;`` too (a keyword's body)."""
    out = ""
    for index, node in enumerate(nodes):
        text = _node(node, level)
        last = index == len(nodes) - 1
        if text.endswith("&"):
            out += text + ("" if last else " ")
        elif last:
            out += text + (";" if closed else "")
        else:
            out += text + ";\n" + _pad(level)
    return out


def _node(node: Node, level: int) -> str:
    if isinstance(node, Simple):
        text = " ".join([_command(node.chain[0][1]),
                         *(f"{sep} {_command(command)}" for sep, command in node.chain[1:])])
        return text + (" &" if node.background else "")
    if isinstance(node, If):
        return _if(node, level, 0)
    if isinstance(node, For):
        head = f"for {node.name} in {' '.join(written_words(node.items))};\n{_pad(level)}do"
        return _loop_body(head, node.body, level, node.stdin)
    if isinstance(node, While):
        head = f"{'until' if node.until else 'while'} {_list(node.condition, level, True)} do"
        return _loop_body(head, node.body, level, node.stdin)
    if isinstance(node, Case):
        return _case(node, level)
    if isinstance(node, Group):
        if node.subshell:
            return f"( {_list(node.body, level, False)} )"
        return f"{{ \n{_pad(level + _STEP)}{_list(node.body, level + _STEP, False)}\n{_pad(level)}}}"
    if isinstance(node, Redirected):
        return f"{_node(node.node, level)} {_words(node.redirects)}"
    if isinstance(node, Background):
        return _node(node.node, level) + " &"
    if isinstance(node, Piped):
        return _piped(node, level)
    return _function(node, level)


def _if(node: If, level: int, branch: int) -> str:
    """``if`` from branch ``branch`` on: each ``elif`` an ``else`` with an ``if`` inside."""
    condition, body = node.branches[branch]
    inner = _pad(level + _STEP)
    text = f"if {_list(condition, level, True)} then\n{inner}{_list(body, level + _STEP, True)}\n"
    if branch + 1 < len(node.branches):
        text += f"{_pad(level)}else\n{inner}{_if(node, level + _STEP, branch + 1)};\n"
    elif node.orelse is not None:
        text += f"{_pad(level)}else\n{inner}{_list(node.orelse, level + _STEP, True)}\n"
    return text + f"{_pad(level)}fi"


def _loop_body(head: str, body: tuple[Node, ...], level: int, stdin: str) -> str:
    done = f"done {_words(stdin)}" if stdin else "done"
    return f"{head}\n{_pad(level + _STEP)}{_list(body, level + _STEP, True)}\n{_pad(level)}{done}"


def _case(node: Case, level: int) -> str:
    arm_pad, body_pad = _pad(level + _STEP), _pad(level + 2 * _STEP)
    text = f"case {node.word} in \n"
    for patterns, body in node.arms:
        commands = f"{body_pad}{_list(body, level + 2 * _STEP, False)}" if body else ""
        text += f"{arm_pad}{' | '.join(patterns)})\n{commands}\n"
        text += f"{arm_pad};;\n"
    return text + f"{_pad(level)}esac"


def _piped(node: Piped, level: int) -> str:
    stages = " | ".join(_command(stage) if isinstance(stage, str) else _node(stage, level)
                        for stage in node.stages)
    text = ("! " if node.negate else "") + stages
    if node.lead is not None:
        text = f"{_node(node.lead, level)} {node.separator} {text}"
    return " ".join([text, *(f"{sep} {_command(command)}" for sep, command in node.rest)])


def _function(node: Function, level: int) -> str:
    lines = function_text(node.name, node.body).split("\n")
    return ("\n" + _pad(level)).join(lines)


def _command(command: str) -> str:
    """A simple command (perhaps a pipeline, perhaps after ``!``) with its words laid out."""
    negated, rest = negation(command)
    stages = split_pipeline(rest)
    return ("! " if negated else "") + " | ".join(_words(stage) for stage in stages)


def _words(text: str) -> str:
    out: list[str] = []
    for word in written_words(text):
        found = _REDIRECT.match(word)
        if found is not None and found.group(3)[:1] not in "&<>":
            word = f"{found.group(1)}{found.group(2)} {found.group(3)}"
        elif found is not None and found.group(3)[:1] == "&" and not found.group(1):
            word = ("1" if found.group(2) == ">" else "0") + word  # ``>&2`` is ``1>&2``
        out.append(word)
    return " ".join(out)
