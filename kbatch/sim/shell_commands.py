"""The simple commands the simulated shell runs itself, by name: builtins and the file utilities.

Each takes the :class:`~kbatch.sim.shell_run.Shell`, its arguments (expanded, redirections
removed), the variables and the file its standard input comes from. The shell's own messages are
dash's and busybox ash's (``can't create F: …``); ``cat`` and ``ls`` word theirs as GNU coreutils
does (``cat: F: No such file or directory``; busybox says ``can't open 'F'``): kbatch does not know
the image, and the status is the same either way:

* ``echo`` (POSIX; ``-n``: no newline), ``exit [N]`` (status mod 256; a non-number is 2, dash's
  "Illegal number"), ``true``/``:``/``false``, ``wait`` (all background lists), ``cd DIR``
  (the directory relative paths resolve from), ``let`` (bash, busybox ash; dash has none);
* ``cat [FILE…]`` (no operand or ``-``: standard input, a ``< f`` redirection), ``ls [-1a] [PATH…]``
  (names one per line, as when not writing to a terminal), ``touch``, ``mkdir [-p]``, ``rm [-f]
  [-r]``: over :mod:`kbatch.sim.files`. A missing file is status 1 and a message on standard error,
  which the container log holds (``ls``: status 2, as GNU ls for a missing operand).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.env_listing import ENV_COMMANDS
from kbatch.sim.files import resolve
from kbatch.sim.shell_ansi_c import ansicstr
from kbatch.sim.shell_declare import DECLARE_COMMANDS
from kbatch.sim.shell_functions import FUNCTION_COMMANDS
from kbatch.sim.shell_input import Input
from kbatch.sim.shell_let import run_let
from kbatch.sim.shell_printf import b_escapes, printf
from kbatch.sim.shell_read import ReadError, read_input
from kbatch.sim.shell_run import MAX_LOG_LINES, Shell, run_eval
from kbatch.sim.shell_text import FILTERS, run_filter
from kbatch.sim.signals import signal_name

__all__ = ["COMMANDS"]

Command = Callable[[Shell, list[str], MutableMapping[str, str], Input], None]


def _exit(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    if args:
        try:
            shell.status = int(args[0]) & 0xFF
        except ValueError:
            shell.error(f"sh: exit: Illegal number: {args[0]}")
            shell.status = 2
    elif shell.trap_status is not None:  # in a trap action: the status before it (POSIX ``exit``)
        shell.status = shell.trap_status
    shell.exited = True


def _status(code: int) -> Command:
    def run(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
        shell.status = code
    return run


def _echo(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """dash's ``echo [-n] ARG…`` converts backslash escapes always (``\\c`` ends the output, newline
    included); bash's takes any leading ``-n``/``-e``/``-E`` words (letters combined, the last of
    ``e``/``E`` deciding) and converts escapes only under ``-e``, as its ``ansicstr`` in echo mode
    (:func:`.shell_ansi_c.ansicstr`)."""
    newline, escapes = True, not shell.bash
    words = args
    if shell.bash:
        while words and _ECHO_OPTIONS.fullmatch(words[0]):
            for letter in words[0][1:]:
                newline = newline and letter != "n"
                escapes = letter == "e" if letter in "eE" else escapes
            words = words[1:]
    elif words and words[0] == "-n":
        newline, words = False, words[1:]
    text = " ".join(words)
    if escapes:
        text, cut = ansicstr(text, echo=True) if shell.bash else b_escapes(text)
        newline = newline and not cut
    shell.out(text + ("\n" if newline else ""))
    shell.status = 0


_ECHO_OPTIONS = re.compile(r"-[neE]+")


def _wait(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    shell.status = 0
    shell.spend(max(0.0, shell.background_end - shell.duration), waiting=True)


def _trap(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """``trap ACTION CONDITION…`` sets (``''``: ignores, ``-``: resets) what the shell does on each
    signal or ``EXIT``; a first operand that is a number or a lone condition resets (POSIX
    ``trap``). An unknown condition is dash's "bad trap": a special builtin's error, which exits a
    non-interactive shell with 2. ``trap`` alone (which prints the traps) only answers 0."""
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        shell.status = 0
        return
    action: str | None = args[0]
    conditions = args[1:]
    if not conditions or args[0].isdigit():
        action, conditions = None, args
    elif action == "-":
        action = None
    for condition in conditions:
        name = signal_name(condition)
        if name is None:
            shell.error(f"sh: trap: {condition}: bad trap")
            shell.status, shell.exited = 2, True
            return
        if action is None:
            shell.traps.pop(name, None)
        else:
            shell.traps[name] = action
    shell.status = 0


def _cd(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """XCU ``cd [-L|-P] [DIR|-]``: ``PWD`` becomes the new directory and ``OLDPWD`` the one left;
    ``cd -`` goes to ``OLDPWD`` and prints it (dash, with none set, stays and prints where it is;
    bash: ``OLDPWD not set``, status 1); no operand: ``HOME``."""
    if shell.bash:
        checked = _bash_cd_target(shell, args, scope)
        if checked is None:
            return
        target = checked
    else:
        operands = [a for a in args if a == "-" or not a.startswith("-")]
        target = operands[0] if operands else scope.get("HOME", "/root")
    back = target == "-"
    if back:
        if "OLDPWD" not in scope and shell.bash:
            shell.error("bash: cd: OLDPWD not set")
            shell.status = 1
            return
        target = scope.get("OLDPWD", shell.cwd)
    where = resolve(shell.cwd, target)
    files = shell.files.get()
    if not files.is_dir(where):
        if shell.bash:  # ``chdir``'s errno, status 1 (``builtins/cd.def``)
            why = "Not a directory" if files.exists(where) else "No such file or directory"
            shell.error(f"bash: cd: {target}: {why}")
            shell.status = 1
            return
        shell.error(f"sh: cd: can't cd to {target}")
        shell.status = 2
        return
    scope["OLDPWD"], scope["PWD"] = scope.get("PWD", shell.cwd), where
    shell.cwd, shell.status = where, 0
    if back:
        shell.out(where + "\n")


def _bash_cd_target(shell: Shell, args: list[str], scope: MutableMapping[str, str]) -> str | None:
    """bash's ``cd [-L|[-P [-e]] [-@]] [dir]`` operand (``builtins/cd.def``), or None when ``cd`` is
    done: an unknown option (the usage, status 2), two operands (``too many arguments``), no
    operand and no ``HOME`` (``HOME not set``), all status 1; an empty operand or ``HOME`` changes
    nothing (status 0)."""
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        if args[index] == "--":
            index += 1
            break
        bad = next((ch for ch in args[index][1:] if ch not in "LPe@"), None)
        if bad is not None:
            shell.error(f"bash: cd: -{bad}: invalid option")
            shell.error("cd: usage: cd [-L|[-P [-e]] [-@]] [dir]")
            shell.status = 2
            return None
        index += 1
    operands = args[index:]
    if len(operands) > 1:
        shell.error("bash: cd: too many arguments")
        shell.status = 1
        return None
    if not operands and "HOME" not in scope:
        shell.error("bash: cd: HOME not set")
        shell.status = 1
        return None
    target = operands[0] if operands else scope["HOME"]
    if not target:
        shell.status = 0
        return None
    return target


def _pwd(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """XCU ``pwd``: the shell's directory (``-L`` and ``-P`` alike: kbatch's files have no links)."""
    shell.out(shell.cwd + "\n")
    shell.status = 0


def _cat(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    files = shell.files.get()
    operands = [a for a in args if a == "-" or not a.startswith("-")] or ["-"]
    shell.status = 0
    for operand in operands:
        if operand == "-":
            shell.out(stdin.read_all())
            continue
        name = operand
        path = resolve(shell.cwd, name)
        content = files.read(path)
        if content is None:
            reason = "Is a directory" if files.is_dir(path) else "No such file or directory"
            shell.error(f"cat: {name}: {reason}")
            shell.status = 1
            continue
        shell.out(content)


def _ls(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    files = shell.files.get()
    operands = [a for a in args if not a.startswith("-")] or ["."]
    shell.status = 0
    listed: list[str] = []
    for operand in operands:
        path = resolve(shell.cwd, operand)
        names = files.listdir(path)
        if names is not None:
            if len(operands) > 1:
                listed.append(f"{operand}:\n")
            listed.extend(f"{n}\n" for n in names)
        elif files.read(path) is not None:
            listed.append(f"{operand}\n")
        else:
            shell.error(f"ls: cannot access '{operand}': No such file or directory")
            shell.status = 2
    shell.out("".join(listed))


def _touch(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    _each(shell, args, lambda path: None if shell.files.get().exists(path)
          else shell.files.get().write(path, ""), "touch")


def _mkdir(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    parents = any(a.startswith("-") and "p" in a for a in args)

    def make(path: str) -> str | None:
        files = shell.files.get()
        if parents:
            parts = path.strip("/").split("/")
            for depth in range(1, len(parts) + 1):
                error = files.make_dir("/" + "/".join(parts[:depth]))
                if error is not None:
                    return error
            return None
        if files.exists(path):
            return f"can't create directory '{path}': File exists"
        return files.make_dir(path)

    _each(shell, args, make, "mkdir")


def _rm(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    force = any(a.startswith("-") and "f" in a for a in args)
    _each(shell, args, lambda path: None if force and not shell.files.get().exists(path)
          else shell.files.get().remove(path), "rm")


def _each(shell: Shell, args: list[str], act: Callable[[str], str | None], name: str) -> None:
    shell.status = 0
    for operand in (a for a in args if not a.startswith("-")):
        error = act(resolve(shell.cwd, operand))
        if error is not None:
            shell.error(f"{name}: {error}")
            shell.status = 1


def _printf(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    if not args:
        shell.error("printf: usage: printf format [arg ...]")
        shell.status = 2
        return
    out, errors, shell.status = printf(args[0], args[1:], shell.bash)
    shell.out(out)
    for message in errors:
        shell.error(f"sh: {message}")


def _read(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """``read`` (:mod:`kbatch.sim.shell_read`)."""
    try:
        shell.status = read_input(args, scope, stdin, lambda fd: _readable(shell, fd))
    except ReadError as error:
        for line in error.lines:
            shell.error(line if line.startswith("read: usage") else f"sh: {line}")
        shell.status = error.status


def _readable(shell: Shell, fd: int) -> Input | None:
    """``read -u FD``'s input: descriptor FD when it is open (:mod:`kbatch.sim.shell_fds`); one open
    for writing reads as empty (bash: ``read error``)."""
    stream = shell.fds.get(fd)
    return None if stream is None else stream if isinstance(stream, Input) else Input()


def _tee(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    append = any(a.startswith("-") and "a" in a for a in args)
    text = stdin.read_all()
    shell.status = 0
    for operand in (a for a in args if not a.startswith("-") or a == "-"):
        error = shell.files.get().write(resolve(shell.cwd, operand), text, append=append)
        if error is not None:
            shell.error("tee: " + error.removeprefix("can't create "))
            shell.status = 1
    shell.out(text)


def _filter(name: str) -> Command:
    def run(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
        files = shell.files.get
        out, errors, shell.status = run_filter(name, args, stdin.read_all(),
                                               lambda path: files().read(resolve(shell.cwd, path)))
        shell.out(out)
        for message in errors:
            shell.error(message)
    return run


YES_LINES = 100_000
"""Lines ``yes`` writes into a pipe before its reader is taken to read on forever."""


def _yes(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    """GNU ``yes [STRING…]``: its operands (``y`` without any) on a line, again and again. Into a
    pipe, :data:`YES_LINES` lines, the pipeline ending it when its reader stops (SIGPIPE,
    :func:`kbatch.sim.shell_redirect.run_pipeline`); anywhere else it never ends, and its output is
    cut at the log's limit, as a never-ending loop's is."""
    line = " ".join(args) + "\n" if args else "y\n"
    shell.status = 0
    if shell.pipe_writer:
        shell.out(line * YES_LINES)
        shell.endless = True
        return
    shell.out(line * MAX_LOG_LINES)
    shell.spend(math.inf)
    shell.exited = True


COMMANDS: dict[str, Command] = {
    "exit": _exit, "true": _status(0), ":": _status(0), "false": _status(1), "echo": _echo,
    "wait": _wait, "cd": _cd, "pwd": _pwd, "let": run_let, "cat": _cat, "ls": _ls, "touch": _touch,
    "mkdir": _mkdir, "rm": _rm, "trap": _trap, "printf": _printf, "read": _read, "tee": _tee,
    "yes": _yes, "eval": run_eval, **FUNCTION_COMMANDS, **DECLARE_COMMANDS, **ENV_COMMANDS,
    **{name: _filter(name) for name in sorted(FILTERS)},
}
