"""bash's arithmetic ``for (( INIT ; COND ; STEP ))`` in the simulated shell (bash(1) "Compound
Commands"; kbatch.sim.shell_syntax reads it as ``(( INIT ))`` and a ``while (( COND ))`` whose STEP
runs after each iteration, ``continue`` too): compared with bash, generated loops too."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import agree


@pytest.mark.parametrize("script", [
    'for ((i=0; i<3; i++)); do echo $i; done; echo "end $i $?"',
    "for ((i=0;i<5;i++)) do [ $i = 1 ] && continue; echo $i; [ $i = 3 ] && break; done",
    "n=0; for ((;;)) do (( n++ )); [ $n -gt 2 ] && break; done; echo $n",
    "for (( i = 3 ; i > 0 ; i -= 1 ))\ndo\n  echo \"i=$i\"\ndone",
    "for ((j=0; j<2; j++)); do for ((k=0; k<2; k++)); do echo $j$k; done; done",
    "false; for ((i=5; i<3; i++)); do echo never; done; echo $?",
    "for ((i=0; i<2; i++)); do false; done; echo $?",
    "for ((i=0, j=4; i<j; i++, j--)); do echo $i $j; done | sort -r",
    "for ((i=0; i<9; i++)); do for ((;;)); do break 2; done; done; echo $i",
])
def test_arithmetic_for_agrees_with_bash(script: str) -> None:
    agree(script, ("bash",), as_bash=True)


def test_an_endless_arithmetic_for_runs_until_killed() -> None:
    run = interpret(["bash", "-c", "for ((;;)); do echo tick; sleep 10; done"])
    assert run.duration == math.inf and run.logs[:2] == ("tick", "tick") and run.warning == ""


@settings(max_examples=40, deadline=None)
@given(st.integers(-3, 3), st.sampled_from(["<", "<=", ">", "!=", ""]), st.integers(-3, 4),
       st.sampled_from(["i++", "i+=2", "i--", "++i", ""]), st.sampled_from(["", "continue", "break"]),
       st.integers(-3, 3))
def test_generated_arithmetic_for_agrees_with_bash(start: int, op: str, bound: int, step: str, jump: str,
                                                   at: int) -> None:
    condition = f"i {op} {bound}" if op else ""
    guard = f"[ $i = {at} ] && {jump}; " if jump else ""
    script = (f"n=0; for ((i={start}; {condition}; {step})); do (( n++ > 6 )) && break; {guard}"
              'echo "$i"; done; echo "end $i $n $?"')
    agree(script, ("bash",), as_bash=True)
