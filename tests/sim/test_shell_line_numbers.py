"""The line an error message of the simulated shell names (kbatch.sim.shell_run.line_prefixed):
dash's ``sh: N: …`` and ``bash -c``'s ``bash: line N: …`` (bash(1) "SHELL BUILTIN COMMANDS",
messages of a non-interactive shell; POSIX XCU ``sh`` "STDERR"), N the line of the script the
command is on: a continuation line (2.2.1) and a here-document's body (2.7.4) count, a ``$( )``'s
lines count from the line it opens on; dash names the line a command starts on, bash the line it
ends on. Each script is compared with dash (its ``dash:`` read as ``sh:``) and with ``bash -c``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import SHELLS, real_output, simulated_output


def _agree(script: str, shells: tuple[str, ...] = SHELLS) -> None:
    for shell in shells:
        real, status = real_output(shell, script, posix=False)
        real = real.replace("dash: ", "sh: ")
        assert simulated_output(script, shell="bash" if shell == "bash" else "sh") == (real, status), shell


@pytest.mark.parametrize("script", [
    "cat <&5",
    "echo a\n\ncat <&5\necho b\ncat <&6",
    "echo a \\\nb\ncat <&5",  # a continuation: its next line counts
    "cat <&5 \\\n  ; echo \\\nx; cat <&6",  # dash: where a command starts, bash: where it ends
    "cat <<E\na\nb\nE\ncat <&5",  # a here-document's body counts
    "x=$(cat <<E\na\nE\n)\ncat <&5; echo $x",
    "echo $(\n\ncat <&5)",  # inside $( ): counted from the line it opens on
    "if true\nthen\n  cat <&5\nfi",
    "for i in 1 2\ndo cat <&5\ndone",
    "x=1\n(\n cat <&7\n)",
    "x=1;(echo\n cat <&7\n)",
    "case a in\n a) cat <&5;;\nesac",
    "# a comment\n\n  cat <&5 # another\n",
])
def test_error_lines_agree_with_dash_and_bash(script: str) -> None:
    _agree(script)


@pytest.mark.parametrize("script", [
    "readonly r=1\n\nr=2",
    "echo a\nset -u\necho $x",
    "echo a\necho ${x?gone}",
    "echo a;\necho ${x!}",
    "f() { shift 2; }\n\nf a\necho not",
])
def test_special_errors_name_dash_s_line(script: str) -> None:
    """Errors whose words are dash's: the simulated ``sh -c`` prints what dash prints."""
    _agree(script, tuple(s for s in SHELLS if s == "dash"))


def test_bash_readonly_and_descriptor_errors_name_bash_s_line() -> None:
    _agree("cat <&5\nreadonly r=1\necho a\nr=2", tuple(s for s in SHELLS if s == "bash"))


def test_command_line_options_do_not_move_the_lines() -> None:
    # ``sh -uc``: the option is set before the script, whose first line stays line 1
    assert interpret(["sh", "-uc", "echo a\necho $1"]).logs == ("a", "sh: 2: 1: parameter not set")


_LINE = st.sampled_from([
    "echo a", "", "# note", "cat <&5", "echo b \\\n  c", "cat <<E\nx\nE", "true && cat <&6",
    "if true\nthen cat <&7\nfi", "echo $(\n  cat <&4)", "( cat <&8 )", "x=1; cat <&9 \\\n ; echo z",
])


@settings(max_examples=40, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=6), st.sampled_from(SHELLS))
def test_generated_scripts_name_the_lines_the_real_shells_name(lines: list[str], shell: str) -> None:
    _agree("\n".join(lines), (shell,))


@pytest.mark.parametrize("script", [
    "echo $LINENO\necho $LINENO", "f() {\n  echo in $LINENO\n}\necho $LINENO; f",
    "for i in 1 2; do\n  echo $LINENO $i\ndone", "echo $(echo $LINENO)\nx=$(\necho $LINENO)\necho $x",
    "echo a \\\n  $LINENO", "if true\nthen echo $LINENO\nfi", "(( 1 ))\necho $LINENO; echo $LINENO",
])
def test_bash_lineno_is_the_line_the_command_starts_on(script: str) -> None:
    """``$LINENO`` under ``bash -c`` (bash(1) "Shell Variables"); docs/simulation.md lists where
    kbatch's differs (a later command of a multi-line and-or list)."""
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["echo $LINENO", "", ":", "f", "g() { echo g $LINENO; }",
                                 "for i in 1; do echo $LINENO; done"]), min_size=1, max_size=6))
def test_generated_scripts_agree_with_bash_on_lineno(lines: list[str]) -> None:
    """Property: any script of those lines prints bash's ``$LINENO``s (``f`` not defined is the
    sim's "anything else", so it is given a body first)."""
    script = "f() {\n  echo f $LINENO\n}\n" + "\n".join(lines)
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script
