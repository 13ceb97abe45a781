"""Parameter expansion operators in a simulated script (POSIX "Shell Command Language" 2.6.2; bash(1)
"Parameter Expansion" for the substring and replacement forms; :mod:`kbatch.sim.shell_params`),
compared with bash ``--posix`` and dash through :mod:`tests.sim.real_shell`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SHELLS, agree, real_output, simulated_output

_BOTH = [
    # unset, empty and set, with and without the colon
    'unset U; E=; S=s; echo "[${U-u}] [${E-u}] [${U:-u}] [${E:-e}] [${S:-x}]"',
    'unset U; E=; S=s; echo "[${U+p}] [${E+p}] [${E:+p}] [${S:+p}] [${U:+p}]"',
    'unset U; E=; echo "${U=one} $U"; echo "[${E=two}] [$E]"; echo "${E:=three} $E"',
    'X=${RANK:-0}; echo "rank $X"; RANK=3; echo "rank ${RANK:-0}"',
    # the word is expanded, and only when used
    'D=def; echo ${U:-$D-$((1+2))} ${U:-"a  b"} "${U:-$(echo sub)}"; S=s; echo ${S:-$(echo never >&2)}',
    # length, prefix and suffix removal with patterns
    'H=trainer-worker-3; echo ${#H} ${H##*-} ${H#*-} ${H%-*} ${H%%-*} ${H#nomatch}',
    'F=/data/run/model.tar.gz; echo ${F##*/} ${F%/*} ${F%.*} ${F%%.*} ${F#/} ${F%.t?r.gz}',
    'P=a*b; echo "${P#"a*"}" "${P#a\\*}" ${P#a?} "${P%[*]b}" ${P%[!a]}',
    'V=aaa; echo ${V#a*} ${V##a*} "[${V%%a*}]" ${V%a} ${#V} ${#U}',
    'E=; echo "[${E#*}] [${E%%x}] ${#E}"',
    'X=path/to/file; P="*/"; echo ${X#$P} ${X##$P} "${X#"$P"}"',
    # ${?} and the status
    'false; echo ${?} ${#?}',
]
_BASH = [
    'P=abcab; echo ${P/b/X} ${P//b/X} ${P/#a/X} ${P/%b/X} ${P/b} ${P//[ab]} ${P/#b/X} ${P/x/y}',
    'P=abcab; echo ${P//b/<&>} "${P//b/\\&}" ${P/#*/[&]}',
    'P=hello; echo ${P:1} ${P:1:3} ${P: -3} ${P: -3:2} ${P:(-2)} ${P:1:-1} [${P:9}] [${P: -9}]',
    'P=hello; N=1; echo ${P:0:$((N+1))} ${P:N:N+2} "[${P:5}]"',
    'P=a/b/c; echo ${P//\\//_} ${P//?/.}',
]


@pytest.mark.parametrize("script", _BOTH)
def test_posix_operators_agree_with_bash_and_dash(script: str) -> None:
    agree(script)


@pytest.mark.parametrize("script", _BASH)
def test_bash_substring_and_replacement_agree_with_bash(script: str) -> None:
    agree(script, tuple(s for s in SHELLS if s == "bash"))


@pytest.mark.parametrize(("script", "message"), [
    ("echo ${U:?no rank}; echo after", "sh: 1: U: no rank"),
    ("E=; echo ${E:?}; echo after", "sh: 1: E: parameter not set or null"),
    ("echo ${U?}; echo after", "sh: 1: U: parameter not set"),
    ("W=world; echo start; echo ${U?hello $W}", "sh: 1: U: hello world"),
    ("P=x; echo ${P@Q}; echo after", "sh: 1: Bad substitution"),  # ${P^^} is bash's: test_shell_bash_words.py
])
def test_an_unset_parameter_with_a_question_mark_ends_the_shell_as_dash(script: str, message: str) -> None:
    """dash (the simulated ``sh``): the message on standard error, status 2 (bash says it as
    ``bash: line 1: U: …`` and exits 127)."""
    out, status = simulated_output(script)
    assert (out.splitlines()[-1], status) == (message, 2)
    if "dash" in SHELLS:
        real, real_status = real_output("dash", script)
        assert (real.splitlines()[-1].replace("dash: ", "sh: "), real_status) == (message, 2)


@pytest.mark.parametrize("script", [
    "echo ${U:?no rank}; echo after", "E=; echo ${E:?}; echo after", "echo ${U?}; echo after",
    "f() { echo ${U:?}; }; f; echo after",
])
def test_an_unset_parameter_with_a_question_mark_ends_bash_with_127(script: str) -> None:
    """bash words ``:?`` as ``parameter null or not set`` (dash: ``not set or null``) and its
    ``-c`` script ends with 127 (bash 5.2 ``parameter_brace_expand_error``); inside a function the
    message names ``environment``, as every message of the shell's own there."""
    agree(script, tuple(s for s in SHELLS if s == "bash"), as_bash=True)


def test_set_values_pass_the_question_mark() -> None:
    assert simulated_output("E=; S=s; echo ${E?} ${S:?}") == ("s\n", 0)


_VALUE = st.lists(st.sampled_from(["a", "b", "-", "/", ".", "*"]), max_size=6).map("".join)
_PATTERN = st.lists(st.sampled_from(["a", "b", "-", "/", ".", "*", "?", "[ab]", "[!a]", "\\*", "'*'"]),
                    max_size=4).map("".join)


@settings(max_examples=80, deadline=None)
@given(_VALUE, _PATTERN, st.sampled_from(["#", "##", "%", "%%"]))
def test_generated_prefix_and_suffix_removal_agrees_with_bash(value: str, pattern: str, op: str) -> None:
    agree(f"V='{value}'; echo \"[${{V{op}{pattern}}}]\"", tuple(s for s in SHELLS if s == "bash"))


@given(_VALUE, _PATTERN, st.sampled_from(["#", "%"]))
def test_removal_keeps_a_prefix_or_suffix_and_the_longest_removes_most(value: str, pattern: str,
                                                                        op: str) -> None:
    short, _ = simulated_output(f"V='{value}'; echo \"[${{V{op}{pattern}}}]\"")
    long, _ = simulated_output(f"V='{value}'; echo \"[${{V{op * 2}{pattern}}}]\"")
    short, long = short.strip()[1:-1], long.strip()[1:-1]
    kept = value.endswith if op == "#" else value.startswith
    assert kept(short) and kept(long) and len(long) <= len(short)
