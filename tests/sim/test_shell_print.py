"""bash's ``declare -f`` / ``typeset -f`` / ``declare -F`` listings of a simulated script's
functions (kbatch.sim.shell_print; bash ``print_cmd.c``'s layout), compared with bash: example
functions and generated ones over the constructs the simulated shell parses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import agree

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    'f() { local x=1; if [ "$x" = 1 ]; then echo a | tr a b; elif true; then :; else echo c > f; fi; '
    "for i in 1 2; do echo $i; done; while false; do break; done; case $x in a|b) echo ab;; *) ;; esac; "
    "(cd /; pwd) && { echo g; } || echo h; ! false; x=2; }; declare -f f",
    "g() ( echo sub ); declare -f g; m() { if a; then b; fi; }; declare -f m; typeset -f",
    'h() { echo   "a  b"   2>&1 >/dev/null; x=$(date) y=`pwd`; until true; do :; done; for j; do :; done; '
    "for k in; do :; done; a && b || c; echo x >>f 2>/dev/null <in; }; declare -f h",
    "function k { :; } >log; declare -f k",
    'p() if a; then b; fi; declare -f p; q() { while read l; do echo "$l"; done < f; '
    "cat f | while read l; do :; done; }; declare -f q",
    "r() { case $1 in start) echo s; echo t;; stop|halt) ;; esac; }; declare -f r; "
    "declare -f nosuch; echo $?",
    "a() { b() { echo in; }; b; }; declare -f a; a; declare -F",
    "t() { if a; then :; elif b; then :; elif c; then d; fi; if ! x; then y; fi; }; declare -f t",
    "u() { { a; b; } > f 2>&1; (a; b) | c; a || { b; c; }; }; declare -f u",
    "v() { for i in $(seq 3) \"a b\" 'c'; do echo \"$i\" >&2; read x <&0; done; }; declare -f v",
    "w() { while true; do if x; then break; fi; done & }; declare -f w",
    "x() { echo hi; }; y() { x; }; declare -f y x; declare -F y z x; echo $?; declare -F",
])
def test_function_listings_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


_SIMPLE = st.sampled_from(["echo a", "x=1", ":", "echo b > f", "a && b || c", "cat f | wc -l", "! false",
                           "echo $x 2>&1", "read l < f", 'echo "q  r" >&2'])


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Compound commands around ``inner`` ones (a ``( … )`` holds simple ones: the simulated shell
    does not parse ``( case … esac )``)."""
    body = st.lists(inner, min_size=1, max_size=3).map("; ".join)
    return st.one_of(
        st.builds("if {}; then {}; fi".format, _SIMPLE, body),
        st.builds("if {}; then {}; elif {}; then {}; else {}; fi".format, _SIMPLE, body, _SIMPLE, body, body),
        st.builds("for i in 1 2; do {}; done".format, body),
        st.builds("while {}; do {}; done".format, _SIMPLE, body),
        st.builds("until {}; do {}; done".format, _SIMPLE, body),
        st.builds("case $x in a|b) {};; *) {};; esac".format, body, body),
        st.builds("{{ {}; }}".format, body),
        st.builds("( {} )".format, st.lists(_SIMPLE, min_size=1, max_size=3).map("; ".join)),
        st.builds("{{ {}; }} > log".format, body),
    )


_COMMAND = st.recursive(_SIMPLE, _compound, max_leaves=6)


@settings(max_examples=30, deadline=None)
@given(st.lists(_COMMAND, min_size=1, max_size=4))
def test_generated_functions_list_as_bash_lists_them(commands: list[str]) -> None:
    agree(f"f() {{ {'; '.join(commands)}; }}; declare -f f; declare -F", _BASH, as_bash=True)
