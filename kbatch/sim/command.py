"""The container command vocabulary: how a simulated container behaves, read off its command line.

A container's ``argv`` is ``command + args`` (or ``args`` alone when ``command`` is empty: most
batch images run their arguments through a shell entrypoint, as in the KWOK examples that pass
``args: [sleep, "60"]``). Before anything else, Kubernetes' own ``$(VAR)`` references are expanded
from the container environment, as the kubelet does for command and args
(kubernetes/kubernetes ``pkg/kubelet/container/helpers.go`` ``ExpandContainerCommandAndArgs``;
``$$`` escapes a dollar). Then the vocabulary is:

=====================  ===========================================================================
``sleep N``            run for N seconds; N may end in ``s``, ``m``, ``h`` or ``d``; ``infinity``;
                       also ``/bin/sleep`` (a program named by its system path, shell_pids.program)
``exit N``             end now with exit code N (inside ``sh -c``; a bare ``exit`` is ``exit 0``)
``true`` / ``false``   exit status 0 / 1, no time
``echo …``             append the words (after substitution) as one line of the container's log
``sh -c "…"``          (also ``bash -xc``, ``/bin/sh -e -c``…) a script of the commands above joined
                       by ``;``, ``&&``, ``||`` or newlines, with ``$VAR`` / ``${VAR}`` taken from
                       the container environment (unset variables are empty, as in sh)
``… &`` / ``wait``     in a script, a list ended by ``&`` runs in the background (status 0 at
                       once); ``wait`` waits until every background list has ended; the shell
                       exits without waiting for them, and so does the container
``set``, ``cd``…       the shell builtins ``set``, ``shift``, ``umask``: no time, status 0;
                       ``cd DIR`` moves the directory (``PWD``); ``trap`` sets what the stop signal
                       and ``EXIT`` run (:mod:`kbatch.sim.signals`); ``export``, ``readonly``,
                       ``unset``, ``declare``, ``local`` (:mod:`kbatch.sim.shell_declare`)
``[ … ]``, ``[[ … ]]``  ``test`` conditions (:mod:`kbatch.sim.shell_eval`): no time; file tests
                       (``-e -f -d -s -r -w -x``) look at the container's files
``NAME=value``         a shell variable for the rest of the script, no time
``$(( … ))``           arithmetic (:mod:`kbatch.sim.shell_arith`); ``let``, ``(( … ))`` (bash)
``$( … )``             the output of a substitution whose commands are all modelled
``if``, ``for``,       ``if``/``elif``/``else``, ``for NAME in WORDS`` (words: ``$VAR``, ``{1..3}``,
``while``, ``until``,  ``$(seq …)``), ``while``/``until`` with ``break``/``continue``, ``case`` with
``case``               glob patterns, run as sh runs them (:mod:`kbatch.sim.shell_run`); a loop
                       whose iteration changes nothing runs until the container is killed
``*``, ``?``, ``[…]``   pathname expansion over the container's files (:mod:`kbatch.sim.shell_glob`);
                       compound commands piped, negated or redirected (``… | while read l``)
``cat``, ``ls``…       ``cat``, ``ls``, ``touch``, ``mkdir``, ``rm`` and ``>``/``>>``/``<``
                       redirections over the container's files (:mod:`kbatch.sim.files`: its
                       mounted volumes, built when first read, and what it writes)
``{ }``, ``( )``, …    groups, subshells, functions and positional parameters (``sh -c S NAME A``)
``python3 -c "…"``     (as the container's command) a script of the few-line Python subset of
                       :mod:`kbatch.sim.python_c` (the Job docs' exit-code examples)
anything else          runs for ``default_duration`` and succeeds: the kubelet passes 1 s (KWOK's
                       default pod-complete delay) for a Job's pod and infinity for any other
                       (KWOK completes only a Job's pods; :mod:`kbatch.sim.images`)
=====================  ===========================================================================

The exit code of a script is that of the last command that ran, as in POSIX sh. Example::

    >>> run = interpret(["sh", "-c", "echo start $JOB_COMPLETION_INDEX; sleep 1m && exit 3"],
    ...                 env={"JOB_COMPLETION_INDEX": "2"})
    >>> run.duration, run.exit_code, run.logs
    (60.0, 3, ('start 2',))
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from kbatch.sim.container_run import DEFAULT_DURATION, ContainerRun, parse_sleep
from kbatch.sim.python_c import is_python, modelled_python, run_python
from kbatch.sim.shell_run import MAX_STEPS, FilesFactory, Shell, _Files, run_script, run_simple
from kbatch.sim.shell_syntax import parse_script
from kbatch.sim.shell_vocab import first_unmodelled, modelled
from kbatch.sim.signals import StopSignal, killed_status

__all__ = ["DEFAULT_DURATION", "MAX_STEPS", "SHELLS", "ContainerRun", "FilesFactory", "interpret",
           "parse_sleep", "stopped_run", "unmodelled_command"]

SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash", "ash", "/bin/ash"})

_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.\-]*)\)")


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
    files: FilesFactory | None = None,
    stop: StopSignal | None = None,
) -> ContainerRun:
    """Read ``argv`` (command + args) by the vocabulary above; never raises. ``files`` builds the
    container's file view (:mod:`kbatch.sim.files`) when a command first needs it; without it the
    container sees only the image's directories and what it writes itself. ``stop``: the run as the
    stop signal changes it (:meth:`kbatch.sim.shell_run.Shell.spend`)."""
    env = env or {}
    words = [expand_k8s_refs(w, env) for w in argv]
    if not words:
        return ContainerRun(default_duration, 0)
    if words[0] in SHELLS and (index := _script_index(words[1:])) is not None:
        script, names = words[1 + index], words[2 + index:] or [words[0]]  # ``sh -c SCRIPT $0 $1…``
        bash = words[0].rsplit("/", 1)[-1] == "bash"
        return run_script(_options_set(words[1:]) + script, dict(env), default_duration, files, stop, names,
                          bash)
    if is_python(words) and (run := run_python(words, env, default_duration, stop)) is not None:
        return run
    shell = Shell(default_duration, _Files(files), stop=stop)
    run_simple(shell, words, dict(env))
    return shell.result()


def stopped_run(argv: Sequence[str], env: Mapping[str, str], signal: StopSignal,
                exits: Mapping[str, int] | None, default_duration: float = DEFAULT_DURATION,
                files: FilesFactory | None = None) -> ContainerRun | None:
    """The run of ``argv`` as the stop ``signal`` changes it (its ``duration`` counted from the
    container's start), or None when the signal is dropped and changes nothing. ``exits``: what a
    table program (:func:`kbatch.sim.images.stop_rule`) exits with on the signals it handles;
    None: the command is read by the vocabulary, where only a shell's ``trap`` handles one."""
    if exits is not None:
        code = exits.get(signal.name) if signal.name != "KILL" else None
        if code is not None:
            return ContainerRun(signal.at, code)
        return ContainerRun(signal.at, killed_status(signal.name)) if signal.unhandled_ends() else None
    if not signal.unhandled_ends() and not any("trap" in word for word in argv):
        return None  # nothing handles it, and PID 1 drops what it does not handle
    return interpret(argv, env, default_duration, files, stop=signal)


def _shell_script(words: Sequence[str]) -> str | None:
    """The script a shell runs with these arguments, or None when it is not given ``-c``
    (:func:`_script_index`)."""
    index = _script_index(words)
    return None if index is None else words[index]


def _script_index(words: Sequence[str]) -> int | None:
    """Where the script is among a shell's arguments, or None when it is not given ``-c``; the
    operands after it are ``$0``, ``$1``… (XCU ``sh``).

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
    return index if has_c and index < len(words) else None


_MODELLED_OPTIONS = {"pipefail": "set -o pipefail; ", "noglob": "set -f; ", "errexit": "set -e; ",
                     "nounset": "set -u; ", "xtrace": "set -x; "}
_OPTION_FLAGS = (("f", "noglob"), ("e", "errexit"), ("u", "nounset"), ("x", "xtrace"))
"""The command line's ``-x`` traces as the shell it names does (:mod:`kbatch.sim.shell_trace`):
every kubernetes-sigs/jobset example runs ``bash -xc``, whose log then holds bash's trace lines."""


def _options_set(words: Sequence[str]) -> str:
    """The ``set`` commands that give the script the shell options its command line sets and the
    simulated shell models (``bash -o pipefail -c``, ``sh -fc``, ``sh -ec``, ``sh -uc``, ``bash
    -xc``): pathname expansion off, pipefail, errexit, nounset, xtrace (last: the others are set
    before the script, untraced). They share the script's first line, which its error messages
    count from."""
    prelude: list[str] = []
    index = 0
    while index < len(words) and words[index][:1] in "-+" and words[index] not in ("", "-", "--"):
        word = words[index]
        index += 1
        if word in ("-o", "+o"):
            option = words[index] if index < len(words) else ""
            index += 1
            if word == "-o" and option in _MODELLED_OPTIONS:
                prelude.append(_MODELLED_OPTIONS[option])
        elif word[0] == "-" and not word.startswith("--"):
            prelude.extend(_MODELLED_OPTIONS[name] for flag, name in _OPTION_FLAGS if flag in word[1:])
    return "".join(sorted(prelude, key=lambda command: command == _MODELLED_OPTIONS["xtrace"]))


def unmodelled_command(argv: Sequence[str]) -> str | None:
    """The first command of ``argv`` (command + args, joined with the image's by
    :func:`kbatch.sim.images.image_argv`) that the vocabulary does not model — one that runs the
    default duration instead of doing what it would do — as written; ``None`` when every command is
    modelled, or when there is no command (an unknown image's own: :mod:`kbatch.sim.unmodelled`
    says so). Read without the container's environment: a word with a ``$`` is taken as modelled.
    A script outside the shell syntax is returned whole."""
    words = list(argv)
    if not words:
        return None
    if words[0] in SHELLS:
        script = _shell_script(words[1:])
        if script is None:
            return " ".join(words)
        nodes = parse_script(script, bash=words[0].endswith("bash"))
        return script.strip() if nodes is None else first_unmodelled(nodes)
    if is_python(words):
        return None if modelled_python(words) else " ".join(words)
    return None if modelled(words) else " ".join(words)
