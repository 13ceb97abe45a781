"""bash's conditional command ``[[ … ]]`` with ``&&``, ``||``, ``!`` and ``( … )`` in the simulated
``bash -c`` (kbatch.sim.shell_cond), compared with the machine's bash (not ``--posix``), generated
expressions too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import real_output, simulated_output


def _agree(script: str) -> None:
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


@pytest.mark.parametrize("script", [
    "[[ a && b ]]; echo $?; [[ a && '' ]]; echo $?; [[ '' || b ]]; echo $?; [[ '' || '' ]]; echo $?",
    "[[ ( a ) ]]; echo $?; [[ (a) ]]; echo $?; [[ ! ( a ) ]]; echo $?",
    "[[ ! '' ]]; echo $?; [[ ! ! a ]]; echo $?",
    "[[ a || b && '' ]]; echo $?; [[ ( a || b ) && '' ]]; echo $?; [[ ! a || b ]]; echo $?",
    "[[ a&&b ]]; echo $?; [[ ''||b ]]; echo $?",
    "x='a b'; [[ -n $x && $x == a* ]]; echo $?; [[ $x == \"a b\" ]]; echo $?",
    "[[ -z $u || $u == x ]]; echo $?",
    "[[ -n $u ]]; echo $?; [[ $u ]]; echo $?; [[ \"&&\" ]]; echo $?; [[ \"(\" ]]; echo $?",
    "x=; [[ $x || $((y=1)) ]]; echo $? $y; [[ 1 -eq 2 && $((z=1)) ]]; echo $? $z.",
    "[[ 1 -eq 1 && 1+1 -eq 2 || $((w=1)) ]]; echo $? $w.",
    "touch f; [[ -f f && ! -f g ]]; echo $?; [[ -f g || -d . ]]; echo $?",
    "x=ab; [[ $x =~ ^(a|c)b$ && ! $x =~ \"(a\" ]]; echo $?; [[ abc =~ b ]]; echo $?",
    "x=xy; [[ $x =~ (x|z)y && ( $x =~ (q) || b ) ]]; echo $?",
    "[[ a < b && b > a ]]; echo $?; [[ a<b ]]; echo $?",
    "[[ 1/0 -eq 1 || a ]]; echo $?; [[ ! 1/0 -eq 1 ]]; echo $?; [[ 1/0 -eq 1 && a ]]; echo $?",
    "[[ a =~ [ ]]; echo $?; [[ ! a =~ [ ]]; echo $?; [[ a =~ [ || a ]]; echo $?; [[ a =~ [ && a ]]; echo $?",
    "a=(1); [[ a[1/0] -eq 1 || b ]]; echo never",
    "if [[ a && ( b || '' ) ]]; then echo y; fi; [[ a ]] && [[ b || c ]] | cat; echo $?",
    "f() { [[ $1 == y* || ( -n $2 && $2 -gt 3 ) ]]; }; f yes; echo $?; f no 4; echo $?; f no 2; echo $?",
    "[[ a &&\n b ]]; echo $?",
    "set -x; [[ ! ( a ) ]]; [[ ! ( ! a ) ]]; [[ ! ! a ]]; [[ a && ( b == c || ! 1 -eq 2 ) ]]; [[ $u ]]",
    "x='a b'; touch f; set -x; [[ $x ]]; [[ $x == \"a \"* ]]; [[ $x =~ ^a\" \"b$ ]]; [[ -f f && 1+1 -eq 2 ]]",
])
def test_double_bracket_combines_primaries_as_bash(script: str) -> None:
    """``[[ … ]]``'s ``&&``, ``||``, ``!`` and parentheses (bash(1) "[[ expression ]]"): ``!`` over
    ``&&`` over ``||``, the right side expanded only when needed, words not split, an unset
    operand an empty string, each primary traced as it is evaluated. The sim split the command at
    ``&&`` / ``||`` and answered 2 for the rest."""
    _agree(script)


_PRIMARIES = st.sampled_from([
    "a", "''", "$u", "-n $a", "-z $b", "-z $a", "$a == x*", "$a == \"x*\"", "$b != y", "$n -eq 2",
    "$n -lt 1+1", "-f f", "-f g", "$a =~ ^x", "$a =~ y$", "$((k+=1)) -gt 0", "$a < $b", "$s == 'p q'",
    "$s", "$a =~ (x|z)y", "x$a == x'x'?", "1/0 -eq 1", "'!'", "\"&&\"",
])


def _expression(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _PRIMARIES
    inner = _expression(depth - 1)
    return st.one_of(
        inner,
        inner.map(lambda e: f"! {e}"),
        inner.map(lambda e: f"( {e} )"),
        st.tuples(inner, st.sampled_from(["&&", "||"]), inner).map(" ".join),
    )


@settings(max_examples=60, deadline=None)
@given(_expression(3))
def test_generated_double_bracket_expressions_agree_with_bash(expression: str) -> None:
    """Primaries joined by ``&&``, ``||``, ``!`` and parentheses give bash's status, and a counter
    in one (``$((k+=1))``) shows which primaries were expanded."""
    _agree(f"a=xy; b=; n=2; k=0; s='p q'; touch f; [[ {expression} ]]; echo $? $k")
