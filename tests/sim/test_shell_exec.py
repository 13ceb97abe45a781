"""``exec CMD [ARG…]`` in the simulated shell (kbatch.sim.shell_run; POSIX XCU ``exec``, bash(1)
"SHELL BUILTIN COMMANDS"): the command replaces the shell, so the rest of the script does not run,
nor an ``EXIT`` trap, and the shell's status is the command's; in a subshell, a pipeline stage
or a ``$( )`` it ends only that one. Compared with bash ``--posix`` and dash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import unmodelled_command
from tests.sim.real_shell import agree


@pytest.mark.parametrize("script", [
    "echo a; exec echo b; echo c",
    "exec false; echo no",
    "exec true; exit 3",
    "exec cat /nonexist; echo no",
    "trap 'echo t' EXIT; exec echo hi; echo no",
    "(exec echo a; echo no); echo b $?",
    "(exec false); echo $?",
    "echo x | exec cat; echo after $?",
    "exec printf '%s\\n' a b >&2; echo no",
    "f() { exec echo in; echo no; }; f; echo no2",
    "x=$(exec echo sub; echo no); echo $x",
    "echo() { :; }; exec echo external",  # a program, not the function
    "for i in 1 2; do exec echo $i; done; echo no",
    "if true; then exec echo v; fi; echo no",
])
def test_exec_replaces_the_shell_as_in_bash_and_dash(script: str) -> None:
    agree(script)
    agree(script, ("bash",), as_bash=True)


def test_exec_of_a_function_or_with_options_is_not_modelled() -> None:
    assert unmodelled_command(["sh", "-c", "f() { :; }; exec f"]) == "exec f"
    assert unmodelled_command(["bash", "-c", "exec -a x echo a"]) == "exec -a x echo a"
    assert unmodelled_command(["sh", "-c", "exec X=1 echo a"]) == "exec X=1 echo a"  # X=1: the program
    assert unmodelled_command(["sh", "-c", "exec echo a; echo b"]) is None


_BEFORE = st.sampled_from(["", "echo a; ", "x=1; ", "trap 'echo t' EXIT; ", "false; "])
_COMMAND = st.sampled_from(["echo $x", "false", "true", "cat /none", "printf '%s-\\n' p q", "test -n \"$x\"",
                            "wc -l < /dev/null"])
_AFTER = st.sampled_from(["", "; echo after", "; exit 7", " && echo and", " || echo or"])


@settings(max_examples=40, deadline=None)
@given(_BEFORE, _COMMAND, _AFTER, st.booleans())
def test_generated_exec_scripts_agree(before: str, command: str, after: str, subshell: bool) -> None:
    body = f"exec {command}{after}"
    agree(before + (f"({body}); echo status $?" if subshell else body))
