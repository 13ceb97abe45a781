"""bash's compound assignments ``NAME=(…)`` among other words of a command, and the ``[K]=V`` words
inside them (kbatch.sim.shell_compound; bash(1) "Arrays"; bash's ``subst.c``
``expand_declaration_argument``, ``arrayfunc.c`` ``expand_compound_array_assignment``): each
script run as the sim's ``bash -c`` and compared with the machine's bash (not ``--posix``: a
container's ``bash -c``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SETUP, real_output, simulated_output


def _agree(script: str) -> None:
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script


@pytest.mark.parametrize("script", [
    "a=(x y) b=2; declare -p a b",
    "b=2 a=(x \"y z\"); declare -p a b",
    "a=(x y) b=(1 2) c=; declare -p a b c",
    "x=$(echo a b) a=($x) y=$x; declare -p x a y",
    "set -x; a=(x y) b=2 c=($b); declare -p c",
    "declare -a a=(x y) b=2; declare -p a b",
    "declare b=1 a=(x y); declare -p a b",
    "declare -A m=([k]=v) n=([a]=b); declare -p m n",
    "declare -a a=(1) b=(2 3) c; declare -p a b c",
    "declare -i n=(1+1 2*3) m=(4+4); declare -p n m",
    "declare -ra r=(1 2); declare -p r; r=(3); echo never",
    "readonly a=(1 2); declare -p a; export e=(1); declare -p e",
    "f() { local -a a=(1 2) b; declare -p a b; }; f; declare -p a",
    "local a=(1 2); echo $?; declare -p a; f() { local a=(1); }; a=0; f; declare -p a",
    "set -x; declare -a a=(y \"z w\" [3]+=\"it's\") b=2; v=1; declare -A m=([k]=$v [x y]=2); e=()",
    "r=1; readonly r; declare -a r=(1) b=2; echo never",
])
def test_compound_assignments_among_other_words_agree_with_bash(script: str) -> None:
    """``a=(x y) b=2`` is two assignments, in order; a declaration's compound operands are made
    first, each by an internal ``declare`` with the options that transform values (subst.c
    ``expand_declaration_argument``, ``make_internal_declare``), then the builtin runs on their
    names. The sim took the whole command for one word list (``a=([0]="(x")``)."""
    _agree(script)


@pytest.mark.parametrize("script", [
    "a=([1/0]=x) b=2; echo after $b",
    "declare -a a=([1/0]=x) b=2; echo after $b",
    "trap 'echo b=$b; declare -p a' EXIT; b=1 a=(y [1/0]=x) b=2",
    "trap 'echo b=$b; declare -p a' EXIT; declare b=1 a=(y [1/0]=x) b=2",
    "a=(y); (a+=(z [1/0]=x) b=2; echo in); echo out $?; declare -p a",
    "a=([1/0]=x) b=2 || echo or; echo never",
])
def test_an_arithmetic_error_in_a_compound_assignment_abandons_the_command(script: str) -> None:
    """An index that is no arithmetic (expr.c ``evalerror``) abandons the command line
    (``DISCARD``): assignments before it on the command stay, those after it are not made, and a
    ``bash -c`` script ends with 1 (its ``EXIT`` trap runs)."""
    _agree(script)


@pytest.mark.parametrize("script", [
    "k='a b'; v='c d'; declare -A m=([$k]=$v); declare -p m",
    "k='a b'; v='c d'; declare -A m; m=([$k]=$v [x]=* [$v]+=1 [$v]+=2); declare -p m",
    f"{SETUP}touch f1 f2; v='c d'; a=([0]=$v *); declare -p a",
    f"{SETUP}touch f1; v='*'; a=([0]=$v $v [5]=f*); declare -p a",
    "v='c d'; a=([1]=$v [0]=$v); declare -p a",
    "v='c  d'; a=($v [3]=$v); declare -p a",
    "v='c d'; a=([0]=\"$v\"x$v); declare -p a",
    "v='c d'; a+=([2]=$v); declare -p a",
    "IFS=:; v='c:d'; a=([0]=$v $v); declare -p a",
    f"{SETUP}touch f1; x='[0]=*'; a=($x); declare -p a",
    "v='c d'; a=(x=$v \"[0]\"=$v \\[1]=$v); declare -p a",
    "set -- 'p q' r; a=([0]=$@ [5]=$* [6]=\"$@\"); declare -p a",
    "a=(1); a=([0]+=x [0]+=y); a+=([0]+=z [3]+=w v); declare -p a",
    "k='*'; declare -A m=([$k]=1 [f*]=2); declare -p m",
    "a=([0]={a,b} {c,d}); declare -p a",
    "i=2; v='c d'; a=([i+1]=$v [$i*2]=$v); declare -p a",
    "declare -A m; m=([k]+=1 [k]+=2); declare -p m; m=([k]=a [k]+=b); m+=([k]+=c); "
    "declare -A n=([k]=a [k]+=b); declare -p m n",
])
def test_a_subscripted_word_of_a_compound_assignment_is_not_split_nor_globbed(script: str) -> None:
    """A ``[K]=V`` word is an assignment word (parse.y: ``W_ASSIGNMENT``, ``W_NOSPLIT`` under
    ``PST_COMPASSIGN``; arrayfunc.c ``quote_array_assignment_chars``: ``W_NOGLOB``): its key and
    value are expanded but not split into fields nor globbed; the other words are. The sim split
    ``[$k]=$v`` into fields (``k='a b'``: no element at all)."""
    _agree(script)


@pytest.mark.parametrize("script", [
    "e=; v='x y'; declare -A m=(a 1 b) n=($e 1 c 2) p=($v $v k) q=(x=1 2); declare -p m n p q",
    "e=; declare -A n o r; n=($e 1 c 2); o=([a]=1 b [c]=3); r=([]=1 [$e]=2 [a]=2); declare -p n o r",
    "e=; declare -A o=([a]=1 b [c]=3) r=([]=1 [a]=2); declare -p o r",
    "set -x; declare -A m=(a 1 b) o=([a]=1 b)",
])
def test_an_associative_arrays_words_are_pairs_or_subscripted(script: str) -> None:
    """bash 5.2: an associative array's words whose first has no ``[K]=`` are key-value pairs, each
    one word (arrayfunc.c ``assign_assoc_from_kvlist``); else a word without a subscript or with an
    empty key is refused with bash's words (``assign_compound_array_list``), the others assigned.
    The sim dropped such words silently."""
    _agree(script)


_PIECE = st.sampled_from(["$v", "\"$v\"", "x", "*", "$k", "'q r'"])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.booleans(), _PIECE, _PIECE), max_size=4), st.booleans())
def test_generated_compound_words_agree_with_bash(words: list[tuple[bool, str, str]], assoc: bool) -> None:
    """Property: a list of ``[K]=V`` and plain words built of expansions holding blanks and
    patterns assigns what bash assigns, in an indexed (keys arithmetic: ``$i``) or associative
    array."""
    body = " ".join(f"[{'$i' if not assoc else key}]={value}" if sub else value for sub, key, value in words)
    declare = "declare -A a" if assoc else "declare -a a"
    _agree(f"{SETUP}touch f1 f2; i=3; v='c  d'; k='*'; {declare}=({body}); declare -p a")


@pytest.mark.parametrize("script", [
    "v='p q'; declare x=$v; export y=$v; readonly -- z=$v; declare -p x y z",
    "v='p q'; f() { local x=$v; echo \"[$x]\"; }; f",
    f"{SETUP}touch f1 f2; export x=f* y; readonly z=f*; echo \"[$x][$z]\" f*",
    "set -- 'a b' c; export x=$@ y=$*; echo \"[$x][$y]\"",
    "v='(p q)'; declare -a a=$v; declare -a 'b=(1 \"2 3\")'; declare -A m='([k]=v [$v]=2)'; declare -p a b m",
    "a=(1); declare a='(x $a)'; declare b='(x y)'; declare -p a b; set -x; declare -a c='(1 2)'",
    "declare -a a='([1/0]=x)'; echo never",
])
def test_a_declaration_utilitys_assignments_are_not_split(script: str) -> None:
    """``export x=$v``, ``local x=$v``, ``declare x=$v``: the operand is an assignment, neither
    split nor globbed (XCU 2.9.1 declaration utilities; dash and bash alike); an array's value that
    reads ``(…)`` is a compound assignment, its words expanded again (bash ``builtins/declare.def``
    ``compound_array_assign``). The sim split ``x=$v`` at its blanks."""
    _agree(script)


@pytest.mark.parametrize("script", [
    "v='p q'; export y=$v; echo \"[$y]\"; f() { local x=$v; echo \"[$x]\"; }; f; readonly z=$v; "
    "echo \"[$z]\"",
    f"{SETUP}touch f1 f2; export x=f*; echo \"[$x]\" f*",
])
def test_a_declaration_utilitys_assignments_are_not_split_in_dash(script: str) -> None:
    """The same under ``sh -c``, compared with dash 0.5.12."""
    assert simulated_output(script) == real_output("dash", script)


@pytest.mark.parametrize("script", [
    "x=1 y=$x z=$((x+1)); echo $y $z; set -x; a=1 b=$a",
    "x=2; x=1 y=$x; echo $y; a=$(echo 3) b=$?; echo $a $b",
])
def test_assignment_words_are_made_in_turn(script: str) -> None:
    """``x=1 y=$x``: each assignment is expanded once the one before it is made (dash and bash;
    bash traces each on its own line, dash the command once); the sim expanded them all first."""
    _agree(script)
    assert simulated_output(script) == real_output("dash", script)


@pytest.mark.parametrize("script", [
    "x=1 y=$x >/dev/null; echo \"$y\"; x=2 y=$x 2>&1; echo \"$y\"; y=5 x=1 y=$x$y 2>/dev/null; echo $y",
    "a=(x y) >/dev/null; echo \"${a[@]}\"; a=(p q) b=$a >/dev/null; echo \"${a[@]} $b\"",
    f"{SETUP}x=1 y=$x >f; echo \"$y\"; ls; x=$(echo hi) >g; echo \"$x\"; cat g; echo end",
    "x=1 >/dev/null y=$x; echo $y; set -x; a=(1 2) b=$a >/dev/null; x=$(echo q) y=$x 2>&1",
    f"{SETUP}x=$(echo hi >&2) 2>/dev/null; echo \"[$x]\"; x=1 >$x; ls; echo $?",
])
def test_assignment_words_with_a_redirection_are_made_in_turn(script: str) -> None:
    """An assignment-only command with a redirection (``x=1 y=$x >/dev/null``, ``a=(x y) >f``)
    assigns as one without: in turn, each expansion seeing the earlier assignments, then the
    redirections, expanded after them (bash's ``execute_null_command``); the sim expanded all
    the words first (``y`` empty) and left a compound assignment undone."""
    _agree(script)
