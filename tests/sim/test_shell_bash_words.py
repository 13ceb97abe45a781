"""bash's indirection ``${!P}``, case modification ``${P^^}`` ``${P,,}`` ``${P^}`` ``${P,}`` and indexed
arrays ``a=(x y)``, ``a[i]=v``, ``a+=(…)`` in the simulated shell (bash(1) "Parameter Expansion",
"Arrays"; dash has none of them): each script compared with bash ``--posix``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import agree


@pytest.mark.parametrize("script", [
    "X=hello; echo ${X^^} ${X^} ${X,,} ${X^^[lo]}; Y=WORLD; echo ${Y,,} ${Y,} ${Y,,[OR]}",
    "N=X; X=value; echo ${!N} ${!N^^} ${!N:0:3}; set -- a b; P=2; echo ${!P}",
    'a=(x "y z" w); echo ${a[1]} ${#a[@]} $a; a[3]=v; a+=(u); for e in "${a[@]}"; do echo "<$e>"; done',
    "i=1; a=(p q r); a[i+1]=W; echo ${a[2]} ${a[*]}; b=(); echo ${#b[@]}; echo \"[${b[@]}]\"",
    "v='1 2'; a=($v 3 $(echo 4 5)); echo ${#a[@]} ${a[3]}; a=(z); echo ${#a[@]} ${a[@]}",
])
def test_bash_words_agree_with_bash(script: str) -> None:
    agree(script, ("bash",))


@settings(max_examples=40, deadline=None)
@given(st.text(st.sampled_from("abAB-z1 "), max_size=6), st.sampled_from(["^^", "^", ",,", ","]))
def test_generated_case_modifications_agree_with_bash(value: str, op: str) -> None:
    agree(f"X='{value}'; echo \"[${{X{op}}}]\"", ("bash",))
