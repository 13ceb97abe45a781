"""A script and its stop signal (kbatch.sim.signals, ``Shell.spend``): POSIX "Shell Command
Language" 2.11 and ``trap``, as dash and busybox ash run them as a container's PID 1."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret, stopped_run
from kbatch.sim.images import stop_rule
from kbatch.sim.signals import StopSignal, signal_name

TERM = StopSignal("TERM", 10.0)


def _run(script: str, stop: StopSignal | None = TERM) -> tuple[float, int, tuple[str, ...]]:
    run = interpret(["sh", "-c", script], stop=stop)
    return run.duration, run.exit_code, run.logs


SCRIPTS = [
    # PID 1 drops a signal it has no handler for: the run goes on as without it
    ("sleep 3600", (3600.0, 0, ())),
    ("echo a; sleep 30; echo b", (30.0, 0, ("a", "b"))),
    # a trapped signal waits for the foreground command (2.11)…
    ("trap 'echo bye; exit 0' TERM; sleep 30; echo after", (30.0, 0, ("bye",))),
    # … but interrupts ``wait``, which returns 128+15, and the trap runs at once
    ("trap 'echo bye; exit 0' TERM; sleep 3600 & wait $!", (10.0, 0, ("bye",))),
    ("trap 'echo got $?' TERM; sleep 30 & wait; echo status $?", (10.0, 0, ("got 143", "status 143"))),
    # ``exit`` without an operand in a trap: the status before the trap (143 after the wait)
    ("trap exit TERM; sleep 30 & wait", (10.0, 143, ())),
    ("trap 'exit 5' SIGTERM; sleep 30 & wait", (10.0, 5, ())),
    ("trap 'exit 5' 15; sleep 30 & wait", (10.0, 5, ())),
    # ignored, reset, another signal
    ("trap '' TERM; sleep 30 & wait", (30.0, 0, ())),
    ("trap 'exit 5' TERM; trap - TERM; sleep 30 & wait", (30.0, 0, ())),
    ("trap 'exit 5' TERM; trap TERM; sleep 30 & wait", (30.0, 0, ())),
    ("trap 'exit 5' INT; sleep 30 & wait", (30.0, 0, ())),
    # the trap action does not exit: the script goes on, $? restored
    ("trap 'echo got' TERM; sleep 30; echo next $?", (30.0, 0, ("got", "next 0"))),
    # a loop: the iteration the signal arrives in ends its sleep, then the trap runs
    ("trap 'echo bye; exit 0' TERM; while true; do echo t; sleep 4; done", (12.0, 0, ("t", "t", "t", "bye"))),
    # EXIT traps run when the shell exits, after a trapped signal's ``exit`` too
    ("trap 'echo cleanup' EXIT; trap 'exit 2' TERM; sleep 30 & wait", (10.0, 2, ("cleanup",))),
    # a bad condition: a special builtin's error exits the shell with 2
    ("trap 'exit 0' NOPE; echo never", (0.0, 2, ("sh: 1: trap: NOPE: bad trap",))),
]


@pytest.mark.parametrize(("script", "expected"), SCRIPTS)
def test_script_and_stop_signal(script: str, expected: tuple[float, int, tuple[str, ...]]) -> None:
    assert _run(script) == expected


def test_exit_trap_runs_without_a_signal_and_keeps_the_status() -> None:
    assert _run("trap 'echo bye' EXIT; echo hi; exit 4", None) == (0.0, 4, ("hi", "bye"))
    assert _run("trap 'echo bye; exit 9' EXIT; false", None) == (0.0, 9, ("bye",))


def test_not_pid1_an_untrapped_signal_ends_the_shell_with_128_plus_n() -> None:
    shared = StopSignal("TERM", 10.0, pid1=False)
    assert _run("sleep 3600", shared) == (10.0, 143, ())
    assert _run("trap 'echo cleanup' EXIT; sleep 3600", shared) == (10.0, 143, ())  # no EXIT trap
    assert _run("sleep 3600", StopSignal("WINCH", 10.0, pid1=False)) == (3600.0, 0, ())  # default: ignore
    assert _run("trap 'exit 0' KILL; sleep 3600", StopSignal("KILL", 10.0)) == (10.0, 137, ())


def test_signal_names() -> None:
    assert [signal_name(w) for w in ("SIGTERM", "term", "15", "EXIT", "0", "SIGNOPE", "99")] == \
        ["TERM", "TERM", "TERM", "EXIT", "EXIT", None, None]


@pytest.mark.parametrize(("image", "signal", "code"), [
    ("registry.k8s.io/pause:3.10", "TERM", 0), ("nginx:1.27", "QUIT", 0), ("httpd", "WINCH", 0),
    ("redis", "TERM", 0), ("postgres:16", "INT", 0), ("memcached", "TERM", 0),
])
def test_servers_exit_0_on_their_images_stop_signal(image: str, signal: str, code: int) -> None:
    sent, exits = stop_rule(image, (), ())
    assert sent == signal and exits is not None
    run = stopped_run(("sleep", "infinity"), {}, StopSignal(sent, 4.0), exits)
    assert run is not None and (run.duration, run.exit_code) == (4.0, code)


def test_a_server_drops_a_signal_it_does_not_handle_as_pid1() -> None:
    _, exits = stop_rule("httpd", (), ())
    assert stopped_run(("sleep", "infinity"), {}, StopSignal("USR1", 4.0), exits) is None
    killed = stopped_run(("sleep", "infinity"), {}, StopSignal("USR1", 4.0, pid1=False), exits)
    assert killed is not None and killed.exit_code == 138


_WORDS = st.sampled_from(["sleep 5", "echo x", "true", "false", "sleep 2 & wait", "exit 3",
                          "trap 'echo t' TERM", "trap 'exit 7' TERM", "trap '' TERM", "trap exit TERM",
                          "trap 'echo e' EXIT", "wait"])


@given(st.lists(_WORDS, min_size=1, max_size=6), st.floats(0, 20, allow_nan=False), st.booleans())
def test_the_outcome_is_a_function_of_the_script_and_the_signal(words: list[str], at: float,
                                                               pid1: bool) -> None:
    script = "; ".join(words)
    stop = StopSignal("TERM", at, pid1)
    first, second = interpret(["sh", "-c", script], stop=stop), interpret(["sh", "-c", script], stop=stop)
    assert first == second
    plain = interpret(["sh", "-c", script])
    if at >= plain.duration:  # the signal comes after the run ended: nothing changes
        assert first == plain
    if pid1 and "trap" not in script:  # PID 1 drops what it does not handle
        assert first == plain
