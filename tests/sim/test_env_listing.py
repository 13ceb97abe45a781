"""``printenv`` and ``env`` in the simulated shell (``kbatch/sim/env_listing.py``; GNU coreutils and
busybox ``printenv``: every variable, or the values of the operands, status 1 for an unset one)."""

from __future__ import annotations

from kbatch.sim.command import interpret
from kbatch.sim.shell_vocab import modelled

ENV = {"PATH": "/bin", "HOSTNAME": "h"}


def _logs(script: str) -> tuple[tuple[str, ...], int]:
    run = interpret(["sh", "-c", script], ENV, 1.0)
    return run.logs, run.exit_code


def test_printenv_lists_every_variable_by_name() -> None:
    # the shell sets and exports PWD (XCU ``cd``), as dash and bash do
    assert _logs("X=1; printenv")[0] == ("HOSTNAME=h", "PATH=/bin", "PWD=/", "X=1")
    assert _logs("env")[0] == ("HOSTNAME=h", "PATH=/bin", "PWD=/")


def test_printenv_with_operands_prints_their_values_and_fails_for_an_unset_one() -> None:
    assert _logs("printenv PATH HOSTNAME; echo $?") == (("/bin", "h", "0"), 0)
    assert _logs("printenv PATH NOPE; echo $?") == (("/bin", "1"), 0)
    assert _logs("printenv NOPE")[1] == 1


def test_env_in_a_pipeline_and_env_running_a_command_is_not_modelled() -> None:
    assert _logs("env | grep PATH")[0] == ("PATH=/bin",)
    assert modelled(["env"]) and modelled(["printenv", "PATH"])
    assert not modelled(["env", "A=1", "true"])
    assert _logs("env A=1 true")[0] == ()
