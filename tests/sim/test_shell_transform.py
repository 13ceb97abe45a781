"""bash's ``${P@Q}``, ``@U``, ``@u``, ``@L``, ``@a``, ``@A`` transformations in the simulated shell
(kbatch.sim.shell_transform; bash(1) "Parameter Expansion"), compared with bash; dash has none
(``Bad substitution``, status 2)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SHELLS, agree

_BASH = ("bash",)
_DASH = tuple(shell for shell in SHELLS if shell == "dash")


@pytest.mark.parametrize("script", [
    "x=\"a b'c\"; echo ${x@Q}; y=; echo ${y@Q}; echo \"[${z@Q}]\"; echo ${x@U} ${x@u} ${x@L}",
    "x=\"a b'c\"; echo ${x@A}; echo \"[${x@a}]\"; declare -i i=2; echo ${i@a} ${i@A}",
    'declare -i j; echo "[${j@A}]"; export e=1; echo ${e@A} ${e@a}; declare -r r=; echo ${r@A}',
    'x=1; declare -n n=x; echo ${n@A} "[${n@a}]"; echo "[${u@A}][${u@a}]"; declare -lx l=A; echo ${l@A}',
    "a=(1 2); echo ${a@Q} ${a@a}; declare -A m=([k]=v); echo ${m@a} \"${m@Q}\"",
    'v="it\'s"; echo "w=${v@Q}"; set -- "p q"; echo ${1@Q} ${#@Q}',
    "v=$(printf 'a\\tb'); echo ${v@Q}",
])
def test_transformations_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", ['x=1; (echo ${x@Q}) 2>/dev/null; echo "rc $?"',
                                    'x=1; (echo ${x@U}; echo never) 2>/dev/null; echo "rc $?"'])
def test_dash_has_no_transformations(script: str) -> None:
    agree(script, _DASH)


@settings(max_examples=40, deadline=None)
@given(st.text(st.sampled_from("aZ \"'$`\\!*\t"), max_size=6), st.sampled_from("QUuLaA"),
       st.sampled_from(["", "-i ", "-x ", "-r ", "-l "]))
def test_generated_values_transform_as_bash_does(value: str, op: str, option: str) -> None:
    assume("$$" not in value)  # Kubernetes makes ``$$`` in a container's command ``$`` first
    quoted = "'" + value.replace("'", "'\\''") + "'"
    if option == "-i ":
        quoted = str(len(value))
    agree(f"declare {option}v={quoted}; echo \"${{v@{op}}}\"", _BASH, as_bash=True)
