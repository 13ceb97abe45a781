"""bash's ``declare``/``typeset``/``local`` attributes, associative arrays, ``${!a[@]}``, ``${!prefix*}``,
``unset`` and the POSIX ``export``/``readonly`` in the simulated shell (kbatch.sim.shell_declare,
kbatch.sim.shell_vars; bash(1) ``declare``, "Arrays", "Parameter Expansion"; XCU ``export``,
``readonly``, ``unset``): each script run as ``bash -c`` and compared with bash, the POSIX ones with
dash too."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_vocab import modelled
from tests.sim.real_shell import SETUP, SHELLS, agree, real_output, simulated_output

_BASH = ("bash",)
_DASH = tuple(shell for shell in SHELLS if shell == "dash")  # the ``sh`` the simulated one follows


@pytest.mark.parametrize("script", [
    "declare x=1; declare -i n=2+3; declare -a a=(p \"q r\"); declare -A m=([k]=v [\"a b\"]=c); "
    "declare -x e=ex; declare -r r=ro; declare -p x n a m e r",
    'declare -A m; m[k]=v; m[z]=1; m["a b"]=c; echo "${!m[@]}" "${#m[@]}" "${m[k]}" "${m[a b]}"; '
    'for k in "${!m[@]}"; do echo "$k=${m[$k]}"; done',
    "declare -i n=4; n+=4; echo $n; n=n*2; echo $n; declare -ia ia=(1+1 2*3); declare -p ia",
    'a=(p "q r" s); unset "a[0]"; declare -p a; echo "${!a[@]}"; unset a; echo "[${a[@]}]"',
    "x=1; f() { local -i q=3+4; declare w=5; declare -p q w; typeset -p x; }; f; echo \"[${w-none}]\"",
    'X1=1 X2=2; echo ${!X*} ${!X@}; for v in "${!X@}"; do echo $v; done; echo "${!X*}"',
    "declare -A h; h=([one]=1 [two]=2); declare -p h; h+=([three]=3); echo ${#h[@]}; declare -p h",
    's=str; declare -p s; s[1]=t; declare -p s; unset "s[0]"; declare -p s; echo "[$s]"',
    "export ex2=3; declare -p ex2; readonly ro2; declare -p ro2; export -n ex2; declare -p ex2",
    "x=a; x+=b; a=(1); a+=2; declare -p x a; a[1]+=x; declare -p a; declare -l lo=ABC; declare -u up=abc; "
    "declare -p lo up",
    "f() { local x; echo \"[${x-unset}]\"; x=2; }; x=1; f; echo $x",
    "declare y; declare -p y; y=; declare -p y; declare -a e; declare -p e; e=(); declare -p e; "
    "declare -A h; declare -p h; h=(); declare -p h",
    "v='a\"b$c`d\\e'; declare -p v; declare -A q=([*]=4 [q]=2); declare -p q",
    'f() { local -a arr=(1 2); declare -A mm=([x]=1); local s="a b"; echo "${arr[1]} ${mm[x]} $s"; }; f; '
    'echo "[${arr[@]}][${mm[x]}][$s]"',
    "declare -A m=([a]=1 [b]=2 [c]=3 [d]=4 [e]=5 [f]=6); echo \"${!m[@]}\"; echo \"${m[@]}\"; unset 'm[c]'; "
    'echo "${!m[*]}"; k=e; m[$k]+=0; echo ${m[e]}',
    "readonly r=1; declare r=3 2>/dev/null; echo \"rc $?\"; unset r 2>/dev/null; echo \"rc $?\"; echo $r",
    "a=(x y z); echo ${!a[@]}; a[7]=w; echo \"${!a[@]}\" ${#a[@]}; unset 'a[1]'; echo ${a[@]}",
])
def test_declarations_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    "declare -A m=([two words]=x); declare -p m",
    "declare -A m; m=([a b c]=y [\"q r\"]=z [s\\ t]=u [a [b c] d]=1 [e]=f]=g); declare -p m",
    "declare -a n=([1 + 1]=x [ 3 ]=y); declare -p n; declare -A h=([k]=v [ x y ]=w); declare -p h",
])
def test_blanks_inside_a_compound_assignments_subscript_stay_in_it(script: str) -> None:
    """bash reads a word starting ``[`` inside ``NAME=( … )`` to its matching ``]`` as one token
    (parse.y ``read_token_word``, ``PST_COMPASSIGN``): ``[two words]=x`` is one key, not two words."""
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    "a=([1/0]=x); declare -p a",
    "m=([two words]=x); declare -p m",
    "a=(1); a+=([1/0 + 3]=x); echo after; declare -p a",
    "declare -a a=([x y z]=1); echo after $?",
    "a[1/0]=x; echo after",
])
def test_a_subscript_that_is_no_arithmetic_ends_a_bash_c_script(script: str) -> None:
    """An indexed array's subscript is arithmetic: one that fails prints bash's ``evalerror``
    words and abandons the command line with status 1 (expr.c ``evalerror``, ``DISCARD``), all of
    a ``-c`` script; the sim stored the literal ``()`` and went on with status 0."""
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    'export A=1 B="x y"; echo $A $B; readonly R="it\'s"; echo $R; readonly -p R; export -p | grep " [AB]="',
    'x=1; unset x; echo "[${x-unset}]"; y=2; readonly y; echo $y',
    "f() { local x; echo \"[${x-unset}]\"; x=2; }; x=1; f; echo $x",
    "readonly r=1; r=2 2>/dev/null; echo never",
    "readonly r=1; (unset r) 2>/dev/null; echo \"rc $?\"",
])
def test_posix_export_readonly_unset_agree_with_dash(script: str) -> None:
    agree(script, _DASH)


def test_export_assigns_as_it_exports() -> None:
    """``export X=1`` was taken and did nothing: ``$X`` stayed empty."""
    run = interpret(["sh", "-c", "export X=1 Y; readonly Z=2; echo $X $Z; unset X; echo \"[$X]\""])
    assert run.logs == ("1 2", "[]")


def test_a_readonly_variable_ends_the_script_as_each_shell_does() -> None:
    assert interpret(["sh", "-c", "readonly r=1; r=2; echo never"]).exit_code == 2
    run = interpret(["bash", "-c", "readonly r=1; r=2; echo never"])
    assert (run.exit_code, run.logs) == (1, ("bash: line 1: r: readonly variable",))


_KEY = st.text(st.sampled_from("abcxyz019_-."), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(st.lists(_KEY, min_size=1, max_size=12, unique=True), st.data())
def test_generated_associative_arrays_list_their_keys_in_bashs_order(keys: list[str],
                                                                     data: st.DataObject) -> None:
    """bash lists an associative array as its hash table holds it: compared on generated keys,
    some of them unset again."""
    gone = data.draw(st.lists(st.sampled_from(keys), max_size=3))
    script = "declare -A m; " + "; ".join(f"m[{k}]={n}" for n, k in enumerate(keys))
    script += "".join(f"; unset 'm[{k}]'" for k in gone) + '; echo "${!m[@]}"; echo "${m[@]}"; declare -p m'
    agree(script, _BASH, as_bash=True)


@settings(max_examples=30, deadline=None)
@given(st.text(st.sampled_from("ab \"'$`\\!*"), max_size=6).filter(lambda v: "$$" not in v),  # Kubernetes'
       st.sampled_from(["", "-a", "-A", "-x"]))
def test_generated_values_print_as_bash_declares_them(value: str, option: str) -> None:
    quoted = "'" + value.replace("'", "'\\''") + "'"
    compound = {"-a": f"v=({quoted})", "-A": f"v=([{quoted}]={quoted})" if value else "v=()"}
    assign = compound.get(option, f"v={quoted}")
    agree(f"declare {option or '--'} {assign}; declare -p v", _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    'v="p q"; command export X=$v; echo "[$X]"; builtin export Y=$v; echo "[$Y]"',
    'v="p q"; command declare X=$v Y=$v; echo "[$X][$Y]"; command typeset Z=$v; echo "[$Z]"',
    'v="p q"; command readonly R=$v; echo "[$R]"; command -p export P=$v; echo "[$P]"',
    'v="p q"; command command export X=$v; builtin command export Y=$v; echo "[$X][$Y]"',
    'f() { v="p q"; command local X=$v; echo "[$X]"; }; f; echo "[$X]"',
    f'{SETUP}touch X=f1 X=f2; command export X=f*; echo "[$X]"; export X=f*; echo "[$X]"',
    'set -x; v="p q"; builtin export X=$v; command readonly Y=1; command -p export Z=1',
    "f() { echo fn; }; builtin f; echo $?; builtin eval f; command eval f; builtin ls; echo $?",
    "command; echo $?; builtin; echo $?; command -- echo a; builtin -- echo b; command exit 3; echo no",
])
def test_a_declaration_reached_through_command_or_builtin_is_a_plain_builtin(script: str) -> None:
    """``command export X=$v`` / ``builtin declare …`` run the builtin, no function looked up
    (bash(1) ``command``, ``builtin``), and bash 5.2.15 expands its operands as any command's:
    split, globbed (no declaration utility; ``command declare -a a=(1 2)`` is a syntax error
    there; bash not in POSIX mode, a container's ``bash -c``). The sim ran neither ``command`` nor
    ``builtin`` (nothing assigned)."""
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


def test_command_and_builtin_are_modelled_as_the_command_they_run() -> None:
    """``command export X=1`` is modelled as ``export X=1``; ``command f`` of a function is not (the
    function is skipped, and the program ``f`` is not modelled), nor ``command -v``."""
    assert modelled(["command", "export", "X=1"]) and modelled(["builtin", "--", "declare", "x"])
    assert modelled(["command", "-p", "echo", "a"]) and modelled(["command"])
    assert not modelled(["command", "f"], frozenset({"f"})) and not modelled(["command", "-v", "ls"])
