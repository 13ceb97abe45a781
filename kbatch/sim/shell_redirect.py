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
from dataclasses import dataclass, field

from kbatch.sim.files import resolve
from kbatch.sim.shell_fds import FileSink, LogSink, Stream
from kbatch.sim.shell_input import Input, heredoc_body
from kbatch.sim.shell_run import Shell, expand_text, pathnames, run_chain, run_nodes, run_simple
from kbatch.sim.shell_syntax import Node, Redirected, Word, command_words, words
from kbatch.sim.shell_trace import trace
from kbatch.sim.shell_vocab import READS_STDIN, first_unmodelled, modelled

__all__ = ["loop_input", "run_compound_redirected", "run_pipeline", "run_redirected",
           "run_with_redirections"]

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
    fds: list[tuple[int, str, str]] = field(default_factory=list)  # the others, in order: fd, op, target


def run_redirected(shell: Shell, argv: list[Word], scope: MutableMapping[str, str],
                   traced: bool = False) -> None:
    """A simple command with its redirections: ``> f`` / ``>> f`` / ``&> f`` send standard output
    to a file, ``2> f`` standard error, ``2>&1`` error where output goes (each file created or
    truncated first; a failure is status 2 and the command does not run); ``< f`` feeds ``cat``;
    ``>&2`` writes to standard error, ``>&3`` to descriptor 3 (:func:`_descriptor`); ``exec`` alone
    makes them the shell's own. ``traced``: its ``set -x`` line is written."""
    words_, where = _redirections(argv)
    if not words_:
        return
    args = pathnames(shell, words_)
    if not traced:
        trace(shell, args, scope)
    if args == ["exec"]:
        _exec(shell, where, scope)
        return
    _redirected(shell, where, scope, lambda stdin: run_simple(shell, args, scope, stdin))


def run_with_redirections(shell: Shell, text: str, scope: MutableMapping[str, str],
                          run: Callable[[], object]) -> None:
    """``run`` under the redirections written in ``text``, expanded now (an assignment-only command's,
    :mod:`kbatch.sim.shell_compound`); a failure to open one is the command's status, ``run`` not run."""
    def body(_stdin: Input) -> None:
        run()

    expanded = expand_text(shell, text, scope, fields=True)
    if expanded is not None:
        _redirected(shell, _redirections(command_words(expanded))[1], scope, body)


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


@dataclass(slots=True)
class _Streams:
    """A command's descriptors once its redirections are made: 0, 1 and 2 (None: the shell's
    standard output, or its standard error the log) and those above; ``touched``: the ones made."""

    stdin: Input
    out: list[str] | None
    err: list[str] | None
    fds: dict[int, Stream]
    touched: set[int]


def _redirected(shell: Shell, where: _Redirections, scope: MutableMapping[str, str],
                run: Callable[[Input], None]) -> None:
    """``run`` with the redirections: each file created or truncated first (a failure is status 2
    and nothing runs); the descriptors not redirected are the shell's, and those redirected are
    restored after (XCU ``exec``: but those ``exec`` changes in ``run`` stay)."""
    streams = _open(shell, where, scope)
    if streams is None:
        return
    outer = shell.sink, shell.err_sink, {fd: shell.fds.get(fd) for fd in streams.touched if fd > 2}
    shell.sink, shell.err_sink = streams.out, streams.err
    if outer[2]:
        shell.fds = {fd: stream for fd, stream in streams.fds.items() if fd in outer[2]} | {
            fd: stream for fd, stream in shell.fds.items() if fd not in outer[2]}
    try:
        run(streams.stdin)
    finally:
        if 1 in streams.touched:
            shell.sink = outer[0]
        if 2 in streams.touched:
            shell.err_sink = outer[1]
        for fd, stream in outer[2].items():
            if stream is None:
                shell.fds.pop(fd, None)
            else:
                shell.fds[fd] = stream


def _exec(shell: Shell, where: _Redirections, scope: MutableMapping[str, str]) -> None:
    """``exec`` with only redirections (XCU ``exec``): they hold for the rest of the shell. One
    that fails ends dash (a special built-in's redirection error, 2.8.1), not ``bash -c``."""
    streams = _open(shell, where, scope)
    if streams is None:
        shell.exited = shell.exited or not shell.bash
        return
    if 0 in streams.touched:
        shell.stdin = streams.stdin
    shell.sink, shell.err_sink, shell.fds = streams.out, streams.err, streams.fds
    shell.status = 0


