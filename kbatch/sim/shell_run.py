"""Running a parsed ``sh -c`` script: time, logs, exit status, variables and files as sh keeps them.

:class:`Shell` holds what a script's run accumulates; :func:`run_script` walks the tree of
:mod:`kbatch.sim.shell_syntax` by POSIX "Shell Command Language" 2.9.4:

* ``if`` runs the first branch whose condition exits 0; ``for`` binds each word in turn; ``while``
  / ``until`` run the body while the condition exits 0 (non-zero); ``case`` runs the first arm
  with a pattern matching the word (2.13 pattern matching: ``*``, ``?``, ``[…]``; quoted characters
  literal). A compound command's status is that of the last command its body ran, 0 when none ran.
* ``break [n]`` / ``continue [n]`` leave or restart the n-th enclosing loop (2.14; outside a loop
  they do nothing, as dash).
* **Loops that never end.** A ``while``/``until`` iteration that leaves every variable, the status,
  the directory and the files as it found them will run the same way forever: nothing else in a
  simulated container changes (no clock, no other process writes its files). So the loop is not
  iterated further: the container runs until killed (``duration`` infinite), and what the iteration
  printed is repeated at its period, up to :data:`MAX_LOG_LINES` lines (``while true; do date; sleep
  10; done`` is a long-running container, not a hot loop in the kubelet).
* A run of more than :data:`MAX_STEPS` commands (a counter loop to ten million) is not followed:
  it runs the default duration and exits 0, with a ``warning`` on the :class:`ContainerRun`.

Files (:mod:`kbatch.sim.files`) are built on first use only (``files``, a factory): a script that
reads or writes none costs no view.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from itertools import pairwise

from kbatch.sim.clock_text import DATE_MARK, DATE_OPTIONS
from kbatch.sim.container_run import ContainerRun, parse_sleep
from kbatch.sim.files import FileSystem, resolve
from kbatch.sim.shell_arith import ArithError, evaluate
from kbatch.sim.shell_arrays import ELEMENT, compound_assignment
from kbatch.sim.shell_brace import brace_words
from kbatch.sim.shell_cond import Leaf as CondLeaf
from kbatch.sim.shell_cond import Tree as CondTree
from kbatch.sim.shell_cond import evaluate_cond, parse_cond
from kbatch.sim.shell_eval import IntegerError, cond_primary, condition_status, for_items, seq_commands
from kbatch.sim.shell_expand import dequote, expand
from kbatch.sim.shell_fds import LogSink, Stream, rebound
from kbatch.sim.shell_glob import expand_pathname
from kbatch.sim.shell_input import Input
from kbatch.sim.shell_params import ParamError
from kbatch.sim.shell_pids import BACKGROUND_KEY, EXTERNAL, Pids, program
from kbatch.sim.shell_positional import FLAGS_KEY, SHELL_KEY, set_positional
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
    Word,
    command_words,
    negation,
    parse_script,
    split_pipeline,
)
from kbatch.sim.shell_test import TestError, test_status
from kbatch.sim.shell_trace import trace, trace_cond, trace_line, written_words
from kbatch.sim.shell_vars import DECLARATIONS, WARNINGS
from kbatch.sim.shell_vocab import ASSIGNMENT, BUILTINS, TESTS, command_target, first_unmodelled
from kbatch.sim.signals import StopSignal, killed_status

__all__ = ["MAX_LOG_LINES", "MAX_STEPS", "FilesFactory", "Shell", "run_script"]

MAX_STEPS = 200_000
"""Commands one run may execute (about 3 s of the kubelet's CPU); past it the run is "anything else",
with a warning."""
MAX_LOG_LINES = 10_000
"""Lines a never-ending loop's output is repeated to."""
FilesFactory = Callable[[], FileSystem]
NO_INPUT = Input()  # empty: reading it changes nothing, so every shell may share it


class TooManySteps(Exception):
    """The run went past :data:`MAX_STEPS` commands."""


class _NotFollowed(Exception):
    """The run reached something kbatch follows only elsewhere (its message says what)."""


class _Unmodelled(TooManySteps):
    """A ``for`` over words that are not modelled: the script is "anything else" (no warning:
    the create-time warning named it)."""


class _Jump(Exception):
    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind, self.levels = kind, levels


class _Files:
    """The container's file view, built when a command first needs it; shared with subshells."""

    def __init__(self, factory: FilesFactory | None) -> None:
        self.factory = factory
        self.view: FileSystem | None = None

    def get(self) -> FileSystem:
        view = self.view
        if view is None:
            view = self.view = self.factory() if self.factory is not None else FileSystem()
        return view


class Shell:
    """What a script's run has done so far."""

    def __init__(self, default: float, files: _Files, capture: bool = False,
                 stop: StopSignal | None = None) -> None:
        self.default, self.files, self.stop = default, files, stop
        self.duration, self.status, self.steps, self.loops = 0.0, 0, 0, 0
        self.logs: list[str] = []
        self.offsets: list[float] = []
        self.exited = False
        self.background_end = 0.0  # when the last background list started so far ends
        self.cwd = "/"
        self.open_line = False  # the last log line has had no newline yet
        self.captured: list[str] | None = [] if capture else None
        self.sink: list[str] | None = None  # a redirected command's standard output
        self.err_sink: list[str] | None = None  # ... and its standard error
        self.traps: dict[str, str] = {}  # condition (``TERM``, ``EXIT``) -> action ("": ignored)
        self.delivered = False  # the stop signal has arrived
        self.signalled = False  # ... and ended the shell (its default action)
        self.pending = False  # ... and its trap waits for the foreground command to end
        self.trap_status: int | None = None  # ``$?`` when the running trap action began
        self.stdin = NO_INPUT  # a container's standard input is empty
        self.noglob = False  # ``set -f``: no pathname expansion (2.6.6)
        self.pipefail = False  # ``set -o pipefail``: a pipeline's status is its last failure's
        self.errexit = False  # ``set -e``: a failing command ends the shell (:func:`check_errexit`)
        self.exempt = 0  # ... but not while this is above 0 (a condition, a list but its last, ``!``)
        self.substituted: int | None = None  # the last ``$( )``'s status in the current command
        self.pipe_writer = False  # a pipeline's stage before the last: ``yes`` writes a bounded run
        self.endless = False  # ... and did (its reader decides when it ends)
        self.nounset = False  # ``set -u``: expanding an unset parameter is an error
        self.xtrace = False  # ``set -x``: each command traced on standard error (:func:`trace`)
        self.functions: dict[str, Node] = {}  # defined functions' bodies (2.9.5)
        self.frames: list[dict[str, dict[str, str]]] = []  # per running call: its locals' outer state
        self.environ: frozenset[str] = frozenset()  # the environment's names: exported (``shell_declare``)
        self.bash = False  # ``bash -c``: bash's trace, ``$-`` and arithmetic (:func:`run_script`)
        self.pids = Pids()  # the PID namespace's counter, shared with subshells (``shell_pids``)
        self.exec_pid: int | None = None  # the last command was external, forked as this PID
        self.trace_depth = 1  # bash's ``+`` count in a trace line: one more per command substitution
        self.fds: dict[int, Stream] = {}  # descriptors 3 and above (:mod:`kbatch.sim.shell_fds`)
        self.line = 1  # the script's line the running command is on (:meth:`error`'s prefix)
        self.line_base = 0  # ... the lines of the script it runs counted after this one (``$( )``)
        self.first_line = 1  # the line the running command starts on (a ``$( )`` in it counts from there)
        self.arith_error = False  # the last ``(( ))`` could not be evaluated (ends a ``for ((…))``)

    def subshell(self, capture: bool = False) -> Shell:
        sub = Shell(self.default, self.files, capture)
        sub.cwd, sub.stdin, sub.noglob, sub.pipefail = self.cwd, self.stdin, self.noglob, self.pipefail
        sub.errexit, sub.exempt = self.errexit, self.exempt
        sub.nounset, sub.xtrace = self.nounset, self.xtrace
        sub.functions, sub.frames = dict(self.functions), [dict(frame) for frame in self.frames]
        sub.bash, sub.pids, sub.environ = self.bash, self.pids, self.environ
        sub.trace_depth, sub.line, sub.line_base = self.trace_depth, self.line, self.line_base
        sub.first_line = self.first_line
        sub.fds = {fd: LogSink(sub.log) if isinstance(s, LogSink) else s for fd, s in self.fds.items()}
        self.pids.fork()
        return sub

    # --- time and the stop signal ---------------------------------------------------------------

    def spend(self, seconds: float, waiting: bool = False) -> None:
        """A foreground command runs ``seconds`` (``waiting``: the ``wait`` builtin). The stop
        signal arriving meanwhile (POSIX "Shell Command Language" 2.11, "Signals and Error
        Handling"): a trapped one runs its action once the foreground command has completed, but
        interrupts ``wait`` at once, which returns ``128 + n``; an ignored one (``trap '' TERM``)
        does nothing; an untrapped one does nothing to PID 1 and ends any other shell with
        ``128 + n`` (:mod:`kbatch.sim.signals`)."""
        start = self.duration
        self.duration = start + seconds
        stop = self.stop
        if stop is None or self.delivered or not start <= stop.at < self.duration:
            return
        self.delivered = True
        action = self.traps.get(stop.name) if stop.name != "KILL" else None
        if action is None:
            if stop.unhandled_ends():
                self.duration, self.status, self.exited = stop.at, killed_status(stop.name), True
                self.signalled = True
            return
        if action:
            self.pending = True
            if waiting:
                self.duration, self.status = stop.at, killed_status(stop.name)

    def stop_matters(self) -> bool:
        """Will the stop signal, not arrived yet, change what the run does?"""
        stop = self.stop
        if stop is None or self.delivered:
            return False
        return stop.unhandled_ends() or (bool(self.traps.get(stop.name)) and stop.name != "KILL")

    def absorb(self, sub: Shell, start: float) -> None:
        """A subshell's steps and log lines, its time starting at ``start`` of this run; its last
        command, when external, was ``exec``-ed in it (:meth:`kbatch.sim.shell_pids.Pids.exec_last`)."""
        self.pids.exec_last(sub.exec_pid)
        self.steps += sub.steps
        self.logs.extend(sub.logs)
        self.offsets.extend(start + offset for offset in sub.offsets)

    # --- output -------------------------------------------------------------------------------

    def out(self, text: str) -> None:
        """Standard output: the redirection's file, a substitution's value, or the log."""
        if self.sink is not None:
            self.sink.append(text)
        elif self.captured is not None:
            self.captured.append(text)
        else:
            self.log(text)

    def log(self, text: str) -> None:
        """Output reaching the container log, which holds standard output and error. Text without
        a final newline leaves the line open: the next output continues it (``cat`` of a file
        without one, ``echo -n``), as the runtime's log does."""
        if not text:
            return
        lines = text.split("\n")
        if self.open_line and self.logs:
            self.logs[-1] += lines.pop(0)
            if not lines:  # ``echo -n a; echo -n b``: the line is still open
                return
        self.open_line = lines[-1] != ""
        if not self.open_line:
            lines.pop()
        self.logs.extend(lines)
        self.offsets.extend([self.duration] * len(lines))

    def error(self, message: str) -> None:
        """A message on standard error: a line of the log, unless redirected (``2> f``, ``2>&1``).
        The shell's own (``sh: …``, ``bash: …``) name the line of the script the command is on,
        as dash (``sh: 3: …``) and ``bash -c`` (``bash: line 3: …``) do (:func:`line_prefixed`)."""
        message = line_prefixed(message, self.line, self.bash, bool(self.frames))
        if self.err_sink is not None:
            self.err_sink.append(message + "\n")
        else:
            self.log(message + "\n")

    # --- state for loop detection -------------------------------------------------------------

    def fingerprint(self, scope: MutableMapping[str, str]) -> tuple[object, ...]:
        version = self.files.view.version if self.files.view is not None else 0
        variables = dict(scope)
        variables.pop(BACKGROUND_KEY, None)  # PIDs do not count (:mod:`kbatch.sim.shell_pids`)
        return (variables, self.status, self.cwd, version, max(0.0, self.background_end - self.duration),
                id(self.stdin), self.stdin.pos,
                tuple((fd, id(s), s.pos) for fd, s in self.fds.items() if isinstance(s, Input)))

    def skip_to_stop(self, first_line: int, started: float) -> None:
        """The iteration that began at ``started`` repeats unchanged until the one the stop signal
        arrives in: its output is repeated for the whole iterations before that one."""
        assert self.stop is not None
        period = self.duration - started
        lines, offsets = self.logs[first_line:], self.offsets[first_line:]
        turns = int((self.stop.at - self.duration) // period) if period > 0 else 0
        for turn in range(1, turns + 1):
            if len(self.logs) + len(lines) > MAX_LOG_LINES:
                break
            self.logs.extend(lines)
            self.offsets.extend(o + turn * period for o in offsets)
        self.duration += max(turns, 0) * period

    def repeat_forever(self, first_line: int, started: float) -> None:
        """The iteration that began at ``started`` (its first log line at ``first_line``) repeats
        until the container is killed."""
        lines, offsets = self.logs[first_line:], self.offsets[first_line:]
        period = self.duration - started
        turn = 1
        while lines and len(self.logs) + len(lines) <= MAX_LOG_LINES:
            self.logs.extend(lines)
            self.offsets.extend(o + turn * period for o in offsets)
            turn += 1
        self.duration, self.exited = math.inf, True

    def result(self, warning: str = "") -> ContainerRun:
        """The run, its lines in the order they are printed (a background list's lines among the
        others by time; lines printed at the same time keep the script's order). A line after a
        command that never ends (``sleep infinity; echo b``) is never printed, so it is not kept."""
        offsets = self.offsets
        in_order = all(a <= b for a, b in pairwise(offsets))
        if in_order and (not offsets or offsets[-1] != math.inf):  # the usual case
            return ContainerRun(self.duration, self.status, tuple(self.logs), tuple(offsets), warning)
        indexes = range(len(offsets))
        by_time = indexes if in_order else sorted(indexes, key=offsets.__getitem__)
        order = [i for i in by_time if offsets[i] != math.inf]
        return ContainerRun(self.duration, self.status, tuple(self.logs[i] for i in order),
                            tuple(self.offsets[i] for i in order), warning)


def run_script(script: str, env: dict[str, str], default: float, files: FilesFactory | None,
               stop: StopSignal | None = None, args: Sequence[str] = ("sh",),
               bash: bool = False) -> ContainerRun:
    """The run of ``sh -c SCRIPT [NAME [ARG…]]`` (``args``: ``$0`` and the positional parameters);
    with ``stop``, the run the stop signal interrupts. ``bash``: run by ``bash -c`` (its trace,
    ``$-`` and arithmetic operators; the rest is the same). The shell sets ``PWD`` to its
    directory (XCU ``cd``, 2.5.3)."""
    nodes = parse_script(script, bash)
    if nodes is None:
        return ContainerRun(default, 0)
    shell = Shell(default, _Files(files), stop=stop)
    shell.bash, shell.environ = bash, frozenset(env)
    if bash:
        env[SHELL_KEY] = "bash"
    env["=0"] = args[0] if args else "sh"
    env["PWD"] = shell.cwd
    set_positional(env, args[1:])
    env[FLAGS_KEY] = option_letters(shell)
    try:
        run_nodes(shell, nodes, env)
        run_exit_trap(shell, env)
    except (_Unmodelled, RecursionError):
        return ContainerRun(default, 0)
    except TooManySteps:
        return ContainerRun(default, 0, warning=f"the script ran more than {MAX_STEPS:,} commands; kbatch "
                                                f"ran it as an unknown command ({default:g}s, exit 0)")
    except _NotFollowed as why:
        return ContainerRun(default, 0, warning=f"{why}; kbatch ran the script as an unknown command "
                                                f"({default:g}s, exit 0)")
    return shell.result()


def run_exit_trap(shell: Shell, scope: MutableMapping[str, str]) -> None:
    """The ``EXIT`` trap's action, when the shell exits (POSIX ``trap``: not when a signal it does
    not trap ends it); the exit status stays, unless the action runs ``exit N``."""
    action = shell.traps.pop("EXIT", "")
    if not action or shell.signalled:
        return
    nodes = parse_script(action, shell.bash)
    if nodes is None:
        return
    status, shell.exited, shell.trap_status = shell.status, False, shell.status
    run_nodes(shell, nodes, scope)
    if not shell.exited:
        shell.status = status
    shell.exited, shell.trap_status = True, None


def _run_trap(shell: Shell, scope: MutableMapping[str, str]) -> None:
    """The stop signal's trap action, run between commands; ``$?`` is restored after it (POSIX
    ``trap``), and ``exit`` without an operand in it exits with the status before it."""
    assert shell.stop is not None
    shell.pending = False
    nodes = parse_script(shell.traps.get(shell.stop.name, ""), shell.bash)
    if nodes is None:
        return
    status = shell.trap_status = shell.status
    run_nodes(shell, nodes, scope)
    shell.trap_status = None
    if not shell.exited:
        shell.status = status


def run_nodes(shell: Shell, nodes: Sequence[Node], scope: MutableMapping[str, str]) -> None:
    for node in nodes:
        if shell.exited:
            return
        if isinstance(node, Simple):
            _run_list(shell, node, scope)
        elif isinstance(node, If):
            _run_if(shell, node, scope)
        elif isinstance(node, For):
            _run_for(shell, node, scope)
        elif isinstance(node, While):
            _run_while(shell, node, scope)
        elif isinstance(node, Case):
            _run_case(shell, node, scope)
        elif isinstance(node, Background):
            _run_background(shell, node.node, scope)
        elif isinstance(node, Redirected):
            run_compound_redirected(shell, node, scope)
        elif isinstance(node, Group):
            _run_group(shell, node, scope)
        elif isinstance(node, Function):
            shell.functions[node.name] = node.body
            shell.status = 0
        else:
            _run_piped(shell, node, scope)


def _run_group(shell: Shell, node: Group, scope: MutableMapping[str, str]) -> None:
    """``{ LIST; }`` in the shell itself; ``( LIST )`` in a subshell (2.9.4.1, 2.12): it writes
    where the shell writes and reads what it reads, its time is the shell's, but its variables,
    directory, options, functions and traps stay in it, and its ``exit`` ends only it (its ``EXIT``
    trap runs then)."""
    if not node.subshell:
        run_nodes(shell, node.body, scope)
        return
    sub = shell.subshell()
    sub.sink, sub.err_sink = rebound(shell.sink, sub.log), rebound(shell.err_sink, sub.log)
    sub.captured = shell.captured
    sub.open_line = shell.open_line
    inner = dict(scope)
    run_nodes(sub, node.body, inner)
    run_exit_trap(sub, inner)
    if sub.logs:
        shell.open_line = sub.open_line
    shell.absorb(sub, shell.duration)
    shell.spend(sub.duration)
    shell.status = sub.status
    check_errexit(shell)


def _run_piped(shell: Shell, node: Piped, scope: MutableMapping[str, str]) -> None:
    """A pipeline with a compound command in it (2.9.2), its status negated after ``!``, in its
    and-or list (2.9.3): run when the list before it lets it."""
    if node.lead is not None:
        with exempt(shell):
            run_nodes(shell, (node.lead,), scope)
        if shell.exited or (node.separator == "&&" and shell.status != 0) or (
                node.separator == "||" and shell.status == 0):
            run_chain(shell, node.rest, scope)
            return
    shell.steps += 1
    stage = node.stages[0]
    with exempt(shell, node.negate or bool(node.rest)):
        if len(node.stages) > 1:
            run_pipeline(shell, node.stages, scope)
        elif not isinstance(stage, str):
            run_nodes(shell, (stage,), scope)
    if node.negate and not shell.exited:
        shell.status = int(shell.status == 0)
    if not node.negate and not node.rest:
        check_errexit(shell)
    if node.rest and not shell.exited:
        run_chain(shell, node.rest, scope)


def line_prefixed(message: str, line: int, bash: bool, in_function: bool = False) -> str:
    """The shell's own message (``sh: X`` or ``bash: X``) as a ``-c`` script's: dash's ``sh: LINE:
    X`` (its ``error.c`` names the shell and the line it reads), ``bash -c``'s ``bash: line LINE:
    X`` (its ``error.c`` adds ``line N`` when not interactive; bash(1) "SHELL BUILTIN COMMANDS").
    Inside a function bash names the function's source instead of the shell, and a function a
    ``-c`` string defined has the source ``environment`` (its ``${BASH_SOURCE[0]}``): ``environment:
    line LINE: X``, the line still the script's. Other messages (a utility's own, ``tee: …``) are
    left as they are."""
    name, sep, rest = message.partition(": ")
    if not sep or name not in ("sh", "bash"):
        return message
    if not bash:
        return f"sh: {line}: {rest}"
    return f"{'environment' if in_function else 'bash'}: line {line}: {rest}"


def _run_list(shell: Shell, node: Simple, scope: MutableMapping[str, str]) -> None:
    if node.lines[0]:  # dash names the line a command starts on, bash the one it ends on
        shell.line = shell.line_base + (node.lines[1] if shell.bash else node.lines[0])
        shell.first_line = shell.line_base + node.lines[0]
    if shell.bash:  # bash's ``$LINENO``: the line the running command starts on (dash 0.5.12 has none)
        scope["LINENO"] = str(shell.first_line)
    if node.background:
        _run_background(shell, Simple(node.chain), scope)
    else:
        run_chain(shell, node.chain, scope)


def _run_background(shell: Shell, node: Node, scope: MutableMapping[str, str]) -> None:
    """A list ended by ``&``: a subshell whose time runs alongside, whose exit ends only itself."""
    job = shell.subshell()
    scope[BACKGROUND_KEY] = str(shell.pids.last)  # ``$!`` (2.5.2)
    job.stdin = NO_INPUT  # an asynchronous list's standard input is /dev/null (2.9.3.1)
    run_nodes(job, (node,), dict(scope))
    shell.absorb(job, shell.duration)
    shell.background_end = max(shell.background_end, shell.duration + job.duration)
    shell.status = 0


def _run_if(shell: Shell, node: If, scope: MutableMapping[str, str]) -> None:
    """The first branch whose condition exits 0 runs; none taken and no ``else``: status 0."""
    for condition, body in node.branches:
        with exempt(shell):
            run_nodes(shell, condition, scope)
        if shell.exited:
            return
        if shell.status == 0:
            run_nodes(shell, body, scope)
            return
    shell.status = 0
    if node.orelse is not None:
        run_nodes(shell, node.orelse, scope)


def _body(shell: Shell, body: Sequence[Node], scope: MutableMapping[str, str]) -> bool:
    """One iteration of a loop body; False when ``break`` ends the loop."""
    try:
        run_nodes(shell, body, scope)
    except _Jump as jump:
        if jump.levels > 1:
            jump.levels -= 1
            raise
        shell.status = 0
        return jump.kind == "continue"
    return True


def _run_for(shell: Shell, node: For, scope: MutableMapping[str, str]) -> None:
    if node.stdin:
        _with_input(shell, node, scope)
        return
    words = brace_words(node.items) if shell.bash else node.items
    items = for_items(words, scope, lambda found: pathnames(shell, found))
    if items is None:
        raise _Unmodelled(node.items)
    if shell.xtrace:  # the ``$(seq …)`` the words hold ran in a substitution
        shell.trace_depth += 1
        for argv in seq_commands(node.items):
            trace(shell, argv, scope)
        shell.trace_depth -= 1
    shell.status, shell.loops = 0, shell.loops + 1
    head = f"for {node.name} in {' '.join(written_words(node.items))}" if shell.bash and shell.xtrace else ""
    try:
        for item in items:
            if head:
                trace_line(shell, head, scope)
            scope[node.name] = item
            if not _body(shell, node.body, scope) or shell.exited:
                return
    finally:
        shell.loops -= 1


def _with_input(shell: Shell, node: For | While, scope: MutableMapping[str, str]) -> None:
    """A loop whose input is redirected: its commands read that input, one stream for the loop."""
    stdin = loop_input(shell, node.stdin, scope)
    if stdin is None:
        return
    outer, shell.stdin = shell.stdin, stdin
    try:
        run_nodes(shell, (replace(node, stdin=""),), scope)
    finally:
        shell.stdin = outer


def _run_while(shell: Shell, node: While, scope: MutableMapping[str, str]) -> None:
    if node.stdin:
        _with_input(shell, node, scope)
        return
    if node.init and not _arith_run(shell, node.init, scope):
        return
    status, shell.loops = 0, shell.loops + 1
    try:
        while True:
            first_line, started, before = len(shell.logs), shell.duration, shell.fingerprint(scope)
            with exempt(shell):
                going = _body(shell, node.condition, scope)
            if not going:  # ``while break; do``: ends the loop
                break
            if node.arith and shell.arith_error:
                status = 1
                break
            if shell.exited or (shell.status == 0) == node.until:
                break
            going = _body(shell, node.body, scope)
            status = shell.status
            if not going or shell.exited:
                break
            if not _arith_run(shell, node.step, scope):
                status = 1
                break
            if shell.fingerprint(scope) == before:
                if shell.stop_matters() and shell.duration > started:
                    shell.skip_to_stop(first_line, started)
                    continue
                shell.repeat_forever(first_line, started)
                break
    finally:
        shell.loops -= 1
    if not shell.exited:
        shell.status = status


def _arith_run(shell: Shell, nodes: tuple[Node, ...], scope: MutableMapping[str, str]) -> bool:
    """A ``for ((…))`` loop's INIT or STEP; False when the loop ends there: the shell exited, or
    the expression failed, which ends the loop with status 1 (bash ``execute_arith_for_command``)."""
    shell.arith_error = False
    run_nodes(shell, nodes, scope)
    if shell.arith_error and not shell.exited:
        shell.status = 1
    return not (shell.exited or shell.arith_error)


def _run_case(shell: Shell, node: Case, scope: MutableMapping[str, str]) -> None:
    word = _expand_word(shell, node.word, scope)
    if word is None:
        return
    if shell.bash:
        trace_line(shell, f"case {node.word} in", scope)
    shell.status = 0
    for patterns, body in node.arms:
        for pattern in patterns:
            glob = _expand_word(shell, pattern, scope, as_pattern=True)
            if glob is None:
                return
            if fnmatch.fnmatchcase(word, glob):
                run_nodes(shell, body, scope)
                return


def _expand_word(shell: Shell, text: str, scope: MutableMapping[str, str],
                 as_pattern: bool = False) -> str | None:
    """One word expanded without field splitting (a ``case`` word or pattern); quoted parts of a
    pattern match literally. None when the expansion failed (the shell has exited)."""
    expanded = expand_text(shell, text, scope, fields=True)
    return None if expanded is None else dequote(expanded, as_pattern)


def expand_text(shell: Shell, text: str, scope: MutableMapping[str, str], quotes: bool = True,
                fields: bool = False, assigning: bool | None = None) -> str | None:
    """``text`` expanded (``fields``: to be read again as words; ``assigning``: as
    :func:`kbatch.sim.shell_expand.expand`'s), or None when the expansion failed and the shell has
    exited."""
    try:
        return expand(text, scope, shell.status, lambda inner: _substitute(shell, inner, scope),
                      quotes=quotes, fields=fields, nounset=shell.nounset, assigning=assigning)
    except ArithError as error:  # a non-interactive shell exits on an expansion error: dash with 2,
        if shell.bash and error.bash_text:  # bash -c with 1, in expr.c ``evalerror``'s words
            shell.error(f"bash: {error.bash_text}")
            shell.status, shell.exited = 1, True
            return None
        shell.error(f"sh: arithmetic expression: {error}")
    except ParamError as error:  # ``${P?w}`` (2.6.2): the same, in dash's words
        shell.error(f"sh: {error}")
        shell.status, shell.exited = error.status, True
        return None
    finally:
        flush_warnings(shell, scope)
    shell.status, shell.exited = 2, True
    return None


def flush_warnings(shell: Shell, scope: MutableMapping[str, str]) -> None:
    """The warnings an expansion left (a circular name reference's), printed as bash does."""
    for line in scope.pop(WARNINGS, "").splitlines():
        shell.error(f"bash: {line}")


def _substitute(shell: Shell, script: str, scope: MutableMapping[str, str]) -> str | None:
    """``$( … )``: the subshell's standard output, when every command in it is modelled."""
    nodes = parse_script(script, shell.bash)
    if nodes is None or first_unmodelled(nodes, frozenset(shell.functions)) is not None:
        return None
    sub = shell.subshell(capture=True)
    sub.trace_depth, sub.line_base = sub.trace_depth + 1, shell.first_line - 1
    run_nodes(sub, nodes, dict(scope))
    shell.absorb(sub, shell.duration)
    shell.spend(sub.duration)
    shell.substituted = sub.status
    return "".join(sub.captured or ())


def run_eval(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """XCU ``eval``: the operands, joined by spaces, read again as commands and run in the shell
    itself (their assignments, ``cd`` and definitions stay), with the command's standard input;
    the status is the last command's, 0 when there is none (``bash -c`` traces them after one more
    ``PS4`` character, ``++``, as it does a substitution's). Text with a command the runner does
    not model makes the script "anything else", as a ``for`` over unmodelled words does."""
    text = " ".join(args)
    nodes = parse_script(text, shell.bash)
    if nodes is None or first_unmodelled(nodes, frozenset(shell.functions)) is not None:
        raise _Unmodelled(text)
    outer, shell.stdin, shell.status = shell.stdin, stdin, 0
    shell.trace_depth += shell.bash  # bash's ``set -x`` marks the eval'd commands a level deeper
    try:
        run_nodes(shell, nodes, scope)
    finally:
        shell.stdin = outer
        shell.trace_depth -= shell.bash


def run_chain(shell: Shell, chain: Sequence[tuple[str, str]], scope: MutableMapping[str, str]) -> None:
    """An and-or list: ``a && b || c``, each command after the first run by the last status; a
    pipeline after ``!`` has the logical NOT of its status (2.9.2)."""
    last = len(chain) - 1
    for index, (separator, command) in enumerate(chain):
        if shell.exited:
            return
        if (separator == "&&" and shell.status != 0) or (separator == "||" and shell.status == 0):
            continue
        shell.steps += 1
        if shell.steps > MAX_STEPS:
            raise TooManySteps(command)
        negate, command = negation(command)
        with exempt(shell, negate or index < last):
            ran = _run_command(shell, command, scope)
        if not ran:
            return
        if negate and not shell.exited:
            shell.status = int(shell.status == 0)
        if index == last and not negate:
            check_errexit(shell)
        if shell.pending and not shell.exited:
            _run_trap(shell, scope)


@contextmanager
def exempt(shell: Shell, when: bool = True) -> Iterator[None]:
    """While the block runs, ``set -e`` does not act (XCU ``set -e``: a condition of ``if``,
    ``while``, ``until``, a command of an ``&&`` / ``||`` list but the last, a pipeline after ``!``;
    also every command inside them)."""
    shell.exempt += when
    try:
        yield
    finally:
        shell.exempt -= when


def check_errexit(shell: Shell) -> None:
    """``set -e``: a command that just failed outside the exempt contexts ends the shell with its
    status (XCU ``set``; the exit trap still runs)."""
    if shell.errexit and not shell.exempt and shell.status != 0 and not shell.exited:
        shell.exited = True


def _run_command(shell: Shell, command: str, scope: MutableMapping[str, str]) -> bool:
    """One pipeline or simple command; False when its expansion failed (the shell has exited)."""
    if "|" in command and len(stages := split_pipeline(command)) > 1:
        run_pipeline(shell, stages, scope)
        return True
    shell.substituted = None
    if shell.bash and (tree := parse_cond(command)) is not None:
        _run_cond(shell, tree, scope)
        return not shell.exited
    if (compound := compound_assignment(command)) is not None:
        return assign_array(shell, compound, scope)
    if (mixed := compound_words(command)) is not None:  # ``a=(x) b=2``, ``declare -a a=(x) b``
        left = run_compound_words(shell, mixed, scope)
        if left is None:
            return not shell.exited
        command = left
    if shell.bash and "{" in command:  # bash's brace expansion comes first
        command = brace_words(command)
    if (expression := arith_command(command)) is not None:
        return run_arith_command(shell, expression, scope)
    text = expand_text(shell, command, scope, fields=True)
    if text is None:
        return False
    argv = command_words(text)
    if argv and all(not w.redirect and (ASSIGNMENT.match(w.text) or ELEMENT.match(w.text)) for w in argv):
        trace(shell, [w.text for w in argv], scope)
        if not assign_words(shell, [w.text for w in argv], scope):
            return False
        # 2.9.1: with no command name, the status is the last command substitution's, else 0
        shell.status = shell.substituted or 0
    elif argv:
        cond = argv[0].text == "[["
        if cond:
            argv = _cond_words(argv, written_words(text))
            trace_cond(shell, written_words(text), scope)
        run_redirected(shell, argv, scope, traced=cond and shell.xtrace)
    return True


def _cond_words(argv: list[Word], raw: list[str]) -> list[Word]:
    """bash's ``[[ … ]]`` words, the pattern right of ``==``, ``=`` or ``!=`` with its quoted
    characters literal (bash(1) "[[ expression ]]": ``[[ $x == "?" ]]`` matches a ``?`` alone)."""
    if len(raw) != len(argv):
        return argv
    return [word._replace(text=dequote(raw[k], as_pattern=True))
            if 1 < k < len(argv) - 1 and argv[k - 1].text in ("==", "=", "!=") else word
            for k, word in enumerate(argv)]


def pathnames(shell: Shell, argv: Sequence[Word]) -> list[str]:
    """The command's arguments after pathname expansion (2.6.6, :mod:`kbatch.sim.shell_glob`): a
    pattern word becomes the sorted paths it matches, or stays when none does. Not for the prefix's
    assignment words (2.9.1) nor a declaration utility's (``export x=*``), nor inside bash's ``[[``
    (its words are not expanded so), nor after ``set -f``."""
    if shell.noglob or not any(w.glob for w in argv) or argv[0].text == "[[":
        return [w.text for w in argv]
    out: list[str] = []
    prefix, declaring = True, False
    for word in argv:
        assignment = ASSIGNMENT.match(word.text) is not None
        if prefix and not assignment:
            prefix, declaring = False, word.text in DECLARATIONS
        kept = (prefix or declaring) and assignment
        found = None if kept or not word.glob else expand_pathname(word.glob, shell.cwd, shell.files.get())
        out.extend(found if found is not None else (word.text,))
    return out


def _exec_command(shell: Shell, argv: list[str], scope: MutableMapping[str, str],
                  stdin: Input | None) -> None:
    """``exec CMD [ARG…]`` (XCU ``exec``; bash(1) "SHELL BUILTIN COMMANDS"): CMD replaces the
    shell, so nothing after it runs, not even an ``EXIT`` trap (the shell is gone), and the
    shell's status is CMD's. CMD is looked up as a program, never a function (dash and bash:
    ``exec: f: not found``; such a script is not modelled: :func:`kbatch.sim.shell_vocab.modelled`).
    In a subshell or a pipeline stage it ends only that one."""
    functions, shell.functions = shell.functions, {}
    try:
        run_simple(shell, argv, scope, stdin)
    finally:
        shell.functions = functions
    shell.traps.pop("EXIT", None)
    shell.exited = True


def _command_builtin(shell: Shell, name: str, rest: list[str], scope: MutableMapping[str, str],
                     stdin: Input | None) -> None:
    """``command [-p] [--] NAME [ARG…]`` / ``builtin [--] NAME [ARG…]`` (bash(1) "SHELL BUILTIN
    COMMANDS"; ``builtins/command.def``, ``builtin.def``): NAME run as a builtin or a program, no
    function of that name; ``builtin`` of no builtin is an error (``not a shell builtin``, 1).
    Nothing to run is status 0. Its words were expanded as any command's: bash 5.2 outside POSIX
    mode makes no declaration utility of ``command export`` (``X=$v`` split)."""
    rest = command_target(name, rest)
    if not rest:
        shell.status = 0
    elif name == "builtin" and (rest[0] in EXTERNAL or rest[0] not in _SHELL_BUILTINS):
        shell.error(f"bash: builtin: {rest[0]}: not a shell builtin")
        shell.status = 1
    else:
        run_simple(shell, rest, scope, stdin, functions=False)


def run_simple(shell: Shell, argv: list[str], scope: MutableMapping[str, str],
               stdin: Input | None = None, functions: bool = True) -> None:
    """One simple command's expanded words (``functions``: a function of the name may run, not
    so after ``command`` or ``builtin``)."""
    if "=" in argv[0] and all(ASSIGNMENT.match(word) or ELEMENT.match(word) for word in argv):  # ``x=1 2>&-``
        if assign_words(shell, argv, scope):
            shell.status = shell.substituted or 0
        return
    prefix = 0
    while prefix < len(argv) - 1 and ASSIGNMENT.match(argv[prefix]):
        prefix += 1
    if prefix:  # ``IFS=: read a b``: the assignments hold for the command only (2.9.1)
        pairs = [(name.rstrip("+"), scope.get(name.rstrip("+"), "") + value if name.endswith("+") else value)
                 for name, _, value in (w.partition("=") for w in argv[:prefix])]
        saved = {name: scope.get(name) for name, _ in pairs}
        scope.update(pairs)
        try:
            run_simple(shell, argv[prefix:], scope, stdin)
        finally:
            for name, value in saved.items():
                if value is None:
                    scope.pop(name, None)
                else:
                    scope[name] = value
        return
    name, rest = argv[0], argv[1:]
    if name == "exec" and rest:
        _exec_command(shell, rest, scope, stdin)
        return
    if name in ("command", "builtin"):
        _command_builtin(shell, name, rest, scope, stdin)
        return
    function = shell.functions.get(name) if functions else None
    name = program(name)
    command = COMMANDS.get(name)
    external = function is None and (name in EXTERNAL or (command is None and name not in _BUILTIN_NAMES))
    shell.exec_pid = shell.pids.fork() if external else None
    if function is not None:
        call_function(shell, name, function, rest, scope, stdin if stdin is not None else shell.stdin)
    elif command is not None:
        command(shell, rest, scope, stdin if stdin is not None else shell.stdin)
    elif name == "sleep" and rest and (seconds := _sum_sleeps(rest)) is not None:
        shell.status = 0
        shell.spend(seconds)
    elif name in ("break", "continue"):
        if shell.loops:
            levels = int(rest[0]) if rest and rest[0].isdigit() and int(rest[0]) > 0 else 1
            raise _Jump(name, min(levels, shell.loops))
        shell.status = 0
    elif name in BUILTINS:
        if name == "set":
            _set_options(shell, rest, scope)
        shell.status = 0
    elif name in TESTS:
        _test(shell, argv, scope)
    elif name == "date" and all(word in DATE_OPTIONS for word in rest):
        if shell.sink is not None or shell.captured is not None:  # substituted, piped, redirected
            raise _NotFollowed("date's output goes elsewhere than the log, where kbatch fills the time in")
        shell.out(DATE_MARK + "\n")  # the time is filled in with the line's (kbatch/sim/clock_text.py)
        shell.status = 0
    else:
        shell.status = 0
        shell.spend(shell.default)


def _test(shell: Shell, argv: list[str], scope: MutableMapping[str, str]) -> None:
    """``test``, ``[``, ``[[`` (:func:`kbatch.sim.shell_eval.condition_status`); bash's ``[[`` with
    arithmetic operands, whose error is ``[[: EXPR: …`` and status 1 (a subscript's ends the script)."""
    arith = (lambda text: evaluate(text, scope, bash=True)) if shell.bash and argv[0] == "[[" else None
    files = lambda op, path: _file_test(shell, op, path)  # noqa: E731
    try:
        if argv[0] == "[[":
            shell.status = condition_status(argv, files, arith)
        elif argv[0] == "[" and argv[-1:] != ["]"]:
            shell.error("bash: [: missing `]'" if shell.bash else "sh: [: missing ]")
            shell.status = 2
        else:
            bracket = argv[0] == "["
            shell.status = test_status(argv[1:-1] if bracket else argv[1:], files, "]" if bracket else "")
    except TestError as error:  # bash test.c ``test_syntax_error``; dash's words are not modelled
        if error.words and shell.bash:
            shell.error(f"bash: {argv[0]}: {error.words}")
        shell.status = 2
    except ArithError as error:
        shell.error(f"bash: {'' if error.subscript else '[[: '}{error.bash_text or error}")
        shell.status, shell.exited = 1, error.subscript
    except IntegerError as error:  # bash test.c ``integer_expected_error``; dash's ``getn``
        shell.error(f"bash: {argv[0]}: {error.text}: integer expression expected" if shell.bash
                    else f"sh: {argv[0]}: Illegal number: {error.text}")
        shell.status = 2


class _CondStop(Exception):
    """An operand of ``[[`` failed to expand: the shell has exited."""


def _run_cond(shell: Shell, tree: CondTree, scope: MutableMapping[str, str]) -> None:
    """bash's ``[[ … ]]`` (:mod:`kbatch.sim.shell_cond`): its primaries evaluated in turn, each
    expanded and traced only when reached."""
    try:
        shell.status = evaluate_cond(tree, lambda leaf: _cond_leaf(shell, leaf, scope))
    except _CondStop:
        return


def _cond_leaf(shell: Shell, leaf: CondLeaf, scope: MutableMapping[str, str]) -> int:
    """One primary of ``[[``: its operands expanded (not split, not globbed: bash(1) "[[
    expression ]]"), traced as bash's ``xtrace_print_cond_term`` does, then tested
    (:func:`kbatch.sim.shell_eval.cond_primary`); a pattern's quoted characters are literal."""
    words = list(leaf.words) if len(leaf.words) > 1 else ["-n", leaf.words[0]]
    operator = 0 if len(words) == 2 else 1
    raw = [word if k == operator else _cond_word(shell, word, scope) for k, word in enumerate(words)]
    trace_cond(shell, ["[[", *(["!"] if leaf.invert else []), *raw, "]]"], scope)
    values = [word if k == operator else dequote(word) for k, word in enumerate(raw)]
    if len(raw) == 3 and raw[1] in ("=", "==", "!="):
        values[2] = dequote(raw[2], as_pattern=True)
    elif len(raw) == 3 and raw[1] == "=~":
        values[2] = _regex(raw[2])
    try:
        return cond_primary(values, lambda op, path: _file_test(shell, op, path),
                            lambda text: evaluate(text, scope, bash=True))
    except ArithError as error:  # the primary fails and the expression goes on (a subscript's ends the shell)
        shell.error(f"bash: {'' if error.subscript else '[[: '}{error.bash_text or error}")
        if error.subscript:
            shell.status, shell.exited = 1, True
            raise _CondStop from error
        return 1


def _cond_word(shell: Shell, word: str, scope: MutableMapping[str, str]) -> str:
    """An operand of ``[[`` expanded as one word, its quotes kept (as an assignment's value)."""
    text = expand_text(shell, word, scope, fields=True, assigning=True)
    if text is None:
        raise _CondStop
    return text


def _regex(raw: str) -> str:
    """The right of ``=~`` (expanded, quotes kept) as a Python regular expression: its quoted or
    escaped characters literal (bash(1): "Any part of the pattern may be quoted to force the quoted
    portion to be matched as a string")."""
    marked = dequote(raw, escape=True)
    out: list[str] = []
    pos = 0
    while pos < len(marked):
        if marked[pos] == "\\" and pos + 1 < len(marked):
            out.append(re.escape(marked[pos + 1]))
            pos += 2
            continue
        out.append(marked[pos])
        pos += 1
    return "".join(out)


def _set_options(shell: Shell, args: list[str], scope: MutableMapping[str, str]) -> None:
    """``set -f`` / ``set +f`` / ``set -o noglob`` (POSIX ``set``): pathname expansion off or on;
    ``set -o pipefail`` / ``+o pipefail`` (POSIX.1-2024, bash); ``set -e`` / ``set -o errexit``
    (and ``+``): :func:`check_errexit`; the other options are taken and do nothing here. Flags
    combine (``set -euo pipefail``: each ``o`` in a group takes the next argument as its name). The
    operands after them, or after ``--``, become the positional parameters (``set -- a b``)."""
    pos = 0
    while pos < len(args):
        arg = args[pos]
        pos += 1
        if arg == "--" or arg[:1] not in "-+" or len(arg) < 2:
            set_positional(scope, args[pos - (arg != "--"):])
            return
        on = arg[0] == "-"
        for flag in arg[1:]:
            name = args[pos] if flag == "o" and pos < len(args) else "" if flag == "o" else flag
            pos += flag == "o"
            _set_option(shell, name, on)
        scope[FLAGS_KEY] = option_letters(shell)


_DASH_LETTERS = (("u", "nounset"), ("x", "xtrace"), ("f", "noglob"), ("e", "errexit"))
_BASH_LETTERS = (("e", "errexit"), ("f", "noglob"), ("h", ""), ("u", "nounset"), ("x", "xtrace"), ("B", ""),
                 ("c", ""))


def option_letters(shell: Shell) -> str:
    """``$-`` (2.5.2): the letters of the options set, in the order each shell lists them: dash
    from its option table's end (``set -eu``: ``ue``); bash from ``a`` to ``x`` then ``B``…, with
    ``h`` (hashall) and ``B`` (brace expansion) on by default and ``c`` for a ``-c`` script
    (``bash -ec``: ``ehBc``)."""
    letters = _BASH_LETTERS if shell.bash else _DASH_LETTERS
    return "".join(letter for letter, name in letters if not name or getattr(shell, name))


_BUILTIN_NAMES = frozenset({"break", "continue"}) | BUILTINS | TESTS
_SHELL_BUILTINS = (_BUILTIN_NAMES - {"[["}) | {
    "command", "builtin", "exec", "exit", "true", "false", ":", "echo", "wait", "cd", "let", "trap", "printf",
    "read", "shift", "local", "return", "pwd", "export", "unset", "readonly", "declare", "typeset", "eval"}
"""What ``builtin`` runs: bash's builtins among the commands modelled (``[[`` is a keyword)."""
_SET_FLAGS = {"f": "noglob", "e": "errexit", "u": "nounset", "x": "xtrace"}
_SET_NAMES = frozenset({"noglob", "pipefail", "errexit", "nounset", "xtrace"})


def _set_option(shell: Shell, name: str, on: bool) -> None:
    """One option of ``set``, by its letter or its ``-o`` name: the attribute of that name."""
    name = _SET_FLAGS.get(name, name)
    if name in _SET_NAMES:
        setattr(shell, name, on)


def _file_test(shell: Shell, op: str, path: str) -> bool:
    """``test``'s file primaries over the container's files (POSIX ``test``)."""
    files = shell.files.get()
    where = resolve(shell.cwd, path)
    content = files.read(where)
    if op in ("-e", "-a", "-r"):
        return content is not None or files.is_dir(where)
    if op == "-f":
        return content is not None
    if op == "-d":
        return files.is_dir(where)
    if op == "-s":
        return bool(content) or files.is_dir(where)
    if op == "-x":
        return files.is_dir(where)
    if op == "-w":
        return files.exists(where) and files.writable(where)
    return False


def _sum_sleeps(words_: list[str]) -> float | None:
    """GNU sleep adds up its operands (``sleep 1m 30s``)."""
    parts = [parse_sleep(w) for w in words_]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


from kbatch.sim.shell_commands import COMMANDS  # noqa: E402  (the commands take a Shell)
from kbatch.sim.shell_compound import assign_array, compound_words, run_compound_words  # noqa: E402  (as COMMANDS)
from kbatch.sim.shell_declare import assign_words  # noqa: E402  (as COMMANDS)
from kbatch.sim.shell_functions import call_function  # noqa: E402  (as COMMANDS)
from kbatch.sim.shell_let import arith_command, run_arith_command  # noqa: E402  (as COMMANDS)
from kbatch.sim.shell_redirect import (  # noqa: E402  (as COMMANDS)
    loop_input,
    run_compound_redirected,
    run_pipeline,
    run_redirected,
)
