"""bash's ``${P@Q}``, ``@U``, ``@u``, ``@L``, ``@a``, ``@A`` transformations in the simulated shell
(kbatch.sim.shell_transform; bash(1) "Parameter Expansion"), compared with bash; dash has none
(``Bad substitution``, status 2)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from tests.sim.real_shell import SETUP, SHELLS, agree

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
    "v=\"'\"; echo \"${v@Q}\" ${v@A}; a=(\"'\" x); echo \"${a[@]@Q}\"",  # a lone quote: \\'
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


# --- ${P@P}: prompt decoding (bash(1) "PROMPTING"; kbatch.sim.shell_prompt) -----------------------

@pytest.mark.parametrize("script", [
    r"""X=1; P='a\\b\nc|\a|\e|\s|\v|\V|\j|\l|\[x\]|\101\0|\q|$X|$(echo "s b")|$((1+2))|"q"'"'s'"; """
    r"""printf '%q\n' "${P@P}" """,
    r"""X=1; for P in '\"' '\\$X' '\\\\' 'x\' "it's" '$' 'a$' '\\ab' '\\${X}' """
    r"""'\\\X' '\\"' '\044X|\042' '${X}y'; """
    r"""do printf '%q\n' "${P@P}"; done""",
    r"""P='\`'; printf '%q\n' "${P@P}"; P='\\`echo a`'; printf '%q\n' "${P@P}" """,
    r"""cd /; HOME=/h; P='\w|\W'; echo "${P@P}"; PWD=/h/sub; """
    r"""echo "${P@P}"; PWD=/h; echo "${P@P}"; PWD=/hx; echo "${P@P}" """,
    r"""cd /; P='\w|\W'; HOME=/; PWD=/a/b; echo "${P@P}"; HOME=/a/; echo "${P@P}"; """
    r"""unset HOME; echo "${P@P}"; PWD='/a$X\'; printf '%q\n' "${P@P}" """,
    r"""P='\s:$1'; echo "${P@P}" "${u@P}|"; set -- one; echo "${P@P}"; """
    r"""a=('\v' '$1'); printf '<%s>' "${a[@]@P}" "${a[1]@P}"; echo""",
])
def test_prompt_expansion_agrees_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


_PROMPT_PIECES = st.sampled_from(["a", " ", "'", '"', "\\", "\\\\", "\\$", "\\n", "\\a", "\\e", "\\[", "\\]",
                                  "\\s", "\\v", "\\V", "\\j", "\\l", "\\w", "\\W", "\\q", "\\\"",
                                  "\\101", "\\044X", "\\0", "$X", "${X}", "$(echo x)", "$((2*3))"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_PROMPT_PIECES, max_size=6).map("".join))
def test_generated_prompts_expand_as_bash_does(prompt: str) -> None:
    """Property: a value of escapes, expansions, quotes and backslashes in any order is what bash
    makes of it (the container runs as root, as ``\\$`` assumes, and ``\\u``, ``\\h`` are the
    container's: left to the next test)."""
    assume("$$" not in prompt)
    quoted = "'" + prompt.replace("'", "'\\''") + "'"
    agree(f"cd /; HOME=/; X='v$1'; P={quoted}; printf '%q\\n' \"${{P@P}}\"", _BASH, as_bash=True)


def test_prompt_user_host_and_root_are_the_containers() -> None:
    """``\\u`` root, ``\\$`` ``#`` (containers run as root here), ``\\h`` / ``\\H`` the pod's
    ``HOSTNAME`` up to its first dot / whole."""
    run = interpret(["bash", "-c", "P='\\u@\\h:\\H\\$ '; echo \"${P@P}\""], env={"HOSTNAME": "web-0.svc"})
    assert list(run.logs) == ["root@web-0:web-0.svc# "]


# --- arrays: ${a[@]@Q}, ${a[*]@Q}, ${a[@]@K}, element forms ------------------------------------------

@pytest.mark.parametrize("script", [
    """a=(x 'y z' "it's" $'t\\tb'); echo ${a[@]@Q}; """
    """echo "${a[*]@Q}"; printf '<%s>' "${a[@]@Q}" ${a[@]@Q}; echo""",
    """a=(x 'y z' "it's" $'t\\tb'); echo ${a[@]@K}; printf '<%s>' "${a[@]@K}" "${a[*]@K}"; echo ${a@K}""",
    """declare -A m=([k]=v [q]="it's" [d]='a"$b'); m['two words']='a b'; """
    """m['*']=1; printf '<%s>' "${m[@]@K}" "${m[*]@K}"; echo""",
    """declare -A m=([k]=v [q]="it's"); printf '<%s>' "${m[@]@Q}" ${m[@]@K} "${m@K}" "${m[q]@K}"; echo""",
    """s=plain; e=(); declare -A em=(); """
    """printf '<%s>' "${s[@]@K}" "${s[@]@Q}" "${e[@]@K}" "${em[@]@K}" "${u[@]@Q}"; echo""",
    """e=(); printf '<%s>' "${e[@]}" "${u[@]}" "x${e[@]}" "${e[*]}" "${e[*]@Q}"; echo""",
    """a=(x 'y z'); IFS=,; printf '<%s>' "${a[*]@Q}" "${a[*]@K}" ${a[*]@Q}; echo""",
    """a=(x 'y z'); declare -A m=([k]=v); """
    """printf '<%s>' "${a[@]@k}" "${m[@]@k}" "${a[*]@k}" ${a[@]@k} "${a@k}"; echo""",
    """b=([2]=z [5]=''); printf '<%s>' "${b[@]@K}" "${b[@]@Q}" "${b[2]@Q}" "${b[3]@Q}"; echo""",
    """a=(x 'y z'); declare -A m=([k]=v); """
    """printf '<%s>' "${a[1]@A}" "${a[@]@a}" "${m[@]@a}" "${a[@]@U}" "${a[0]@u}"; echo""",
])
def test_array_transformations_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.sampled_from("aZ \"'$`\\!*\t"), max_size=4), max_size=4),
       st.sampled_from("QKkUuLaE"), st.sampled_from(["@", "*"]), st.booleans())
