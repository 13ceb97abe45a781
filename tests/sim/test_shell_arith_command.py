"""bash's ``(( EXPR ))`` command and ``let`` in the simulated shell, with bash's ``++``/``--``, ``**``
and ``,`` (kbatch.sim.shell_let, kbatch.sim.shell_arith; bash(1) "ARITHMETIC EVALUATION",
"Compound Commands"): each script run as ``bash -c`` and compared with bash, generated expressions
too; under ``sh -c`` ``$(( ))`` stays dash's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_arith import ArithError, evaluate
from tests.sim.real_shell import SHELLS, agree, real_output

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    "i=1; ((i++)); echo $? $i; ((0)); echo $?; (( x = 5 )); echo $x; ((x -= 5)); echo $? $x",
    'let "y = 2 ** 3" z=0; echo $? $y; n=3; echo $(( n ** 2 )) $((2**3**2)) $((-2**2))',
    "n=3; if (( n > 2 )); then echo big; fi; while (( n-- > 0 )); do echo $n; done; echo $n",
    "i=5; echo $((i++)) $i $((++i)) $((i--)) $((--i)) $((i+=2, i*3)) $i",
    "c=0; for w in a b c; do (( c += ${#w} )); done; echo $c; (( c == 3 )) && echo three",
    "x=2; (( x > 1 )) && (( x < 3 )) || echo no; ! (( x )); echo $?",
    "(( 1/0 )) 2>/dev/null; echo \"rc $?\"; (( 2**-1 )) 2>/dev/null; echo \"rc $?\"",
    "set -e; x=1; (( x )); echo alive; (( x - 1 )); echo never",
    "declare -A seen; for w in b a b; do (( seen[$w]++ )); done; echo ${seen[b]} ${seen[a]}; a=(5 6); "
    "(( a[1] += a[0] * 2 )); i=0; (( a[i+1]++ )); echo ${a[@]}",
    # a compound assignment reads its variable before the right side assigns it (bash; dash after)
    "b=-2; (( b += b += 1 )); echo $b; b=-2; (( b -= b = 5 )); echo $b; b=-2; (( b *= (b = 3) )); echo $b",
    # a variable not evaluated (after ``||``, ``&&``, ``?:``) is 0 unread (``expr_streval``'s ``noeval``)
    "a=3; b=-2; (( 1 || 0 ** b )); echo $?; (( 0 && 0 ** b )); echo $?; (( 1 || 2 ** -1 )); echo $?",
    "a=3; b=-2; (( 0 && a++ ** b )); echo $? $a; (( 1 ? 1 : 2 ** b )); echo $?",
])
def test_arithmetic_commands_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


def test_dash_arithmetic_is_kept_under_sh() -> None:
    """dash has no ``**`` nor ``++``: ``sh -c`` still refuses them in ``$(( ))``."""
    assert interpret(["sh", "-c", "echo $((2**3))"]).exit_code == 2
    assert interpret(["sh", "-c", "i=1; echo $((--i))"]).logs == ("1",)  # ``-(-i)``
    assert interpret(["bash", "-c", "i=1; echo $((--i))"]).logs == ("0",)
    if "dash" in SHELLS:  # dash reads b after the right side assigned it
        assert real_output("dash", "b=-2; echo $(( b -= b = 5 ))")[0] == "0\n"
    assert interpret(["sh", "-c", "b=-2; echo $(( b -= b = 5 ))"]).logs == ("0",)
    with pytest.raises(ArithError):
        evaluate("2 ** -1", {}, bash=True)


_OPERAND = st.one_of(st.integers(-9, 9).map(str), st.sampled_from(["a", "b", "a++", "--b", "++a", "b--"]))
_OPERATOR = st.sampled_from(["+", "-", "*", "**", "%", "<", "==", "&&", "||", ",", "+=", "=", "-="])


@settings(max_examples=60, deadline=None)
@given(_OPERAND, st.lists(st.tuples(_OPERATOR, _OPERAND), max_size=3))
def test_generated_expressions_agree_with_bash(first: str, rest: list[tuple[str, str]]) -> None:
    expression = first + "".join(f" {op} {operand}" for op, operand in rest)
    if any(op in ("+=", "=", "-=") for op, _ in rest) and not first.isidentifier():
        expression = "a = " + expression  # an assignment needs a variable on its left
    agree(f"a=3; b=-2; (( {expression} )) 2>/dev/null; echo $? $a $b", _BASH, as_bash=True)
