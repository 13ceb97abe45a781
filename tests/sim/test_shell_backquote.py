"""Backquoted command substitution in the simulated shell (kbatch.sim.shell_backquote; POSIX "Shell
Command Language" 2.6.3, bash(1) "Command Substitution"): the backslash rules inside the
backquotes, nesting with ``\\```, inside double quotes and assignments. Compared with dash and bash."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_eval import substitutes
from tests.sim.real_shell import SHELLS, agree, real_output, simulated_output


@pytest.mark.parametrize("script", [
    "echo `echo a`; x=`echo \\`echo b\\``; echo $x",
    "x=1; echo `echo $x \\$x '\\$x'` \"`echo \\\"q\\\"`\"",
    "echo `(echo sub)` `echo a; echo b` end",
    "echo \\`x\\`; echo \"\\`y\\` \\$z\"; echo '`w`'",
    "v=`printf 'a\\n\\n'`; echo \"[$v]\"; echo `echo \\\\\\\\`",
    "for w in a b; do echo \"<`echo $w | tr a-z A-Z`>\"; done",
    "echo `echo \\`echo \\\\\\`echo deep\\\\\\`\\``",
    "f() { echo in-f; }; echo \"`f`\"",
])
def test_backquotes_agree_with_dash_and_bash(script: str) -> None:
    agree(script)
    agree(script, ("bash",), as_bash=True)


@pytest.mark.parametrize("script", [
    "for P in 'a' '`'; do echo \"$P\"; done",
    "for P in a \\` \"\\`\" '$(' \"\\$(x)\" '`echo b`'; do echo \"$P\"; done",
    "for P in \"$((1 + 2))\" '`'; do echo \"[$P]\"; done",
])
def test_a_quoted_backquote_in_a_for_word_list_is_a_character(script: str) -> None:
    """A single-quoted or escaped backquote (or ``$(``) among a ``for`` loop's words is data, not
    a command substitution the loop cannot run (POSIX 2.2.2-3): the loop runs as bash's does."""
    agree(script)
    agree(script, ("bash",), as_bash=True)


@pytest.mark.parametrize(("words", "runs"), [
    ("'`'", False), ("\\`", False), ('"\\`x\\`"', False), ("'$(x)'", False), ("$((1))", False),
    ("`x`", True), ('"`x`"', True), ("$(x)", True), ("\"a $(x)\"", True), ("'a'`x`", True),
])
def test_substitutes_tells_a_substitution_from_quoted_characters(words: str, runs: bool) -> None:
    assert substitutes(words) is runs


def test_an_unmodelled_backquoted_command_stays_as_its_dollar_form() -> None:
    run = interpret(["sh", "-c", "echo `hostname`"])
    assert run.logs == ("$(hostname)",)


_TOKENS = st.sampled_from(["a", "$x", "\\$x", "\\\\", "'s q'", "\\`echo n\\`", "\\\\\\$x", "\"$x\"", "b\\c",
                           "\\\\n"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_TOKENS, min_size=1, max_size=4),
       st.sampled_from(["echo {}", "echo \"{}\"", "v={}; echo \"$v\""]))
def test_generated_backquoted_commands_agree(tokens: list[str], context: str) -> None:
    script = "x='1  2'; " + context.format("`echo " + " ".join(tokens) + "`")
    outputs = {shell: real_output(shell, script) for shell in SHELLS}
    assume(len(set(outputs.values())) == 1)  # where bash and dash read it alike (no `echo` escapes)
    for as_shell in ("sh", "bash"):
        assert simulated_output(script, shell=as_shell) == next(iter(outputs.values())), as_shell
