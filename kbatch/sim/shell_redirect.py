"""Where a simulated command's input comes from and its output goes: redirections (POSIX "Shell
Command Language" 2.7), a loop's input (``done < FILE``) and pipelines (2.9.2).

The functions take the :class:`~kbatch.sim.shell_run.Shell` whose run they are part of, and are
called by :func:`kbatch.sim.shell_run.run_chain` (which imports this module after defining what it
uses, as it does :mod:`kbatch.sim.shell_commands`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass

from kbatch.sim.files import resolve
from kbatch.sim.shell_input import Input, heredoc_body
from kbatch.sim.shell_run import Shell, expand_text, pathnames, run_chain, run_nodes, run_simple
from kbatch.sim.shell_syntax import Node, Redirected, Word, command_words, words
from kbatch.sim.shell_trace import trace
from kbatch.sim.shell_vocab import READS_STDIN, first_unmodelled, modelled

__all__ = ["loop_input", "run_compound_redirected", "run_pipeline", "run_redirected"]

_REDIRECT = re.compile(r"^(\d*|&)(>>?|<)(.*)$")  # a redirection word: fd, operator, target (or none)


def loop_input(shell: Shell, redirect: str, scope: MutableMapping[str, str]) -> Input | None:
    """The input a loop's ``done < FILE`` / ``done <<WORD`` gives its commands (None: it failed)."""
    text = expand_text(shell, redirect, scope, fields=True)
    if text is None:
        return None
    return _stdin(shell, _redirections(command_words(text))[1], scope)


def run_pipeline(shell: Shell, stages: Sequence[str | Node], scope: MutableMapping[str, str]) -> None:
    """``a | b | c`` (2.9.2): each command in a subshell, its standard output the next one's
    input; the status is the last command's (with ``set -o pipefail``, the last non-zero one). The
    stages run together: the pipeline takes as long as its longest stage, a stage that reads its
    input (a compound command is taken to) starting when the stage before it has ended (so a
    filter's lines are printed when its input is complete). A writer whose reader has ended without
    reading all of it is killed by SIGPIPE (status 141; ``yes | head -1``, :func:`_writer_status`).
    A stage the vocabulary does not model makes the whole pipeline "anything else" (the default
    duration, status 0)."""
    functions = frozenset(shell.functions)
    if not all(modelled(words(stage), functions) if isinstance(stage, str)
               else first_unmodelled((stage,), functions) is None for stage in stages):
        shell.status = 0
        shell.spend(shell.default)
        return
    start, end, data = shell.duration, 0.0, None
    direct = shell.sink is None and shell.captured is None
    last = len(stages) - 1
    statuses: list[int] = []
    for index, stage in enumerate(stages):
        sub = shell.subshell(capture=index < last or not direct)
        sub.pipe_writer = index < last
        if data is not None:
            sub.stdin = Input(data)
        if index == last and direct:  # its output continues the log's open line, and may leave one
            sub.open_line = shell.open_line
        offset = end if index and _reads_input(stage) else 0.0
        if isinstance(stage, str):
            run_chain(sub, ((";", stage),), dict(scope))
        else:
            run_nodes(sub, (stage,), dict(scope))
        shell.absorb(sub, start + offset)
        if index == last and direct and sub.logs:
            shell.open_line = sub.open_line
        if index and statuses[-1] == _ENDLESS:  # the writer before never ends by itself
            statuses[-1], sub_end = _writer_status(sub, stage)
            end = max(end, sub_end)
        end = max(end, offset + sub.duration) if index else sub.duration
        data = "".join(sub.captured or ())
        statuses.append(_ENDLESS if sub.pipe_writer and sub.endless else sub.status)
    if not direct and data:
        shell.out(data)
    failed = [code for code in statuses if code != 0]
    status = failed[-1] if shell.pipefail and failed else statuses[-1]
    shell.spend(end)
    shell.status = status if not shell.exited else shell.status


_ENDLESS = -1  # a stage that writes without end (``yes``) until its reader stops reading


_HEAD_TO_END = re.compile(r"-[nc]\s*-\d")  # ``head -n -N``: all but the last lines, so all


def _writer_status(reader: Shell, stage: str | Node) -> tuple[int, float]:
    """The status of an endless writer (``yes``) and how long it runs, from its reader: one that
    ended before reading all it was given (``read``, ``head -n N``, which takes its lines and
    exits) closed the pipe, and the writer's next write kills it with SIGPIPE (141, signal(7));
    one that read it all (``wc -l``, ``sort``) would read on forever."""
    argv = words(stage) if isinstance(stage, str) else []
    head = bool(argv) and argv[0] == "head" and not _HEAD_TO_END.search(" ".join(argv[1:]))
    if head or reader.stdin.pos < len(reader.stdin.text):
        return 128 + 13, 0.0
    return 0, math.inf


def _reads_input(stage: str | Node) -> bool:
    if not isinstance(stage, str):
        return True
    argv = words(stage)
    return bool(argv) and argv[0] in READS_STDIN


@dataclass(slots=True)
class _Redirections:
    """Where a simple command's standard output, error and input go (POSIX 2.7)."""

    out: str | None = None  # a file for standard output
    append: bool = False
    err: str | None = None  # a file for standard error
    err_append: bool = False
    err_to_out: bool = False  # ``2>&1``
    stdin: str | None = None  # ``< FILE``
    heredoc: tuple[str, bool] | None = None  # ``<<WORD``: the body, and whether it is expanded


