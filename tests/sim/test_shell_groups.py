"""``{ LIST; }`` groups and ``( LIST )`` subshells in the simulated shell (POSIX "Shell Command
Language" 2.9.4.1, 2.12): each script's output and status compared with bash ``--posix`` and dash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_syntax import Group, parse_script
from tests.sim.real_shell import SETUP, agree


@pytest.mark.parametrize("script", [
    "{ echo a; echo b; } > f; cat f; { echo c; } >> f; cat f",
    "{ echo a; echo b; } | tail -1; (echo c; echo d) | wc -l",
    "x=1; { x=2; }; echo $x; (x=3; echo in $x); echo $x",
    "(exit 3); echo $?; (false) || echo failed; { false; } && echo no || echo yes",
    "mkdir d; (cd d; touch inside); ls; ls d",
    "echo x | (read v; echo got $v); echo x | { read w; echo got $w; }",
    "{ echo out; ls nothere; } 2>&1 | wc -l",
    "set -e; (false; echo not printed); echo not reached",
    "set -e; (set +e; false; echo in); echo out",
    "( (echo nested; exit 4); echo $? ); if { true; }; then echo yes; fi",
    "trap 'echo bye' EXIT; (exit 2); echo $?",
    "(trap 'echo sub-bye' EXIT; echo in); echo out",
    "x=a; (x=b; y=c); echo \"[$x][$y]\"; (set -f; echo *); touch z; echo *",
    "{ echo a\necho b\n}\n(\necho c\n)",
    "for i in 1 2; do (echo $i; exit $i); echo status $?; done",
    "{ echo one; } < /dev/null; (read l || echo none) < /dev/null",
    "(echo a) && { echo b; } || echo c; ! { false; } && echo negated",
    "f=$( (echo sub) ); echo \"[$f]\"",
])
def test_groups_and_subshells_agree_with_real_shells(script: str) -> None:
    agree(SETUP + script)


def test_a_subshell_takes_time_as_the_shell_does() -> None:
    run = interpret(["sh", "-c", "(sleep 5; echo a; exit 3); echo $?; { sleep 2; echo b; }"])
    assert (run.duration, run.exit_code) == (7.0, 0)
    assert (run.logs, run.log_offsets) == (("a", "3", "b"), (5.0, 5.0, 7.0))


def test_the_tree() -> None:
    nodes = parse_script("{ echo a; } > f; (cd d; echo b)")
    assert nodes is not None and isinstance(nodes[1], Group) and nodes[1].subshell


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9)), min_size=1, max_size=4),
       st.sampled_from(["exit 1", "cd /", "set -e", "true"]))
def test_nothing_a_subshell_does_reaches_its_shell(assignments: list[tuple[str, int]], last: str) -> None:
    inside = "; ".join(f"{name}={value}" for name, value in assignments)
    run = interpret(["sh", "-c", f"a=x; b=y; c=z; ({inside}; {last}); echo $a $b $c; false; echo on"])
    assert run.logs == ("x y z", "on")
