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
``[ … ]``, ``[[ … ]]``  ``test`` conditions (:mod:`kbatch.sim.shell_eval`): no time; file tests are
                       false (a simulated container has no files)
``NAME=value``         a shell variable for the rest of the script, no time
``if …; then …; fi``   ``if``/``elif``/``else`` and ``for NAME in WORDS; do …; done`` (words: ``$VAR``,
``for … do … done``    ``{1..3}``, ``$(seq …)``) run as sh runs them (:mod:`kbatch.sim.shell_syntax`)
``while``, ``case``…   a script with another compound command is "anything else" as a whole
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
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass

from kbatch.sim.shell_eval import condition_status, for_items
from kbatch.sim.shell_syntax import For, If, Node, Simple, expand_sh, parse_script, words

__all__ = ["DEFAULT_DURATION", "SHELLS", "ContainerRun", "interpret", "parse_sleep", "unmodelled_command"]

DEFAULT_DURATION = 1.0
"""Seconds an unrecognised command runs (kubernetes-sigs/kwok ``kustomize/stage/pod/general``
``pod-complete`` defaults its delay to 1000 ms)."""

SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "ash", "/bin/ash"})

_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SLEEP = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")
_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")
_BUILTINS = frozenset({"export", "trap", "set", "unset", "cd", "shift", "umask", "readonly"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_TESTS = frozenset({"[", "[[", "test"})
_REDIRECT = re.compile(r"^(\d*|&)>>?(.*)$")  # an output redirection word: fd, then its target (or none)
_KNOWN = _BUILTINS | _TESTS | {"exit", "true", ":", "false", "echo", "wait"}
MAX_STEPS = 1_000_000
"""Commands one run may execute; a script past it (nested loops) is "anything else"."""


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
        self.steps = 0

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
            line = _echo_line(rest)
            if line is not None:
                self.logs.append(line)
                self.offsets.append(self.duration)
            self.status = 0
        elif name == "wait":
            self.duration = max(self.duration, self.background_end)
            self.status = 0
        elif name in _BUILTINS:
            self.status = 0
        elif name in _TESTS:
            self.status = condition_status(words)
        else:
            self.duration += self.default
            self.status = 0

    def result(self) -> ContainerRun:
        return ContainerRun(self.duration, self.status, tuple(self.logs), tuple(self.offsets))


def _echo_line(words: list[str]) -> str | None:
    """What ``echo`` prints to the container's log: its words without redirections (POSIX "Shell
    Command Language" 2.7), or ``None`` when its standard output goes to a file (``> f``, ``>> f``,
    ``1> f``, ``&> f``); ``2> f`` and ``>&2`` still reach the log, which holds stdout and stderr."""
    out, to_file, skip = [], False, False
    for word in words:
        if skip:
            skip = False
            continue
        found = _REDIRECT.match(word)
        if found is None:
            if word != "-n":
                out.append(word)
            continue
        fd, target = found.group(1), found.group(2)
        skip = target == ""
        if fd in ("", "1", "&") and not target.startswith("&"):
            to_file = True
    return None if to_file else " ".join(out)


def _sum_sleeps(words: list[str]) -> float | None:
    """GNU sleep adds up its operands (``sleep 1m 30s``)."""
    parts = [parse_sleep(w) for w in words]
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


def _exit_code(word: str) -> int:
    try:
        return int(word) & 0xFF  # sh reports exit codes modulo 256
    except ValueError:
        return 2  # sh: "exit: Illegal number"


class _Unmodelled(Exception):
    """The script, while running, needs what is not modelled (a loop over another substitution,
    more than :data:`MAX_STEPS` commands)."""


def _run_script(script: str, env: Mapping[str, str], default_duration: float) -> ContainerRun:
    nodes = parse_script(script)
    if nodes is None:
        return ContainerRun(default_duration, 0)
    state = _State(default_duration)
    try:
        _run_nodes(state, nodes, dict(env))
    except _Unmodelled:
        return ContainerRun(default_duration, 0)
    return state.result()


def _run_nodes(state: _State, nodes: Sequence[Node], scope: MutableMapping[str, str]) -> None:
    for node in nodes:
        if state.exited:
            return
        if isinstance(node, Simple):
            _run_list(state, node, scope)
        elif isinstance(node, If):
            _run_if(state, node, scope)
        else:
            _run_for(state, node, scope)


def _run_list(state: _State, node: Simple, scope: MutableMapping[str, str]) -> None:
    if not node.background:
        _run_chain(state, node.chain, scope)
        return
    job = _State(state.default)  # a subshell: its time runs alongside, its exit ends only itself
    _run_chain(job, node.chain, dict(scope))
    state.steps += job.steps
    state.background_end = max(state.background_end, state.duration + job.duration)
    state.logs.extend(job.logs)
    state.offsets.extend(state.duration + offset for offset in job.offsets)
    state.status = 0


def _run_if(state: _State, node: If, scope: MutableMapping[str, str]) -> None:
    """The first branch whose condition exits 0 runs; none taken and no ``else``: status 0."""
    for condition, body in node.branches:
        _run_chain(state, condition, scope)
        if state.exited:
            return
        if state.status == 0:
            _run_nodes(state, body, scope)
            return
    state.status = 0
    if node.orelse is not None:
        _run_nodes(state, node.orelse, scope)


def _run_for(state: _State, node: For, scope: MutableMapping[str, str]) -> None:
    items = for_items(node.items, scope)
    if items is None:
        raise _Unmodelled(node.items)
    state.status = 0
    for item in items:
        scope[node.name] = item
        _run_nodes(state, node.body, scope)
        if state.exited:
            return


def _run_chain(state: _State, chain: Sequence[tuple[str, str]], scope: MutableMapping[str, str]) -> None:
    """An and-or list: ``a && b || c``, each command after the first run by the last status."""
    for separator, command in chain:
        if state.exited:
            return
        if (separator == "&&" and state.status != 0) or (separator == "||" and state.status == 0):
            continue
        state.steps += 1
        if state.steps > MAX_STEPS:
            raise _Unmodelled("too many steps")
        argv = words(expand_sh(command, scope))
        if argv and all(_ASSIGNMENT.match(w) for w in argv):
            for assignment in argv:
                name, _, value = assignment.partition("=")
                scope[name] = value
            state.status = 0
        elif argv:
            state.run_simple(argv)


def unmodelled_command(argv: Sequence[str]) -> str | None:
    """The first command of ``argv`` (command + args) that the vocabulary does not model — one that
    runs the default duration and succeeds instead of doing what it would do — as written; ``None``
    when every command is modelled, or when there is no command (the image's own, which nothing
    here claims to know). Read without the container's environment: a word with a ``$`` is taken
    as modelled. A script outside the shell syntax is returned whole."""
    words = list(argv)
    if not words:
        return None
    if words[0] in SHELLS:
        script = _shell_script(words[1:])
        if script is None:
            return " ".join(words)
        nodes = parse_script(script)
        return script.strip() if nodes is None else _first_unmodelled(nodes)
    return None if _modelled(words) else " ".join(words)


def _first_unmodelled(nodes: Sequence[Node]) -> str | None:
    for node in nodes:
        if isinstance(node, Simple):
            chains = [node.chain]
        elif isinstance(node, If):
            chains = [cond for cond, _ in node.branches]
        else:
            chains = []
            if "$(" in node.items.replace("$(seq", "") or "`" in node.items:
                return f"for {node.name} in {node.items}"
        for chain in chains:
            found = next((c for _, c in chain if not _modelled(words(c))), None)
            if found is not None:
                return found
        bodies = [b for _, b in node.branches] + [node.orelse or ()] if isinstance(node, If) else \
            [node.body] if isinstance(node, For) else []
        for body in bodies:
            found = _first_unmodelled(body)
            if found is not None:
                return found
    return None


def _modelled(argv: list[str]) -> bool:
    if not argv or all(_ASSIGNMENT.match(w) for w in argv):
        return True
    name, rest = argv[0], argv[1:]
    if name == "sleep":
        return bool(rest) and all("$" in w or parse_sleep(w) is not None for w in rest)
    return name in _KNOWN or "$" in name