def _open(shell: Shell, where: _Redirections, scope: MutableMapping[str, str]) -> _Streams | None:
    """The descriptors with the redirections made, in order (None: one failed, its message written
    and the status set): files created or truncated, ``2>&1``, then ``N<FILE``, ``N>FILE``,
    ``N>&M`` / ``N<&M`` (a copy of M) and ``N>&-`` (closed)."""
    stdin = _stdin(shell, where, scope)
    if stdin is None:
        return None
    streams = _Streams(stdin, shell.sink, shell.err_sink, dict(shell.fds) if where.fds else shell.fds, set())
    if where.stdin is not None or where.heredoc is not None:
        streams.touched.add(0)
    for fd, target, append in ((1, where.out, where.append), (2, where.err, where.err_append)):
        if target is None:
            continue
        sink = _file_sink(shell, target, append)
        if sink is None:
            return None
        if fd == 1:
            streams.out = sink
        else:
            streams.err = sink
        streams.touched.add(fd)
    if where.err_to_out:
        streams.err = streams.out if streams.out is not None else shell.captured
        streams.touched.add(2)
    for fd, op, target in where.fds:
        if not _descriptor(shell, streams, fd, op, target):
            return None
    return streams


def _file_sink(shell: Shell, target: str, append: bool) -> FileSink | None:
    """``> FILE`` / ``>> FILE``: the file created (or truncated), then written as the command writes."""
    path = resolve(shell.cwd, target)
    files = shell.files.get()
    error = files.write(path, "", append=append)
    if error is not None:
        shell.error(f"sh: {error}")
        shell.status = 2
        return None
    return FileSink(lambda text: files.write(path, text, append=True))


def _descriptor(shell: Shell, streams: _Streams, fd: int, op: str, target: str) -> bool:
    """One redirection of descriptor ``fd``; False when it failed (a file that cannot be opened, a
    copy of a descriptor not open: ``sh: N: Bad file descriptor``, status 2 in dash, 1 in bash)."""
    stream: Stream | None
    if target == "&-":
        stream = Input() if fd == 0 else []
        if fd > 2:
            streams.fds.pop(fd, None)
            streams.touched.add(fd)
            return True
    elif target.startswith("&"):
        stream = _stream(shell, streams, target[1:])
        if stream is None:
            shell.error(f"{'bash' if shell.bash else 'sh'}: {target[1:]}: Bad file descriptor")
            shell.status = 1 if shell.bash else 2
            return False
    elif op == "<":
        content = shell.files.get().read(resolve(shell.cwd, target))
        if content is None:
            _cannot_open(shell, target)
            return False
        stream = Input(content)
    else:
        stream = _file_sink(shell, target, op == ">>")
        if stream is None:
            return False
    streams.touched.add(fd)
    if fd == 0:
        streams.stdin = stream if isinstance(stream, Input) else Input()
    elif fd in (1, 2):
        sink = stream if isinstance(stream, list) else []  # written to an input: lost
        if fd == 1:
            streams.out = sink
        else:
            streams.err = sink
    else:
        streams.fds[fd] = stream
    return True


def _stream(shell: Shell, streams: _Streams, fd: str) -> Stream | None:
    """What descriptor ``fd`` refers to now (None: it is not open, or not a number)."""
    if not fd.isdigit():
        return None
    number = int(fd)
    if number == 0:
        return streams.stdin
    if number == 1:
        out = streams.out if streams.out is not None else shell.captured
        return out if out is not None else LogSink(shell.log)
    if number == 2:
        return streams.err if streams.err is not None else LogSink(shell.log)
    return streams.fds.get(number)


def _stdin(shell: Shell, where: _Redirections, scope: MutableMapping[str, str]) -> Input | None:
    """The command's standard input: its ``< FILE`` (a missing one: :func:`_cannot_open`,
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
        _cannot_open(shell, where.stdin)
        return None
    return Input(content)


def _cannot_open(shell: Shell, target: str) -> None:
    """A file to read that is not there: dash's ``cannot open``, status 2; bash's ``No such file or
    directory``, status 1 (the command does not run)."""
    if shell.bash:
        shell.error(f"bash: {target}: No such file or directory")
    else:
        shell.error(f"sh: cannot open {target}: No such file")
    shell.status = 1 if shell.bash else 2


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
    """Note one redirection ``fd op target`` (``op`` one of ``<``, ``>``, ``>>``): a descriptor
    above 2, a copy (``>&2``, ``<&3``) or a close (``3>&-``) among :attr:`_Redirections.fds`."""
    number = int(fd) if fd.isdigit() else 0 if op == "<" else 1
    if fd != "&" and (number > 2 or (target.startswith("&") and (number, target) != (2, "&1"))):
        where.fds.append((number, op, target))
    elif op == "<":
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
