"""bash's brace expansion (kbatch.sim.shell_brace; bash(1) "Brace Expansion") under ``bash -c``, and
GNU ``head -c`` / ``tail -c`` (kbatch.sim.shell_text): compared with bash (dash has no brace
expansion and prints the braces), generated words too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_brace import expand_braces
from tests.sim.real_shell import agree

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    'echo {a,b} x{1..3}y {01..10} {1..10..3} {a..e} {e..a..2} {5..1} a{b,c{d,e}}f "{a,b}" {} {a} {1..x}',
    "echo ${x:-{a,b}} x={p,q}; y={1,2}; echo $y; for i in {a,b}{1,2}; do echo -n $i; done; echo",
    "a=({x..z}); echo ${a[@]} {-2..2} {-05..5..5} {,a} {a,} '{'a,b'}' \\{a,b}",
    "mkdir -p d; touch d/{1,2}.txt; echo d/*.txt; v=q; echo {$v,r}s",
    # bash's brace_gobbler: a } before any separator is text; a word-initial {} opens nothing;
    # empty alternatives are null words that word splitting drops
    "echo a{},} {},a} x{}y {{},a} a{b,{},c}d {a,}} {}, {a}b,c} {a}..b} a{1..3}} {1..3..}} {{a,b}}",
    "echo [{,}] [a{,}] [{,,}b]; set -- {,}; echo $#",
])
def test_brace_expansion_agrees_with_bash(script: str) -> None:
    agree('mkdir -p "$D" && cd "$D" && ' + script, _BASH, as_bash=True)


def test_sh_keeps_the_braces_as_dash_does() -> None:
    assert interpret(["sh", "-c", "echo {a,b}"]).logs == ("{a,b}",)
    assert expand_braces("{1..3}") == ["1", "2", "3"]


_PART = st.sampled_from(["a", "b", ",", "{", "}", "..", "1", "3", "0", "x", "-"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_PART, max_size=8))
def test_generated_braces_agree_with_bash(parts: list[str]) -> None:
    agree(f"echo {''.join(parts)}", _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    'printf "hello\\nworld\\n" > f; head -c 3 f; echo; head -c -4 f; tail -c 3 f; tail -c +8 f',
    "echo abc | head -c 2; echo; echo xyz | tail -c 2; tail -c 0 f; printf x | cat; echo y",
    "echo -n a; echo -n b; echo c; printf 'no end' | head -c 4; echo",
])
def test_byte_counts_agree_with_real_shells(script: str) -> None:
    agree('mkdir -p "$D" && cd "$D" && printf "hello\\nworld\\n" > f; ' + script)