def test_generated_arrays_transform_as_bash_does(values: list[str], op: str, which: str, assoc: bool) -> None:
    """Property: every element of an indexed or associative array (keys ``k0``, ``k1``… hashed in
    bash's order) transformed, quoted and not, as bash does."""
    assume(not any("$$" in value for value in values))
    quoted = ["'" + value.replace("'", "'\\''") + "'" for value in values]
    body = " ".join(f"[k{i}]={q}" for i, q in enumerate(quoted)) if assoc else " ".join(quoted)
    declare = "declare -A a" if assoc else "declare -a a"
    agree(f"{SETUP}{declare}=({body}); printf '<%s>' \"${{a[{which}]@{op}}}\" ${{a[{which}]@{op}}}; echo",
          _BASH, as_bash=True)


# --- ${a[@]@A}: the declare command that recreates the array -----------------------------------------

@pytest.mark.parametrize("script", [
    """a=(x 'y z' [5]=w); printf '<%s>' "${a[@]@A}" "${a[*]@A}" ${a[@]@A} ${a[*]@A}; echo""",
    """declare -A m=([k]=v ['a b']=c); """
    """printf '<%s>' "${m[@]@A}" "${m[*]@A}" "${m[k]@A}" "${m[zz]@A}"; echo""",
    """e=(); declare -a d; declare -A em; """
    """printf '<%s>' "${e[@]@A}" "${d[@]@A}" "${d[*]@A}" "${em[@]@A}"; echo""",
    """s=str; declare -i i=3; """
    """printf '<%s>' "${s[@]@A}" "${i[@]@A}" "${i[*]@A}" "${u[*]@A}"; echo "${#u[@]}" """,
    """set -- "${u[@]@A}"; echo "$#"; r=(1 '$x' "it's"); readonly r; printf '<%s>' "${r[@]@A}"; echo""",
    """a=(x 'y z'); IFS=:; printf '<%s>' "${a[@]@A}" "${a[*]@A}" ${a[@]@A}; IFS='='; """
    """printf '<%s>' "${a[@]@A}" ${a[*]@A}; IFS=; printf '<%s>' "${a[@]@A}"; echo""",
    """a=(p q); declare -n ref=a; printf '<%s>' "${ref[@]@A}" "${a[9]@A}"; declare -ai n=(1 2); """
    """printf '<%s>' "${n[@]@A}"; echo""",
])
def test_whole_array_assignment_transform_agrees_with_bash(script: str) -> None:
    """``${a[@]@A}`` is ``declare -FLAGS a=(…)`` as ``declare -p`` writes it (subst.c
    ``array_var_assignment``); quoted with ``@`` the ``declare -FLAGS a=`` part is split by ``IFS``
    and the value kept whole, ``*`` one field, unquoted the whole split; the sim said ``Bad
    substitution``."""
    agree(script, _BASH, as_bash=True)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(st.sampled_from("aZ \"'$`\\!*\t"), max_size=4), max_size=4), st.booleans())
def test_whole_array_assignment_rebuilds_the_array(values: list[str], assoc: bool) -> None:
    """Property: ``eval "${a[*]@A}"`` after ``unset a`` rebuilds the same array (``declare -p``
    prints the same line), in the sim as in bash."""
    assume(not any("$$" in value for value in values))  # Kubernetes makes a command's ``$$`` ``$``
    quoted = ["'" + value.replace("'", "'\\''") + "'" for value in values]
    body = " ".join(f"[k{i}]={q}" for i, q in enumerate(quoted)) if assoc else " ".join(quoted)
    declare = "declare -A a" if assoc else "declare -a a"
    script = f'{declare}=({body}); declare -p a; s="${{a[*]@A}}"; unset a; eval "$s"; declare -p a'
    run = interpret(["bash", "-c", script])
    assert run.exit_code == 0
    assert run.logs[0] == run.logs[1]
    agree(script, _BASH, as_bash=True)
