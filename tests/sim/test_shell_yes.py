"""``yes`` and SIGPIPE in a simulated pipeline, and ``set -o pipefail`` (GNU coreutils ``yes``;
signal(7): a write to a pipe nobody reads kills the writer with SIGPIPE, status 141; POSIX.1-2024
and bash(1) ``pipefail``). Each script's output is compared with bash's."""

from __future__ import annotations

import math

import pytest

from kbatch.sim.command import interpret
from tests.sim.real_shell import agree


@pytest.mark.parametrize("script", [
    "yes | head -1; echo $?; yes abc d | head -n 2",
    "set -o pipefail; yes | head -n 2; echo $?; yes | head -n 1 > /dev/null; echo $?",
    "false | true; echo $?; set -o pipefail; false | true; echo $?; true | false | true; echo $?",
    "set -o pipefail; ls missing 2>/dev/null | true; echo $?",
    "set +o pipefail; ls missing 2>/dev/null | true; echo $?",
    "set -o pipefail; yes | while read l; do echo $l; break; done; echo $?",
    # combined flags, as scripts write them: each o takes the next word as its option's name
    "set -euo pipefail; false | true; echo never",
    "set -o pipefail -e; ls missing 2>/dev/null | true; echo never",
    "set -eo pipefail; true | false; echo never",
    "set -eo pipefail; set +eo pipefail; false | true; echo $?; false; echo still",
])
def test_yes_and_pipefail_agree_with_bash(script: str) -> None:
    agree(script, ("bash",))


def test_bash_o_pipefail_on_the_command_line_sets_it() -> None:
    run = interpret(["bash", "-o", "pipefail", "-c", "yes | head -1"])
    assert (run.logs, run.exit_code) == (("y",), 141)
    assert interpret(["bash", "-xc", "yes | head -1"]).exit_code == 0


def test_yes_into_a_reader_of_everything_runs_until_killed() -> None:
    assert interpret(["sh", "-c", "yes | wc -l; echo never"]).duration == math.inf
    run = interpret(["sh", "-c", "yes > /dev/null & sleep 5; echo done"])
    assert (run.duration, run.logs) == (5.0, ("done",))


def test_sh_f_turns_pathname_expansion_off() -> None:
    assert interpret(["sh", "-fc", "echo /b*"]).logs == ("/b*",)
    assert interpret(["sh", "-e", "-c", "echo /b*"]).logs == ("/bin",)
