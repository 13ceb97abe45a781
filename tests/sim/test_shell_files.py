"""A script's own files (kbatch.sim.files, kbatch.sim.shell_commands): redirections, ``cat``, ``ls``,
``test``'s file primaries, ``mkdir``/``touch``/``rm`` and ``cd``, as busybox sh runs them in a
container with no volumes. Before the file view, ``cat`` ran as an unknown command (1 s, exit 0) and
every file test was false."""

from __future__ import annotations

import pytest

from kbatch.sim.command import interpret
from kbatch.sim.files import FileSystem, Mount
from tests.sim.real_shell import real_output, simulated_output


def logs(script: str) -> tuple[str, ...]:
    return interpret(["sh", "-c", script]).logs


@pytest.mark.parametrize(("script", "want"), [
    ("echo done > /tmp/marker; cat /tmp/marker; [ -f /tmp/marker ] && echo present", ("done", "present")),
    ("echo a > f; echo b >> f; cat f; echo a > f; cat f", ("a", "b", "a")),  # > truncates, >> appends
    ("cat /missing; echo $?", ("cat: /missing: No such file or directory", "1")),
    ("cat /missing 2>/dev/null || echo default", ("default",)),
    ("cat /missing > /tmp/out 2>&1; cat /tmp/out", ("cat: /missing: No such file or directory",)),
    ("echo hidden > /dev/null; echo shown", ("shown",)),
    ("x=$(cat /tmp/none 2>/dev/null); [ -z \"$x\" ] && echo empty", ("empty",)),
    ("echo 42 > /tmp/n; n=$(cat /tmp/n); echo $((n + 1))", ("43",)),
    ("echo hi > /nodir/f; echo $?", ("sh: 1: can't create /nodir/f: nonexistent directory", "2")),
    ("mkdir -p /data/out && cd /data && echo r > out/x; ls; ls out; cat /data/out/x", ("out", "x", "r")),
    ("touch /tmp/t; [ -s /tmp/t ] || echo empty; [ -e /tmp/t ] && echo exists; rm /tmp/t; [ -e /tmp/t ] "
     "|| echo gone", ("empty", "exists", "gone")),
    ("[ -d /tmp ] && [ -d /etc ] && [ ! -d /tmp/x ] && echo dirs", ("dirs",)),
    ("ls /nope; echo $?", ("ls: cannot access '/nope': No such file or directory", "2")),
    # a failed redirection: dash's "cannot open", status 2, and the command does not run
    ("cat < /tmp/none; echo $?", ("sh: 1: cannot open /tmp/none: No such file", "2")),
    ("echo in > /tmp/i; cat < /tmp/i", ("in",)),
    ("echo -n a > /tmp/p; cat /tmp/p; echo b", ("ab",)),  # no final newline: the line goes on
])
def test_the_containers_own_files(script: str, want: tuple[str, ...]) -> None:
    assert logs(script) == want


def test_a_file_read_takes_no_time_and_an_unknown_file_command_still_runs_the_default() -> None:
    assert interpret(["sh", "-c", "cat /etc/x; sleep 2"]).duration == 2.0
    assert interpret(["sh", "-c", "awk 1 /etc/x"]).duration == 1.0
    pipeline = interpret(["sh", "-c", "cat /etc/x | awk 1"])  # a stage not modelled: "anything else"
    assert (pipeline.duration, pipeline.exit_code, pipeline.logs) == (1.0, 0, ())


def test_mounted_files_come_from_the_factory_only_when_a_command_needs_them() -> None:
    built: list[int] = []

    def factory() -> FileSystem:
        built.append(1)
        return FileSystem([Mount("/etc/config", {"a": "1", "sub/b": "2\n"})])

    assert interpret(["sh", "-c", "echo no files; sleep 1"], files=factory).logs == ("no files",)
    assert built == []
    script = "ls /etc/config; cat /etc/config/sub/b; echo x > /etc/config/a"
    run = interpret(["sh", "-c", script], files=factory)
    assert run.logs == ("a", "sub", "2", "sh: 1: can't create /etc/config/a: Read-only file system")
    assert built == [1]


@pytest.mark.parametrize("script", [
    "cd /nope; echo $?", "cd /nope || echo failed", "cd -x; echo $?", "cd -Lx /tmp; echo $?",
    "unset HOME; cd; echo $?", "cd /tmp /usr; echo $?", "cd -P /nx; echo $?",
    "echo x > /tmp/kbatch-cd-file; cd /tmp/kbatch-cd-file; echo $?; rm /tmp/kbatch-cd-file",
    "cd /tmp && cd /usr && cd - >/dev/null && pwd; cd -- /usr; pwd",
])
def test_bash_cd_errors_are_bashs(script: str) -> None:
    """bash's ``cd`` (``builtins/cd.def``): ``chdir``'s errno in its words and status 1 (not
    dash's ``can't cd to``, status 2), ``too many arguments``, ``HOME not set``, an unknown option
    with the usage line and status 2."""
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script
