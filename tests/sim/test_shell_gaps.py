"""Shell forms that came out wrong before, compared with the real bash and dash: ``eval`` (XCU
``eval``: its operands read again as commands in the shell itself), a ``case`` inside ``( … )`` or
``$( … )`` (2.9.4.3: a pattern's ``)`` closes no subshell), and a background list inside a compound
command's body (2.9.3: ``f() { a & b; }``, ``do sleep 1 & done``)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SETUP, SHELLS, agree, real_output, simulated_output

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    """eval "w='it'\\''s'"; echo "$w" """,
    'eval "a=1 b=\'x y\'"; echo "$a $b"; eval \'echo "$a"; c=3\'; echo $c',
    'eval; echo "rc $?"; eval false; echo "rc $?"; eval "" true; echo "rc $?"',
    'eval "f() { echo in f \\$1; }"; f arg; eval cd /; pwd',
    'for i in 1 2 3; do eval "v$i=\\$i"; done; echo $v1 $v2 $v3',
    'eval "read x" <<EOF\nline\nEOF\necho "[$x]"; eval "echo a | tr a b"',
    'f() { eval "return 3"; echo never; }; f; echo "rc $?"',
])
def test_eval_agrees(script: str) -> None:
    agree(script)


@pytest.mark.parametrize("script", [
    "[ ! = ! ]; echo $?; [ '!' != x ]; echo $?; [ ! -eq 1 ] 2>/dev/null; echo $?",
    "[ ! ! = x ]; echo $?; test ! = !; echo $?",
])
def test_a_binary_test_of_bang_agrees(script: str) -> None:
    agree(script)


_INTEGER_ERRORS = [
    "[ a -eq 1 ]; echo $?; test 1 -lt x; echo $?; [ '' -eq 1 ]; echo $?; [ 1x -gt 0 ]; echo $?",
    "[ ' 1 ' -eq 1 ]; echo $?; [ -1 -lt 0 ]; echo $?; [ +1 -eq 1 ]; echo $?; [ 08 -eq 8 ]; echo $?",
    "! [ a -eq 1 ]; echo $?; [ ! a -eq 1 ]; echo $?; [ a -eq b ]; echo $?; [ 1_0 -eq 10 ]; echo $?",
    "[ 99999999999999999999 -eq 1 ]; echo $?; [ 9223372036854775807 -gt -9223372036854775808 ]; echo $?",
    "set -x; [ a -eq 1 ]; echo $?",
]


@pytest.mark.parametrize("script", _INTEGER_ERRORS)
def test_an_integer_test_of_no_integer_is_an_error_in_bash(script: str) -> None:
    """``[ a -eq 1 ]``: bash's ``test.c`` (``legal_number``: blanks around, a sign, decimal digits,
    within ``intmax_t``; else ``integer_expected_error``) says ``[: a: integer expression
    expected``, status 2; the sim answered 2 without a word."""
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    '[ -n a -a -n "" ]; echo $?; [ -n a -o -n "" ]; echo $?; [ a = a -a b = c -o 1 -eq 1 ]; echo $?',
    '[ ! a = b -a ! -z "" ]; echo $?; [ \\( a = a \\) -a \\( -n "" -o b \\) ]; echo $?',
    '[ a -a b ]; echo $?; [ "" -o "" ]; echo $?; [ ! ! a -a b ]; echo $?; [ \\( a \\) ]; echo $?',
    "[ a -a -n ]; echo $?; [ -n ]; echo $?; [ ! -n ]; echo $?; [ -x -a ]; echo $?; [ a \\< b ]; echo $?",
    "[ a b c d e ]; echo $?; [ a b ]; echo $?; [ a b c ]; echo $?; [ \\( a b \\) ]; echo $?",
    "[ \\( a -a b ]; echo $?; test \\( a -a b; echo $?; [ a -a ]; echo $?; [ -q a ]; echo $?",
    "[ a = ]; echo $?; [ ! a b c d ]; echo $?; [ -n a -a -q b ]; echo $?; [ a = a; echo $?",
    "[ x -eq 1 -o a ]; echo $?; [ '' -a x -eq 1 ]; echo $?; [ = = = ]; echo $?; [ -n = -n ]; echo $?",
])
def test_test_with_and_or_parentheses_and_its_errors_agree_with_bash(script: str) -> None:
    """``[ A -a B ]``, ``-o``, ``!`` and ``\\( … \\)`` (XCU ``test`` up to four arguments, bash's
    ``test.c`` ``expr``/``or``/``and``/``term`` beyond) and bash's words for a malformed one (``too
    many arguments``, ``a: unary operator expected``, ``missing `]'``…); the sim answered 2 for
    anything over three arguments and printed nothing."""
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


_TEST_PRIMARIES = st.sampled_from(["a", "''", "-n a", "-z ''", "-z a", "a = a", "a != a", "1 -eq 1",
                                   "2 -lt 1", "-f f", "-d f", "!", "-n", "x -gt 0"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "! ", "\\( "]), _TEST_PRIMARIES, st.sampled_from(["", " \\)"]),
                          st.sampled_from([" -a ", " -o ", " "])), min_size=1, max_size=3))
def test_generated_test_expressions_agree_with_bash(parts: list[tuple[str, str, str, str]]) -> None:
    """Primaries joined by ``-a``/``-o``, some negated or parenthesised (balanced or not): bash's
    status and words."""
    expression = "".join(a + b + c + d for a, b, c, d in parts).rstrip(" -ao")
    script = f"touch f; [ {expression} ]; echo $?; test {expression}; echo $?"
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


@pytest.mark.parametrize("script", _INTEGER_ERRORS[:3])
def test_an_integer_test_of_no_integer_is_an_error_in_dash(script: str) -> None:
    """dash's words for it: ``[: Illegal number: a``."""
    for shell in (s for s in SHELLS if s == "dash"):
        real = real_output(shell, script)
        assert simulated_output(script) == (real[0].replace("dash: ", "sh: "), real[1])


@pytest.mark.parametrize("as_bash", [False, True])
def test_eval_traces_as_each_shell_does(as_bash: bool) -> None:
    agree('set -x; eval "a=1; echo \\$a $(echo s)"; f() { eval "echo in"; }; f',
          ("bash",) if as_bash else tuple(s for s in SHELLS if s == "dash"), as_bash=as_bash)


def test_eval_of_a_quoted_value_gives_it_back() -> None:
    agree('v="it\'s a \\"b\\" \\\\"; eval "w=${v@Q}"; echo "[$w]"', _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    "( case a in a) echo yes;; esac )",
    "x=b; ( case $x in a) echo A;; b) echo B;; esac ); echo after",
    "( case a in (a) echo p;; esac; echo more ) | cat",
    "( if true; then case b in b|c) echo in;; esac; fi ); echo $?",
    'y=$(case q in q) echo got;; esac); echo "$y"; echo "$( ( case z in z) echo deep;; esac ) )"',
    "echo case; ( echo esac ); ( x=case; echo $x )",
    "( case a in a) ( echo nested ) ;; esac; case b in b) echo two;; esac )",
])
def test_case_inside_a_subshell_agrees(script: str) -> None:
    agree(script)


_ARM = st.tuples(st.lists(st.sampled_from(["a", "b", "*", "[ab]", "c|a"]), min_size=1, max_size=2),
                 st.booleans(), st.sampled_from(["echo X", "(echo X)", "case Y in Y) echo X;; esac", "true"]))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from("abc"), st.lists(_ARM, min_size=1, max_size=3),
       st.sampled_from(["( {} )", "echo \"$({})\""]))
def test_generated_case_inside_a_subshell_agrees(word: str, arms: list[tuple[list[str], bool, str]],
                                                 wrapper: str) -> None:
    """A ``case`` with generated arms (``(PAT)`` or ``PAT)``; bodies that nest subshells and another
    ``case``) inside ``( … )`` or ``$( … )``, then a command after it."""
    text = " ".join(f"{'(' if paren else ''}{'|'.join(pats)}) {body.replace('X', str(k))};;"
                    for k, (pats, paren, body) in enumerate(arms))
    agree(f"{SETUP}{wrapper.format(f'case {word} in {text} esac')}; echo after $?")


@pytest.mark.parametrize("script", [
    "f() { (sleep 0.2; echo one) & echo two; wait; }; f; echo done",
    "f() { sleep 0 & echo two; wait; }; f; echo done",
    "g() { echo a & wait; echo b; }; g",
    "for i in 1 2; do (sleep 0.$i; echo $i) & done; wait; echo w",
    "if true; then (sleep 0.1; echo bg) & fi; echo fg; wait",
    "{ (sleep 0.1; echo late) & echo early; }; wait",
])
def test_background_list_in_a_body_agrees(script: str) -> None:
    agree(script)


_PIECE = st.one_of(
    st.text(st.sampled_from("ab*-"), min_size=1, max_size=3),  # unquoted
    st.text(st.sampled_from("a b\"$\\`;&|"), max_size=4).map(lambda t: f"'{t}'"),  # single-quoted
    st.lists(st.one_of(st.sampled_from(list("a b';|&*")), st.sampled_from(["\\$", '\\"', "\\\\", "\\`"])),
             max_size=4).map(lambda parts: '"' + "".join(parts) + '"'),  # double-quoted
    st.sampled_from(list("a'\" $;&|*")).map(lambda c: "\\" + c),  # backslash-escaped
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_PIECE, min_size=1, max_size=5).map("".join))
def test_generated_eval_quoting_agrees(word: str) -> None:
    """A word made of concatenated quoting, assigned through ``eval``: the value is what the
    shell would give the word written in the script."""
    held = "'" + word.replace("'", "'\\''") + "'"
    assume("$$" not in held)  # Kubernetes makes ``$$`` in a container's command ``$`` first
    agree(f"{SETUP}s={held}; eval \"w=$s\"; printf '[%s]\\n' \"$w\"; eval \"printf '<%s>' $s\"; echo")


@settings(max_examples=40, deadline=None)
@given(st.text(st.sampled_from("a \"'$`\\\t\n*;|&!"), max_size=8))
def test_generated_values_come_back_through_eval_of_q(value: str) -> None:
    held = "'" + value.replace("'", "'\\''") + "'"
    assume("$$" not in held)
    agree(f"v={held}; eval \"w=${{v@Q}}\"; printf '%q\\n' \"$w\"; [ \"$v\" = \"$w\" ]; echo $?",
          _BASH, as_bash=True)
