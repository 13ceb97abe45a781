"""``set -u`` and ``set -x`` in the simulated shell (XCU ``set``): an unset parameter ends the script
with dash's message and status 2; the trace is dash's (``PS4``, default ``+ ``; words as expanded,
unquoted), before the command's redirections, on standard error."""

from __future__ import annotations

import pytest

from kbatch.sim.command import interpret
from tests.sim.real_shell import SETUP, agree, real_output, simulated_output


@pytest.mark.parametrize("script", [
    "set -u; echo ${X:-d} ${X-e} ${X+f}; X=1; echo $X ${#X}; echo \"$@\" $# $?",
    "set -u; X=; echo \"[$X]\"; set +u; echo \"[$Y]\"",
    "set -u; f() { echo ${1-none}; }; f; f a",
    "set -o nounset; echo ${X:=set}; echo $X",
])
def test_nounset_agrees_with_real_shells(script: str) -> None:
    agree(script)


@pytest.mark.parametrize(("script", "name"), [
    ("set -u; echo $X; echo after", "X"),
    ("set -u; echo \"a ${X}\"; echo after", "X"),
    ("set -u; f() { echo $1; }; f; echo after", "1"),
    ("set -u; echo ${X#a}; echo after", "X"),
])
def test_an_unset_parameter_ends_the_script_as_in_dash(script: str, name: str) -> None:
    assert simulated_output(script) == (f"sh: 1: {name}: parameter not set\n", 2)
    out, status = real_output("dash", script)
    assert status == 2 and out.endswith(f"{name}: parameter not set\n")


def test_sh_u_c_sets_it_too() -> None:
    run = interpret(["sh", "-uc", "echo $1"])
    assert (run.logs, run.exit_code) == (("sh: 1: 1: parameter not set",), 2)


@pytest.mark.parametrize("script", [
    'set -x; x=1; echo "a b" $x; f() { echo in; }; f q "r s"; { echo g; }; (echo s); set +x; echo quiet',
    "set -x; echo a 2>/dev/null; { echo hidden; } 2>/dev/null; echo b > f; cat f",
    "PS4='> '; set -x; echo a; for i in 1 2; do echo $i; done; case a in a) : ;; esac",
    "set -x; x=$(echo sub); y=1 z=2; [ $x = sub ] && echo ok",
    "set -o xtrace; echo *; touch a b; echo *",
])
def test_xtrace_agrees_with_dash(script: str) -> None:
    # bash traces ``for`` / ``case`` lines and quotes words with blanks; kbatch writes dash's trace
    agree(SETUP.removesuffix(" && ") + "\n" + script, ("dash",))
