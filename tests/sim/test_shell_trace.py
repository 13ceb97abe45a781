"""bash's ``set -x`` trace in the simulated shell (kbatch.sim.shell_trace; bash(1) ``set -x``,
``print_cmd.c``): under ``bash -c`` each command's words quoted as bash quotes them, the prefix's
assignments on lines of their own, ``++`` per command substitution, ``for``/``case``/``[[``/``((``
heads; compared with bash. dash's own trace is tests/sim/test_shell_options.py's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_trace import bash_quote
from tests.sim.real_shell import agree

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    "x=$(echo a b); echo \"$x\" 'q' '' \"it's\" 'a$b' '~' a~ '#x' a# '*'",
    "f() { echo in; }; f; case x in x) echo c;; esac; while false; do :; done; [ a = b ]; "
    "echo $(echo $(echo z))",
    "y=1 z=2 echo; X=$((1+2)) echo; v=; w=\"\"; echo >/dev/null hi; echo '>'",
    'a=x; [[ "$a" == "x y" ]]; [[ -f "$a" ]]; [[ $a == b* ]]; [[ $a = x ]]; [[ ! -z $a ]]; [[ $a != "?" ]]',
    "for y in   a   \"b  c\"  ; do :; done; for i in $(seq 2); do :; done; for x; do :; done",
    "export R=1 S; readonly ro=3; local_=1; declare -i n=5; typeset t=4",
    "n=2; (( n > 1 )) && echo ok; let n+=1; (( n++ ))",
    "PS4='> '; echo x; PS4='@@ '; echo $(echo y); PS4='+ '; echo z",  # a pipeline's lines race in bash
    "a=(1 \"2 3\"); a+=(w); echo \"${a[@]}\"; i=0; until [ $i -ge 1 ]; do i=$((i+1)); done",
    "{ echo g; }; ( echo sub ); if true; then :; fi; x+=1",
])
def test_traces_agree_with_bash(script: str) -> None:
    agree("set -x; " + script, _BASH, as_bash=True)


def test_bash_xc_traces_and_sh_xc_traces_as_dash() -> None:
    """``bash -xc`` traced nothing before (its trace is bash's own); ``sh -xc`` is dash's."""
    assert interpret(["bash", "-xc", "echo 'a b'"]).logs == ("+ echo 'a b'", "a b")
    assert interpret(["sh", "-xc", "echo 'a b'"]).logs == ("+ echo a b", "a b")
    assert interpret(["bash", "-o", "xtrace", "-o", "pipefail", "-c", "true"]).logs == ("+ true",)


@pytest.mark.parametrize(("word", "quoted"), [
    ("", "''"), ("a", "a"), ("a b", "'a b'"), ("it's", "'it'\\''s'"), ("'", "\\'"), ("\x01", "$'\\001'"),
    ("a\x01", "$'a\\001'"), ("a \x01", "'a \x01'"), ("~x", "'~x'"), ("a=~", "'a=~'"), ("a~", "a~"),
    ("#", "'#'"), ("a#", "a#"),
])
def test_bash_quotes_a_word_as_its_trace_does(word: str, quoted: str) -> None:
    assert bash_quote(word) == quoted


_WORD = st.text(st.sampled_from("ab ~#=:*?[]{}!^$`'\"\\;&|<>()\t"), max_size=5).filter(
    lambda word: "$$" not in word)  # ``$$`` is Kubernetes' escape of a ``$`` in a command


@settings(max_examples=40, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=3))
def test_generated_words_trace_as_bash_quotes_them(words: list[str]) -> None:
    quoted = ["'" + word.replace("'", "'\\''") + "'" for word in words]
    agree(f"set -x; : {' '.join(quoted)}; v={quoted[0]}", _BASH, as_bash=True)
