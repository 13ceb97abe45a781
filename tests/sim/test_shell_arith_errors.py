"""bash's words for an arithmetic error in the simulated shell (kbatch.sim.shell_arith; bash's
``expr.c`` ``evalerror``: ``EXPR: WHAT (error token is "REST")``), in ``$(( ))``, ``(( ))``, ``let``,
an array subscript and an integer variable's value: each script run as the sim's ``bash -c`` and
compared with the machine's bash (not ``--posix``: a container's ``bash -c``), generated
expressions too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import real_output, simulated_output

_EXPRESSIONS = [
    "1/0", " 1 / 0 ", "1/0+3", "1/(2-2)", "7%0", "x/=0", "2**-1", "2**-1+3", "2+", "2+*3", "3 @ 4",
    "1 2", "08", "09+1", "2#3", "0xg", "10#", "1#2", "65#2", "2#1#1", "1=2", "1?2", "1?2:", "1 ? : 2",
    "1 ?", "$", "1 +", "1 ++", "x++ ++", "(1) @ 2", "x++ @ 2", "1/0 @", "1 2 08", "(1", "(1 + 2",
    "y", "z*2", "w", "u+1", "64#zz+0x1f+010", "++1", "--1 ++2", "x[1", "1 ? 2 : 1/0", "0 && 1/0",
]
_VARIABLES = "x=3; y=x; z='1 +'; w=' 1/0 '; u=08; "


def _agree(script: str) -> None:
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


@pytest.mark.parametrize("expression", _EXPRESSIONS)
def test_an_arithmetic_error_is_worded_as_bash_words_it(expression: str) -> None:
    """The expression with its leading blanks dropped, bash's words (``division by 0``, ``syntax
    error: operand expected``, ``syntax error: invalid arithmetic operator``, ``syntax error in
    expression``, ``value too great for base``, ``exponent less than 0``…) and the rest of the
    expression from the token bash's reader stopped at; ``$(( ))`` ends the script with 1,
    ``(( ))`` and ``let`` answer 1. The sim said ``arithmetic expression: division by zero``."""
    quoted = expression.replace("'", "'\\''")
    for script in (f"echo $(({expression})); echo after", f"(({expression})); echo $?",
                   f"let '{quoted}'; echo $?"):
        if "(1" in expression and not script.startswith("let"):
            continue  # no arithmetic at all for bash's parser
        _agree(_VARIABLES + script)


@pytest.mark.parametrize("script", [
    "a[1/0]=x; echo after", "a=(1 2); echo ${a[2+]}; echo after", "a=(1); echo $((1+a[2+])); echo after",
    "declare -i n; n='1/0'; echo after", "declare -i n; n=08; echo after", "x=x; echo $((x)); echo after",
    "x=y; y=x; echo $((x+1))", "r=1; readonly r; echo $((r=2)); echo after",
    "a=(1); echo $((a[1/0])); echo after", "let x=1 '2 3' y=2; echo $? $x $y",
    "a=(1 2); unset 'a[1/0]'; echo after", "a=(1); (( a[1/0] = 2 )); echo after", "let 'a[2+]'; echo after",
    "x=abc; echo ${x:1/0}; echo after", "x=abc; echo ${x:1:2**-1}; echo after",
    "for ((i=0; i<1/0; i++)); do :; done; echo after", "let; echo $?; let --; echo $?; let -- 1+1; echo $?",
    "x='$y'; y=5; echo $((x)); echo after", "unset 'a[1/0]'; echo $? after",
    "declare -A m; unset 'm[1/0]'; echo $? after", "x=(); unset 'x[1/0]'; echo $? after",
    "for ((i=0 ; i<1/0 ;  i++  )); do :; done; echo $? after",
    "for ((i=1/0; i<3; i++)); do echo x; done; echo $?", "for ((i=0; i<3; i=1/0)); do echo x; done; echo $?",
    "for (( ; ; )); do echo y; break; done; echo $?",
    "x=2; let 'x++1x'; echo $? $x", "x=2; let '++x 1x'; echo $? $x", "x=2; let 'x-- 08'; echo $? $x",
])
def test_an_arithmetic_error_elsewhere_is_worded_as_bash_words_it(script: str) -> None:
    """Subscripts and integer variables say the same, and a subscript's error ends the script even
    in ``(( ))`` and ``let`` (arrayfunc.c ``array_expand_index``); ``${x:OFF}`` names ``x``; a
    variable's value is an expression of its own (``y=x``, ``z='1 +'``: bash's ``expr_streval``),
    whose error names it; a chain that never ends is bash's ``expression recursion level exceeded``
    (1024 levels). ``unset 'a[1/0]'`` raised out of the sim, and of no ``a`` it is nothing at all.
    A variable's value is read by bash's own reader, which has no ``$`` (``x='$y'``). An error in a
    ``for ((…))`` expression ends the loop with 1 (``execute_arith_for_command``), the expression
    named with its trailing blanks. ``x++`` stores before bash reads the token after it; ``++x``
    does not."""
    _agree(script)


_TOKENS = st.sampled_from(["1", "0", "08", "2#1", "x", "+", "-", "*", "/", "%", "**", "(", ")", "?", ":",
                           "=", "<", "&&", "@", ",", "++", " "])


@settings(max_examples=60, deadline=None)
@given(st.lists(_TOKENS, min_size=1, max_size=6).map("".join))
def test_generated_expressions_fail_or_not_as_in_bash(expression: str) -> None:
    """Property: ``let`` of an expression made of numbers (good and bad), a variable, operators,
    parentheses and a stray character prints what bash prints, and answers its status."""
    quoted = expression.replace("'", "'\\''")
    _agree(f"x=2; let '{quoted}'; echo $? $x")


@pytest.mark.parametrize("script", [
    "[[ 1/0 -eq 1 ]]; echo after $?", "[[ 1+1 -eq 2 ]] && echo yes; x=3; [[ x -gt 2 ]] && echo yes",
    "[[ 08 -eq 8 ]]; echo $?", "[[ ' 2 ' -eq 2 ]]; echo $?; [[ '' -eq 0 ]]; echo $?; [[ a -eq 0 ]]; echo $?",
    "a=(1); [[ a[1/0] -eq 1 ]]; echo never", "[[ ! 2 -eq 1+1 ]]; echo $?",
])
def test_double_bracket_integer_operands_are_arithmetic(script: str) -> None:
    """bash's ``[[ A -eq B ]]`` (and ``-ne -lt -le -gt -ge``) evaluates both operands as
    arithmetic expressions (bash(1) "CONDITIONAL EXPRESSIONS"), an error worded as ``[[: EXPR: …``
    with status 1; the sim compared them as decimal integers (status 2 for ``1+1``)."""
    _agree(script)
