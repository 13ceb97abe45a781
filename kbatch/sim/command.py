"""The container command vocabulary: how a simulated container behaves, read off its command line.

A container's ``argv`` is ``command + args`` (or ``args`` alone when ``command`` is empty: most
batch images run their arguments through a shell entrypoint, as in the KWOK examples that pass
``args: [sleep, "60"]``). Before anything else, Kubernetes' own ``$(VAR)`` references are expanded
from the container environment, as the kubelet does for command and args
(kubernetes/kubernetes ``pkg/kubelet/container/helpers.go`` ``ExpandContainerCommandAndArgs``;
``$$`` escapes a dollar). Then the vocabulary is:

=====================  ===========================================================================
``sleep N``            run for N seconds; N may end in ``s``, ``m``, ``h`` or ``d``; ``infinity``
``exit N``             end now with exit code N (inside ``sh -c``; a bare ``exit`` is ``exit 0``)
``true`` / ``false``   exit status 0 / 1, no time
``echo …``             append the words (after substitution) as one line of the container's log
``sh -c "…"``          (also ``bash -xc``, ``/bin/sh -e -c``…) a script of the commands above joined
                       by ``;``, ``&&``, ``||`` or newlines, with ``$VAR`` / ``${VAR}`` taken from
                       the container environment (unset variables are empty, as in sh)
``… &`` / ``wait``     in a script, a list ended by ``&`` runs in the background (status 0 at
                       once); ``wait`` waits until every background list has ended; the shell
                       exits without waiting for them, and so does the container
``export``, ``trap``…  the shell builtins ``export``, ``trap``, ``set``, ``unset``, ``cd``,
                       ``shift``, ``umask``, ``readonly``: no time, status 0 (a trap is accepted
                       but not run: simulated processes do not handle SIGTERM)
``if``, ``for``…       a script with a compound command is "anything else" as a whole
anything else          runs for the default duration (1 s, KWOK's default pod-complete delay) and
                       succeeds
=====================  ===========================================================================

The exit code of a script is that of the last command that ran, as in POSIX sh. Example::

    >>> run = interpret(["sh", "-c", "echo start $JOB_COMPLETION_INDEX; sleep 1m && exit 3"],
    ...                 env={"JOB_COMPLETION_INDEX": "2"})
    >>> run.duration, run.exit_code, run.logs
    (60.0, 3, ('start 2',))
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["DEFAULT_DURATION", "SHELLS", "ContainerRun", "interpret", "parse_sleep"]

DEFAULT_DURATION = 1.0
"""Seconds an unrecognised command runs (kubernetes-sigs/kwok ``kustomize/stage/pod/general``
``pod-complete`` defaults its delay to 1000 ms)."""

SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "ash", "/bin/ash"})

_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SLEEP = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")
_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
_BUILTINS = frozenset({"export", "trap", "set", "unset", "cd", "shift", "umask", "readonly"})
_SH_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class ContainerRun:
    """What one run of a container does: how long it runs, how it ends, what it prints, and when
    (``log_offsets``: seconds after the start at which each line of ``logs`` is printed)."""

    duration: float
    exit_code: int
    logs: tuple[str, ...] = ()
    log_offsets: tuple[float, ...] = ()


def parse_sleep(word: str) -> float | None:
    """``"90"`` → 90.0, ``"1.5m"`` → 90.0, ``"infinity"`` → inf; None when not a sleep operand."""
    if word == "infinity":
        return math.inf
    match = _SLEEP.match(word)
    if match is None:
        return None
    return float(match.group(1)) * _SLEEP_UNITS[match.group(2)]


def expand_k8s_refs(text: str, env: Mapping[str, str]) -> str:
    """Kubernetes ``$(VAR)`` expansion: defined variables replaced, undefined left as written."""

    def repl(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name = match.group(1)
        return env[name] if name in env else match.group(0)

    return _K8S_REF.sub(repl, text)


def interpret(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    default_duration: float = DEFAULT_DURATION,
) -> ContainerRun:
    """Read ``argv`` (command + args) by the vocabulary above; never raises."""
    env = env or {}
    words = [expand_k8s_refs(w, env) for w in argv]
    if not words:
        return ContainerRun(default_duration, 0)
    if words[0] in SHELLS and (script := _shell_script(words[1:])) is not None:
        return _run_script(script, env, default_duration)
    state = _State(default_duration)
    state.run_simple(words)
    return state.result()


def _shell_script(words: Sequence[str]) -> str | None:
    """The script a shell runs with these arguments, or None when it is not given ``-c``.

    ``-c`` may come with other single-letter options, alone or combined (``bash -xc``, ``sh -e
    -c``, ``bash -o pipefail -c``), after long options (``--norc``) and before ``--``; the script
    is the first operand after the options (POSIX ``sh`` synopsis ``sh -c [-abCefhimnuvx] [-o
    option]... command_string``; bash(1) "OPTIONS"). kubernetes-sigs/jobset's examples run
    ``bash -xc``.
    """
    has_c, index = False, 0
    while index < len(words) and words[index][:1] in "-+" and words[index] not in ("", "-"):
        word = words[index]
        if word == "--":
            index += 1
            break
        if word in ("-o", "+o"):
            index += 2
            continue
        has_c = has_c or (word[0] == "-" and not word.startswith("--") and "c" in word[1:])
        index += 1
    return words[index] if has_c and index < len(words) else None


class _State:
    """Accumulates time, logs and the last exit status while a script runs."""

    def __init__(self, default_duration: float) -> None:
        self.default = default_duration
        self.duration = 0.0
        self.status = 0
        self.logs: list[str] = []
        self.offsets: list[float] = []
        self.exited = False
        self.background_end = 0.0  # when the last background list started so far ends

    def run_simple(self, words: list[str]) -> None:
        name, rest = words[0], words[1:]
        if name == "sleep" and rest and (seconds := _sum_sleeps(rest)) is not None:
            self.duration += seconds
            self.status = 0
        elif name == "exit":
            self.status = _exit_code(rest[0]) if rest else self.status
            self.exited = True
        elif name in ("true", ":"):
            self.status = 0
        elif name == "false":
            self.status = 1
        elif name == "echo":
            self.logs.append(" ".join(w for w in rest if w != "-n"))
            self.offsets.append(self.duration)
            self.status = 0
        elif name == "wait":
            self.duration = max(self.duration, self.background_end)
            self.status = 0
        elif name in _BUILTINS:
            self.status = 0
        else:
            self.duration += self.default
            self.status = 0

    def result(self) -> ContainerRun:
        return ContainerRun(self.duration, self.status, tuple(self.logs), tuple(self.offsets))


def _sum_sleeps(words: list[str]) -> float | None:
    """GNU sleep adds up its operands (``sleep 1m 30s``)."""
    parts = [parse_sleep(w) for w in words]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def _exit_code(word: str) -> int:
    try:
        return int(word) & 0xFF  # sh reports exit codes modulo 256
    except ValueError:
        return 2  # sh: "exit: Illegal number"


_COMPOUND = frozenset({"if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done",
                       "case", "esac", "select", "function", "{", "}", "[[", "!"})
"""Words that open or belong to a compound command (POSIX "Shell Command Language" 2.9.4, bash's
``[[``, ``function``, ``select``) or negate a pipeline (``!``, 2.9.2): outside the vocabulary."""


def _run_script(script: str, env: Mapping[str, str], default_duration: float) -> ContainerRun:
    lists = _split_script(script)
    if any(_is_compound(command) for chain, _ in lists for _, command in chain):
        return ContainerRun(default_duration, 0)
    state = _State(default_duration)
    for chain, background in lists:
        if state.exited:
            break
        if background:  # a subshell: its time runs alongside, its exit ends only itself
            job = _State(default_duration)
            _run_chain(job, chain, env)
            state.background_end = max(state.background_end, state.duration + job.duration)
            state.logs.extend(job.logs)
            state.offsets.extend(state.duration + offset for offset in job.offsets)
            state.status = 0
        else:
            _run_chain(state, chain, env)
    return state.result()


def _run_chain(state: _State, chain: list[tuple[str, str]], env: Mapping[str, str]) -> None:
    """An and-or list: ``a && b || c``, each command after the first run by the last status."""
    for separator, command in chain:
        if state.exited:
            return
        if (separator == "&&" and state.status != 0) or (separator == "||" and state.status == 0):
            continue
        words = _words(_expand_sh(command, env))
        if words:
            state.run_simple(words)


def _is_compound(command: str) -> bool:
    words = _words(command)
    return bool(words) and (words[0] in _COMPOUND or words[0].startswith("("))


def _split_script(script: str) -> list[tuple[list[tuple[str, str]], bool]]:
    """``a; b && c & d`` → ``[([(";", "a")], False), ([(";", "b"), ("&&", "c")], True),
    ([(";", "d")], False)]``: and-or lists with whether ``&`` ended them, respecting quotes; a ``&``
    inside a redirection (``2>&1``, ``&>f``) is not a terminator."""
    lists: list[tuple[list[tuple[str, str]], bool]] = []
    chain: list[tuple[str, str]] = []
    buf: list[str] = []
    sep, quote, i = ";", "", 0

    def flush(background: bool) -> None:
        nonlocal chain
        chain.append((sep, "".join(buf).strip()))
        chain = [(s, c) for s, c in chain if c]
        if chain:
            lists.append((chain, background))
        chain = []

    while i < len(script):
        ch, two = script[i], script[i : i + 2]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif two in ("&&", "||"):
            chain.append((sep, "".join(buf).strip()))
            sep, buf = two, []
            i += 2
            continue
        elif ch in ";\n" or (ch == "&" and script[i - 1 : i] not in ("<", ">") and two != "&>"):
            flush(background=ch == "&")
            sep, buf = ";", []
            i += 1
            continue
        buf.append(ch)
        i += 1
    flush(background=False)
    return lists


def _expand_sh(command: str, env: Mapping[str, str]) -> str:
    """sh parameter expansion of ``$VAR`` and ``${VAR}``, except inside single quotes."""
    pieces = re.split(r"('[^']*')", command)
    for index, piece in enumerate(pieces):
        if not piece.startswith("'"):
            pieces[index] = _SH_REF.sub(lambda m: env.get(m.group(1) or m.group(2), ""), piece)
    return "".join(pieces)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # unbalanced quotes: treat as an unknown command
        return command.split()
