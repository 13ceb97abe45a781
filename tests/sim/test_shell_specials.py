"""``$$``, ``$!``, ``$-``, ``PWD``/``OLDPWD``, ``cd -`` and ``pwd`` in the simulated shell (POSIX "Shell
Command Language" 2.5.2-3, XCU ``cd``, ``pwd``; kbatch.sim.shell_pids): compared with dash and bash,
the PIDs in a fresh PID namespace (``unshare -pf``) as a container's are."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from kbatch.sim.command import interpret
from tests.sim.real_shell import SHELLS, agree, simulated_output


@pytest.mark.parametrize("script", [
    'mkdir -p d/e; cd d; echo "[${OLDPWD#$D}]"; cd e; p=$(pwd); echo "${p#$D}"; cd ..; echo ${PWD#$D}; '
    'cd - >/dev/null; echo $? "[${PWD#$D}]" "[${OLDPWD#$D}]"',
    'cd /; cd - >/dev/null; [ "$PWD" = "$D" ] && echo back; cd /nonexist 2>/dev/null || echo failed; '
    'echo "[${PWD#$D}]"',
    '(cd /; pwd); echo "[${PWD#$D}]"; mkdir x; cd x; cd ..; echo "${OLDPWD#$D}"; cd - >/dev/null; '
    'echo "${PWD#$D}"',
])
def test_pwd_and_cd_agree_with_real_shells(script: str) -> None:
    agree('mkdir -p "$D" && cd "$D" && ' + script)


@pytest.mark.parametrize(("argv", "flags"), [
    (["sh", "-c", "echo $-"], ""), (["sh", "-euc", "echo $-"], "ue"),
    (["sh", "-c", "set -efux; echo $-"], "uxfe"), (["bash", "-c", "echo $-"], "hBc"),
    (["bash", "-ec", "echo $-"], "ehBc"), (["bash", "-c", "set -u; echo $-"], "huBc"),
])
def test_dollar_dash_lists_the_options_as_each_shell_does(argv: list[str], flags: str) -> None:
    """dash lists its set options from its table's end, bash in its own order with ``h``, ``B`` and
    ``c`` (``bash -c 'echo $-'`` is ``hBc``): what each prints."""
    assert interpret(argv).logs[-1] == flags


@pytest.mark.parametrize("shell", SHELLS)
def test_dollar_dash_agrees(shell: str) -> None:
    script = 'echo "[$-]"; set -eu; echo "[$-]"; set +e -f; echo "[$-]"'
    agree(script, (shell,), as_bash=shell == "bash")


_PIDS = [
    "echo $$; sleep 0; x=$(true); (true); true | true; sleep 0 & echo $!; sleep 0 & echo $!",
    "(sleep 0; sleep 0); true & echo $!; (echo $$)",
    "x=$(echo a); cat /dev/null; ls >/dev/null; true & echo $!; wait $!; echo $?",
    "f() { sleep 0; }; f; { sleep 0; }; true & echo $!",
]


def _unshared(shell: str, script: str) -> str:
    done = subprocess.run(["unshare", "-pf", shell, "-c", script], capture_output=True, text=True, timeout=20,
                          check=False)
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip("no PID namespace here: " + done.stderr.strip())
    return done.stdout


@pytest.mark.skipif(shutil.which("unshare") is None, reason="no unshare")
@pytest.mark.parametrize("script", _PIDS)
@pytest.mark.parametrize("shell", SHELLS)
def test_pids_are_what_a_container_s_shell_sees(shell: str, script: str) -> None:
    """The shell is PID 1 of the container's namespace; the processes it forks are numbered in turn."""
    simulated = simulated_output(script.replace("$", "$$"), shell="bash" if shell == "bash" else "sh")
    assert simulated[0] == _unshared(shell, script)


def test_an_unset_background_pid_and_loops_that_differ_only_in_it() -> None:
    assert interpret(["sh", "-c", 'echo "[$!]"']).logs == ("[]",)
    # each iteration's job gets a new PID, and the loop still runs until the container is killed
    run = interpret(["sh", "-c", "while :; do\n  sleep 5 &\n  wait $!\ndone"])
    assert run.duration == float("inf") and run.warning == ""
