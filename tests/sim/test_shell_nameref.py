"""bash's name references in the simulated shell (kbatch.sim.shell_nameref, kbatch.sim.shell_vars
``deref``; bash(1) "PARAMETERS"): ``declare -n`` / ``local -n`` / ``typeset -n``, reads and
assignments through them, ``unset`` and ``unset -n``, ``${!ref}``, references to elements, circular
chains and bad names, a reference as a ``for`` variable; each script run as ``bash -c`` and
compared with bash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import agree, real_output, simulated_output

_BASH = ("bash",)


@pytest.mark.parametrize("script", [
    "x=1; declare -n r=x; echo $r ${r} ${#r} ${!r}; r=2; echo $x; declare -p r x",
    "declare -n r=x; r=5; echo $x; declare -p r x",
    'x=1; declare -n r=x; unset r; echo "[${x-unset}]"; declare -p r',
    'x=1; declare -n r=x; unset -n r; echo "[${x-unset}]"; declare -p r',
    "a=(p q s); declare -n r=a[1]; echo $r; r=Z; echo ${a[@]}; declare -p r; unset r; declare -p a",
    "declare -n r; for r in a b; do echo \"[$r]\"; done; declare -p r",
    "x=X y=Y; declare -n r; for r in x y; do echo \"$r\"; r=new; done; echo $x $y",
    "f() { local -n v=$1; v=hi; declare -p v; }; f out; echo $out; declare -p v",
    "typeset -n t=u; u=3; echo $t; declare -p t",
    "a=(1 2); declare -n r=a; echo ${r[1]} ${#r[@]} \"${r[@]}\" \"${!r[@]}\"; r[2]=3; declare -p a",
    'declare -n r=x; echo "[${!r}]"; echo $((r+1)); r=4; ((r++)); echo $x',
    'declare -n r=x; read r <<< "hi there"; echo "$x"',
    'declare -n r; r=x; declare -p r; echo "${r-un}"',
    "declare -n r=x; declare +n r; declare -p r",
    "declare -n r=x; export r; declare -p r x",
    "x=1; declare -n r=x; r+=2; echo $x; declare -i n; declare -n m=n; m=3+4; echo $n",
    "declare -n r=x; declare -n p=r; p=3; echo $x; declare -p p r x",
    'declare -n r=x; echo "${r:-d} ${r-e} ${r:+f}"; : ${r:=set}; echo $x',
    "declare -i n; : ${n:=2+3}; echo $n; declare -u u; echo ${u:=abc}; echo $u",
    "declare -n q; declare -p q; declare -n u=x[1]; declare -p u",
    "declare -n r=v; declare -x r; declare -i r; declare -p r v; declare -n q=w; declare +n q; declare -p q",
    "f() { local -n r=g; local r; r=1; declare -p r g; }; g=0; f; echo $g",
])
def test_name_references_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    "declare -n r=1x; echo rc=$?",
    'declare -n r="a b"; echo rc=$?; declare -n s=a[; echo $?',
    "declare -n r=; echo $?; declare -p r",
    "declare -n r=r; echo rc=$?",
    'declare -n a=b; declare -n b=a; echo "[$a]" $?; declare -p a b',
    "declare -n a=b; declare -n b=a; declare a=1; echo rc=$?",
    # eight references are followed, a ninth fails silently (bash ``NAMEREF_MAX``)
    "declare -n c1=c2 c2=c3 c3=c4 c4=c5 c5=c6 c6=c7 c7=c8 c8=v; v=1; echo \"[$c1]\"; "
    'declare -n c8=c9 c9=v; echo "[$c1]"; declare c1=2; echo $v; c1=3 true; echo $?',
    "declare -n a=b b=c c=b; echo \"[$a]\"; a=1 true; echo $?",
    "declare -n x=y y=x; declare +n x; echo $?; declare -p x; declare -x x; echo $?; declare -p x y",
    "declare -n x=y y=x; unset x; echo $?; declare -p x y",
])
def test_bad_and_circular_references_fail_as_bash_does(script: str) -> None:
    agree(script, _BASH, as_bash=True)


def test_an_assignment_through_a_circular_reference_ends_the_script() -> None:
    """``bash -c``'s status for the failed assignment word, as for a read-only variable's (``bash
    --posix``, which :func:`agree` runs, ends both with 127)."""
    run = interpret(["bash", "-c", "declare -n a=b; declare -n b=a; a=1; echo never"])
    assert (run.exit_code, run.logs) == (1, ("bash: line 1: warning: a: circular name reference",))
    run = interpret(["bash", "-c", "readonly x=1; declare -n r=x; r=2; echo never"])
    assert (run.exit_code, run.logs) == (1, ("bash: line 1: x: readonly variable",))


def test_an_assignment_expansion_to_a_readonly_variable_ends_dashs_script() -> None:
    """``${x:=w}`` assigns as an assignment does (before: it overwrote a read-only ``x``)."""
    run = interpret(["sh", "-c", "readonly x; : ${x:=1}; echo never"])
    assert (run.exit_code, run.logs) == (2, ("sh: 1: x: is read only",))
    for script, expected in (("readonly x; : ${x:=1}; echo never", ("x: readonly variable",)),
                             ("declare -n a=b b=a; : ${a:=1}; echo never",
                              ("warning: a: circular name reference",) * 2)):
        run = interpret(["bash", "-c", script])  # ``bash -c``'s status; ``--posix``'s is 127
        assert (run.exit_code, run.logs) == (1, tuple(f"bash: line 1: {line}" for line in expected))


_NAMES = st.sampled_from(["x", "y", "r", "s"])
_STEP = st.one_of(
    st.tuples(st.just("declare -n {0}={1}"), _NAMES, _NAMES),
    st.tuples(st.just("{0}={1}v"), _NAMES, _NAMES),
    st.tuples(st.just("{0}+=+"), _NAMES, _NAMES),
    st.tuples(st.just("unset {0}"), _NAMES, _NAMES),
    st.tuples(st.just("unset -n {0}"), _NAMES, _NAMES),
    st.tuples(st.just("declare +n {0}"), _NAMES, _NAMES),
    st.tuples(st.just('echo "{0}=[${{{0}-unset}}]"'), _NAMES, _NAMES),
    # a function's own reference (to ``t``, no reference: a circular chain through a call's
    # variables is bash's dynamic scoping, with warnings of its own, not modelled)
    st.tuples(st.just('g() {{ local -n {0}=t; {0}=in; echo "[$t]"; local {0}; {0}=own; }}; g'), _NAMES,
              _NAMES),
    st.tuples(st.just("declare -x {0}"), _NAMES, _NAMES),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=8))
def test_generated_reference_scripts_agree_with_bash(steps: list[tuple[str, str, str]]) -> None:
    """Generated declarations, assignments, unsets and reads over a few names, references among
    them (chains, and circular ones: each then warns as bash does), compared with bash."""
    script = "; ".join(form.format(a, b) for form, a, b in steps) + "; declare -p x y r s 2>&1; echo end"
    # ``bash -c`` as a container runs it (``--posix`` ends a failed assignment with 127 instead of 1)
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False)
