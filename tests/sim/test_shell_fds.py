"""File descriptors beyond 0-2 in the simulated shell (kbatch.sim.shell_fds; POSIX "Shell Command
Language" 2.7.1-2.7.6, XCU ``exec``; bash(1) "REDIRECTION", ``read -u``): ``exec 3<f``,
``exec 4>f``, ``exec 3>&-``, ``cmd >&3``, ``cmd 3>f``, ``read <&3``, a group's or a loop's ``3<f``.
Each script is compared with dash and with bash (``bash -c``, not in POSIX mode: the simulated
``bash -c`` is bash's own mode), dash's messages read as the ``sh`` a container runs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import SHELLS, real_output, simulated_output

_LINES = "printf 'a\\nb\\nc\\n' > f; "


def _agree(script: str, shells: tuple[str, ...] = SHELLS) -> None:
    """The simulated ``sh -c`` prints what dash prints (its messages' ``dash:`` read as ``sh:``, the
    name a container's ``/bin/sh`` has) and ``bash -c`` what bash prints, with their status."""
    for shell in shells:
        real, status = real_output(shell, script, posix=False)
        real = real.replace("dash: ", "sh: ")
        assert simulated_output(script, shell="bash" if shell == "bash" else "sh") == (real, status), shell


@pytest.mark.parametrize("script", [
    # exec with only redirections: the shell's own descriptors from then on (XCU exec)
    _LINES + "exec 3<f; read -r x <&3; read -r y <&3; echo $x$y; exec 3<&-; read x <&3; echo $?",
    _LINES + "exec 4>o; echo one >&4; echo two 1>&4; exec 4>&-; cat o; echo three >&4; echo $?",
    _LINES + "exec 4>>o; echo a >&4; exec 4>>o; echo b >&4; cat o",
    # a command's own descriptor, and a copy into standard output
    _LINES + "echo x 3>g >&3; cat g; cat <&3; echo $?",
    # a group's and a loop's descriptor: one stream for all of it
    _LINES + "{ read -r a <&3; read -r b <&3; } 3<f; echo $a$b",
    _LINES + "while read -r l <&3; do echo \"l=$l\"; done 3<f; echo end",
    _LINES + "exec 3<f; while read -r l; do echo \"<$l>\"; read -r m <&3 && echo \"m=$m\"; done < f",
    # copies share the offset (one open file description)
    _LINES + "exec 3<f; exec 5<&3; read -r x <&3; read -r y <&5; echo $x $y",
    # >&2, 1>&2: standard error, which a substitution does not capture and 2> sends on
    "x=$(echo err >&2; echo out); echo \"[$x]\"; { echo gone >&2; } 2>/dev/null; echo kept",
    "exec 3>&1; x=$(echo direct >&3; echo cap); echo \"[$x]\"; (echo sub >&3)",
    "exec >o; echo hidden; exec >&2; cat o",
    # the shell's standard input from a file
    _LINES + "exec <f; read -r a; read -r b; echo $a$b; cat",
    # not open: Bad file descriptor, the command not run (dash 2, bash 1); exec's ends dash
    "echo hi >&3; echo $?; read x <&4; echo $?; cat 0<&7; echo $?",
    "exec 5<&3; echo after $?",
    "exec 3<none; echo after $?",
])
def test_descriptors_agree_with_dash_and_bash(script: str) -> None:
    _agree(script)


@pytest.mark.parametrize("script", [
    _LINES + "exec 3<f; read -u 3 a; read -u3 b; echo $a$b; read -u 0 c <<< q; echo $c",
    _LINES + "while read -r -u 3 l; do echo \"l=$l\"; done 3<f",
    "read -u 5 x; echo $?; read -u x y; echo $?",
])
def test_read_u_agrees_with_bash(script: str) -> None:
    _agree(script, ("bash",))


def test_exec_with_only_redirections_is_modelled() -> None:
    run = interpret(["sh", "-c", "exec 3>/tmp/log; echo a >&3; exec 3>&-; cat /tmp/log"])
    assert (run.logs, run.exit_code, run.warning) == (("a",), 0, "")


_STEPS = st.sampled_from([
    "exec 3<f", "exec 3<&-", "exec 4>o", "exec 4>>o", "exec 4>&-", "exec 5<&3", "exec 5<&-",
    "read -r x <&3; echo \"r3=$? $x\"", "read -r x <&5; echo \"r5=$? $x\"", "echo w$? >&4", "cat o",
    "{ read -r x; echo \"g=$x\"; } <&3", "echo e 4>o >&4", "cat <&3", "echo $?",
    "while read -r l <&3; do echo \"l=$l\"; done 3<f", "{ echo in; } >&4 3<&-",
])


@settings(max_examples=40, deadline=None)
@given(st.lists(_STEPS, min_size=1, max_size=8), st.sampled_from(SHELLS))
def test_generated_descriptor_scripts_agree(steps: list[str], shell: str) -> None:
    _agree(_LINES + "; ".join(steps) + "; echo end $?", (shell,))


def test_a_read_on_a_descriptor_loop_is_not_a_loop_forever() -> None:
    # every line the same: only the descriptor's offset moves between iterations
    script = "printf 'a\\na\\n' > f; exec 3<f; while read -r l <&3; do echo $l; done; echo done"
    assert simulated_output(script) == ("a\na\ndone\n", 0)