def run_redirected(shell: Shell, argv: list[Word], scope: MutableMapping[str, str],
                   traced: bool = False) -> None:
    """A simple command with its redirections: ``> f`` / ``>> f`` / ``&> f`` send standard output
    to a file, ``2> f`` standard error, ``2>&1`` error where output goes (each file created or
    truncated first; a failure is status 2 and the command does not run); ``< f`` feeds ``cat``;
    ``>&2`` leaves output in the log, which holds both. ``traced``: its ``set -x`` line is written."""
    words_, where = _redirections(argv)
    if not words_:
        return
    args = pathnames(shell, words_)
    if not traced:
        trace(shell, args, scope)
    _redirected(shell, where, scope, lambda stdin: run_simple(shell, args, scope, stdin))


def run_compound_redirected(shell: Shell, node: Redirected, scope: MutableMapping[str, str]) -> None:
    """A compound command with redirections after its closing keyword (``fi > f 2>&1``, ``done >>
    log``, ``esac < f``): they hold for every command in it (2.9.4, 2.7)."""
    text = expand_text(shell, node.redirects, scope, fields=True)
    if text is None:
        return
    where = _redirections(command_words(text))[1]

    def run(stdin: Input) -> None:
        outer, shell.stdin = shell.stdin, stdin
        try:
            run_nodes(shell, (node.node,), scope)
        finally:
            shell.stdin = outer

    _redirected(shell, where, scope, run)


def _redirected(shell: Shell, where: _Redirections, scope: MutableMapping[str, str],
                run: Callable[[Input], None]) -> None:
    """``run`` with the redirections: each file created or truncated first (a failure is status 2
    and nothing runs); standard output and error not redirected go where they went before, and
    ``2>&1`` sends errors where standard output goes (a file, a pipe, a substitution or the log)."""
    stdin = _stdin(shell, where, scope)
    if stdin is None:
        return
    targets = ((where.out, where.append), (where.err, where.err_append))
    for target, append in targets:
        if target is None:
            continue
        error = shell.files.get().write(resolve(shell.cwd, target), "", append=append)
        if error is not None:
            shell.error(f"sh: {error}")
            shell.status = 2
            return
    outer = shell.sink, shell.err_sink
    out: list[str] | None = [] if where.out is not None else shell.sink
    err = ((out if out is not None else shell.captured) if where.err_to_out
           else [] if where.err is not None else shell.err_sink)
    shell.sink, shell.err_sink = out, err
    try:
        run(stdin)
    finally:
        shell.sink, shell.err_sink = outer
        for target, text in ((where.out, out), (where.err, None if where.err_to_out else err)):
            if target is not None and text:
                shell.files.get().write(resolve(shell.cwd, target), "".join(text), append=True)


def _stdin(shell: Shell, where: _Redirections, scope: MutableMapping[str, str]) -> Input | None:
    """The command's standard input: its ``< FILE`` (a missing one is dash's ``cannot open``,
    status 2, and the command does not run), its here-document (expanded unless its delimiter was
    quoted), or the shell's own."""
    if where.heredoc is not None:
        body, expanded = where.heredoc
        if expanded:
            protected = body.replace("\\\n", "").replace("\\$", "\x02").replace("\\`", "`")
            text = expand_text(shell, protected, scope, quotes=False)
            if text is None:
                return None
            body = text.replace("\x02", "$").replace("\\\\", "\\")
        return Input(body)
    if where.stdin is None:
        return shell.stdin
    content = shell.files.get().read(resolve(shell.cwd, where.stdin))
    if content is None:
        shell.error(f"sh: cannot open {where.stdin}: No such file")
        shell.status = 2
        return None
    return Input(content)


def _redirections(argv: list[Word]) -> tuple[list[Word], _Redirections]:
    """The command's words and its redirections, from :func:`command_words`."""
    args: list[Word] = []
    where = _Redirections()
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if not word.redirect:
            args.append(word)
            continue
        unnumbered = word.text.lstrip("0123456789")
        heredoc = heredoc_body(unnumbered)
        found = _REDIRECT.match(word.text)
        if unnumbered.startswith("<<<"):  # ``<<< WORD``: the word and a newline (bash, busybox ash)
            text = unnumbered[3:]
            if not text and index < len(argv):
                text = argv[index].text
                index += 1
            where.heredoc = (text + "\n", False)
        elif heredoc is not None:
            where.heredoc = heredoc
        elif found is not None:
            fd, op, target = found.groups()
            if not target and index < len(argv):
                target = argv[index].text
                index += 1
            _redirect(where, fd, op, target)
    return args, where


def _redirect(where: _Redirections, fd: str, op: str, target: str) -> None:
    """Note one redirection ``fd op target`` (``op`` one of ``<``, ``>``, ``>>``)."""
    if op == "<":
        where.stdin = target
    elif fd == "2":
        if target == "&1":
            where.err_to_out = True
        elif not target.startswith("&"):
            where.err, where.err_append = target, op == ">>"
    elif not target.startswith("&"):
        where.out, where.append = target, op == ">>"
        if fd == "&":
            where.err_to_out = True
