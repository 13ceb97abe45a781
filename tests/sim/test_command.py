"""The container command vocabulary (docs/simulation.md, "Command vocabulary")."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import DEFAULT_DURATION, ContainerRun, interpret, parse_sleep, unmodelled_command


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["sleep", "60"], ContainerRun(60.0, 0)),
        (["sleep", "1m", "30s"], ContainerRun(90.0, 0)),  # GNU sleep sums its operands
        (["sleep", "2h"], ContainerRun(7200.0, 0)),
        (["true"], ContainerRun(0.0, 0)),
        (["false"], ContainerRun(0.0, 1)),
        (["echo", "hello", "world"], ContainerRun(0.0, 0, ("hello world",), (0.0,))),
        (["sh", "-c", "sleep 5; exit 3"], ContainerRun(5.0, 3)),
        (["bash", "-c", "sleep 5 && exit 3"], ContainerRun(5.0, 3)),
        (["/bin/sh", "-c", "false && sleep 5"], ContainerRun(0.0, 1)),
        (["sh", "-c", "false; sleep 5"], ContainerRun(5.0, 0)),  # last command's status wins
        (["sh", "-c", "false || exit 7"], ContainerRun(0.0, 7)),
        (["sh", "-c", "exit 2; sleep 100"], ContainerRun(0.0, 2)),
        (["sh", "-c", "exit 256"], ContainerRun(0.0, 0)),  # modulo 256, as sh
        (["sh", "-c", "echo 'a; b'; sleep 1\nsleep 2"], ContainerRun(3.0, 0, ("a; b",), (0.0,))),
        (["sh", "-c", "false; exit"], ContainerRun(0.0, 1)),  # bare exit keeps the last status
    ],
)
def test_vocabulary(argv: list[str], want: ContainerRun) -> None:
    assert interpret(argv) == want


def test_unknown_command_runs_for_the_default_duration_and_succeeds() -> None:
    assert interpret(["python", "train.py"]) == ContainerRun(DEFAULT_DURATION, 0)
    assert interpret([]) == ContainerRun(DEFAULT_DURATION, 0)
    assert interpret(["sh", "-c", "make; sleep 2"], default_duration=5) == ContainerRun(7.0, 0)


def test_sleep_infinity_never_ends() -> None:
    assert math.isinf(interpret(["sleep", "infinity"]).duration)


def test_a_program_named_by_its_path_is_that_program() -> None:
    # kueue v0.19.2 site/static/examples/admission-fs/lq-a-simple-job.yaml: command ["/bin/sleep", "infinity"]
    assert math.isinf(interpret(["/bin/sleep", "infinity"]).duration)
    assert interpret(["sh", "-c", "/usr/bin/sleep 3; exit 2"]) == ContainerRun(3.0, 2)
    assert unmodelled_command(["/bin/sleep", "infinity"]) is None
    assert unmodelled_command(["/opt/sleep", "5"]) == "/opt/sleep 5"  # not a system directory


def test_shell_variables_come_from_the_container_env() -> None:
    env = {"JOB_COMPLETION_INDEX": "3", "CODE": "4"}
    run = interpret(["sh", "-c", "echo index $JOB_COMPLETION_INDEX ${UNSET}end; exit ${CODE}"], env=env)
    assert run == ContainerRun(0.0, 4, ("index 3 end",), (0.0,))


def test_single_quotes_stop_shell_expansion() -> None:
    assert interpret(["sh", "-c", "echo '$HOME'"], env={"HOME": "/root"}).logs == ("$HOME",)


def test_kubernetes_dollar_paren_references_expand_before_the_shell() -> None:
    # pkg/kubelet/container/helpers.go ExpandContainerCommandAndArgs: $(VAR) from env, $$ escapes.
    env = {"SECONDS": "42"}
    assert interpret(["sleep", "$(SECONDS)"], env=env) == ContainerRun(42.0, 0)
    assert interpret(["echo", "$(MISSING)", "$$(SECONDS)"], env=env).logs == ("$(MISSING) $(SECONDS)",)


@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=0, max_value=255))
def test_sleep_then_exit_is_read_exactly(seconds: int, code: int) -> None:
    run = interpret(["sh", "-c", f"sleep {seconds}; exit {code}"])
    assert run == ContainerRun(float(seconds), code)


def test_parse_sleep_rejects_non_durations() -> None:
    assert parse_sleep("abc") is None
    assert parse_sleep("1.5m") == 90.0


# The dra-example-driver demo pods (kubernetes-sigs/dra-example-driver demo/specs/quickstart/gpu-test*.yaml)
# run `bash -c "export; trap 'exit 0' TERM; sleep 9999 & wait"`: bash runs the builtins at once, starts
# `sleep` in the background and `wait`s for it (bash manual, "Lists of Commands", "Job Control Builtins").
DEMO = ["bash", "-c", "export; trap 'exit 0' TERM; sleep 9999 & wait"]


@pytest.mark.parametrize(
    ("script", "want"),
    [
        ("export; trap 'exit 0' TERM; sleep 9999 & wait", ContainerRun(9999.0, 0)),
        ("sleep 30 & sleep 10; wait", ContainerRun(30.0, 0)),  # wait: until the background job ends
        ("sleep 10 & sleep 30; wait", ContainerRun(30.0, 0)),
        ("sleep 30 &", ContainerRun(0.0, 0)),  # the shell exits without waiting: the container ends
        ("sleep 5 & exit 3", ContainerRun(0.0, 3)),
        ("false & wait", ContainerRun(0.0, 0)),  # `&` answers 0; a bare `wait` returns 0
        ("set -e; cd /tmp; export A=1; unset B; sleep 2", ContainerRun(2.0, 0)),
        ("sleep 4 && sleep 6 & wait", ContainerRun(10.0, 0)),  # `&` backgrounds the whole && list
    ],
)
def test_background_jobs_wait_and_shell_builtins(script: str, want: ContainerRun) -> None:
    assert interpret(["bash", "-c", script]) == want


@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_wait_ends_with_the_longest_of_foreground_and_background(bg: int, fg: int) -> None:
    run = interpret(["sh", "-c", f"sleep {bg} & sleep {fg}; wait"])
    assert run == ContainerRun(float(max(bg, fg)), 0)


@pytest.mark.parametrize(
    "argv",
    [
        ["bash", "-xc", "sleep 30"],  # every kubernetes-sigs/jobset site example runs `bash -xc`
        ["sh", "-ec", "sleep 30"],
        ["/bin/bash", "-x", "-c", "sleep 30"],
        ["bash", "-e", "-o", "pipefail", "-c", "sleep 30"],
        ["bash", "--norc", "-c", "sleep 30"],
        ["sh", "-c", "--", "sleep 30"],
    ],
)
def test_shell_options_before_or_combined_with_c_still_run_the_script(argv: list[str]) -> None:
    """sh and bash take ``-c`` among other single-letter options (``-xc``, ``-e -c``), and the
    script is the first operand after the options (POSIX ``sh`` synopsis; bash(1) "OPTIONS");
    ``-x`` traces (``+ sleep 30``)."""
    run = interpret(argv)
    traced = any(w.startswith("-") and "x" in w for w in argv[1:])
    assert (run.duration, run.exit_code, run.logs) == (30.0, 0, ("+ sleep 30",) if traced else ())


def test_a_shell_without_c_reads_no_script() -> None:
    """``bash -x script.sh`` runs a file kbatch cannot see: the default duration."""
    assert interpret(["bash", "-x", "sleep 30"]) == ContainerRun(1.0, 0)


@pytest.mark.parametrize(
    ("script", "run"),
    [
        ("{ sleep 5; exit 2; }", ContainerRun(5.0, 2)),
        ("(sleep 5; exit 2); sleep 1", ContainerRun(6.0, 0)),
        ("f() { exit 1; }; f; sleep 1", ContainerRun(0.0, 1)),
        ("(f() { exit 1; }); f; sleep 1", ContainerRun(2.0, 0)),  # an unknown ``f``: the default 1 s
    ],
)
def test_groups_subshells_and_functions_are_in_the_vocabulary(script: str, run: ContainerRun) -> None:
    """``{ }``, ``( )`` and functions (tests/sim/test_shell_groups.py, test_shell_functions.py): an
    ``exit`` in a subshell ends only it."""
    assert interpret(["bash", "-c", script]) == run


@pytest.mark.parametrize(
    ("script", "offsets"),
    [
        ("echo a; sleep 60; echo b", (0.0, 60.0)),
        ("sleep 5; echo a && sleep 1m && echo b", (5.0, 65.0)),
        ("sleep 10; echo x; sleep 3 & echo y", (10.0, 10.0)),
        ("sleep 2; sleep 5 && echo bg & sleep 1; echo fg; wait", (3.0, 7.0)),  # background: by time
    ],
)
def test_each_line_is_printed_when_the_script_reaches_it(script: str, offsets: tuple[float, ...]) -> None:
    # kubectl logs of a running container shows only the lines printed so far (kbatch/server/actions.py)
    assert interpret(["sh", "-c", script]).log_offsets == offsets


@given(st.lists(st.tuples(st.sampled_from(["echo x", "sleep 3", "true", "false"]),
                          st.sampled_from(["; ", " && ", " || "])), max_size=8))
def test_a_line_is_printed_between_the_start_and_the_end(parts: list[tuple[str, str]]) -> None:
    run = interpret(["sh", "-c", "".join(c + sep for c, sep in parts) + "true"])
    assert len(run.log_offsets) == len(run.logs)
    assert list(run.log_offsets) == sorted(run.log_offsets)
    assert all(0 <= at <= run.duration for at in run.log_offsets)


@pytest.mark.parametrize(("script", "logs"), [
    ("echo hi >/tmp/x", ()), ("echo hi > /tmp/x; echo yo", ("yo",)), ("echo x >> log", ()),
    ("echo all &> out", ()), ("echo err >&2", ("err",)), ("echo a 2>/dev/null", ("a",)),
    ("echo b 1>&2", ("b",)),
])
def test_echo_to_a_file_is_not_in_the_log(script: str, logs: tuple[str, ...]) -> None:
    """A container's log holds its stdout and stderr; ``> FILE`` sends echo's stdout elsewhere
    (POSIX "Shell Command Language" 2.7), a redirection word is never printed."""
    assert interpret(["sh", "-c", script]).logs == logs
