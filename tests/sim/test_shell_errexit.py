"""``set -e`` (errexit) in a simulated script (XCU ``set``, POSIX 2.8.1): a command that fails ends
the shell with its status, except where its status is being tested: an ``if`` / ``while`` /
``until`` condition, a command of an ``&&`` / ``||`` list but the last, a pipeline after ``!``.
Compared with bash ``--posix`` and dash (:mod:`tests.sim.real_shell`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import agree

_SCRIPTS = [
    "set -e; echo a; false; echo never",
    "set -e; false && true; echo and-list; ! true; echo negated; false || true; echo or-list",
    "set -e; if false; then :; fi; echo if; while false; do :; done; echo while; until true; do :; done",
    "set -e; if false || false; then :; elif ! true; then :; else echo else; fi; echo after",
    "set -e; true && false; echo never",
    "set -e; false || false; echo never",
    "set -e; for i in 1 2; do echo $i; [ $i -lt 1 ]; done; echo never",
    "set -e; if true; then grep -q x /no/such/file; echo never; fi",
    "set -e; case a in a) test 1 = 2;; esac; echo never",
    "set -e; false | true; echo pipeline-last-ok; true | false; echo never",
    "set -e; set +e; false; echo off-again; set -o errexit; exit_code=$(false; echo x); echo never",
    "set -e; x=$(exit 3); echo never",
    "set -e; trap 'echo trapped $?' EXIT; sh -c 'exit 0'; false",
    "set -e; n=0; while [ $n -lt 2 ]; do n=$((n+1)); done; echo $n; ! false; echo done",
]


@pytest.mark.parametrize("script", _SCRIPTS)
def test_errexit_agrees_with_bash_and_dash(script: str) -> None:
    agree(script)


def test_sh_e_on_the_command_line_sets_errexit() -> None:
    run = interpret(["sh", "-ec", "echo a; false; echo b"])
    assert (run.logs, run.exit_code) == (("a",), 1)
    run = interpret(["bash", "-o", "errexit", "-c", "echo a; [ 1 = 2 ]; echo b"])
    assert run.exit_code == 1 and "b" not in run.logs


@given(st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=5))
def test_the_script_stops_at_the_first_failing_command_with_its_status(codes: list[int]) -> None:
    script = "set -e; " + "; ".join(f"echo {i}; test {c} -eq 0" for i, c in enumerate(codes))
    run = interpret(["sh", "-c", script])
    failed = next((i for i, c in enumerate(codes) if c), None)
    want = len(codes) if failed is None else failed + 1
    assert run.logs == tuple(str(i) for i in range(want))
    assert run.exit_code == (0 if failed is None else 1)
