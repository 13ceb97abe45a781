"""Quotes inside expanded values are data (kbatch.sim.shell_expand): POSIX "Shell Command Language"
2.6 performs quote removal (2.6.7) only on the quotes of the original word, never on characters an
expansion produced; field splitting (2.6.5) applies to unquoted expansions only. Each script's
expected output is what dash and bash print for it."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret
from kbatch.sim.shell_expand import split_fields


def _logs(script: str) -> tuple[str, ...]:
    run = interpret(["sh", "-c", script])
    assert run.exit_code == 0, run
    return run.logs


@pytest.mark.parametrize(("script", "want"), [
    ("X=\"a 'b\"; printf '%s\\n' $X", ("a", "'b")),
    ("X=\"a 'b\"; printf '%s\\n' \"$X\"", ("a 'b",)),
    ("X='say \"hi\"'; printf '%s\\n' \"$X\"", ('say "hi"',)),
    ("X='a\\b'; printf '%s\\n' \"$X\" $X", ("a\\b", "a\\b")),
    ("X='a   b'; printf '%s\\n' $X \"$X\"", ("a", "b", "a   b")),
    ("printf '%s\\n' $(printf '%s' \"it's\")", ("it's",)),
    ("X=\"it's\"; Y=$X; printf '%s\\n' \"$Y\"", ("it's",)),
    ("X=\"it's\"; case $X in \"it's\") echo yes;; *) echo no;; esac", ("yes",)),
    ("X='*'; case a in $X) echo glob;; esac", ("glob",)),
    ("X='*'; case a in \"$X\") echo literal;; *) echo no;; esac", ("no",)),
    ("X='\"'; case '\"' in $X) echo quote;; *) echo no;; esac", ("quote",)),
    ("X='a b'; Y=$X; printf '%s\\n' \"$Y\"", ("a b",)),
    ("X='a b'; printf '%s\\n' Y=$X", ("Y=a", "b")),
    ("X='a b'; Y=$X printf '%s\\n' \"$X\"", ("a b",)),
    ("X=a; printf '%s\\n' \\\"$X\\\"", ('"a"',)),
    ("X=\"'a'\"; case \"'a'\" in $X) echo yes;; *) echo no;; esac", ("yes",)),
    ("case 'a*' in 'a*') echo one;; esac; case ab in 'a*') echo two;; a\\*) echo three;; *) echo four;; esac",
     ("one", "four")),
])
def test_quotes_an_expansion_produces_are_kept(script: str, want: tuple[str, ...]) -> None:
    assert _logs(script) == want


# no ``$``: the kubelet reads ``$$`` and ``$(VAR)`` in a container's command before the shell does;
# ``*`` only where no pathname expansion applies (double quotes)
_VALUE = st.text(st.sampled_from("ab '\"\\*"), min_size=1, max_size=12).filter(
    lambda v: v.strip() == v and "  " not in v)


@given(_VALUE)
def test_a_double_quoted_expansion_is_one_field_equal_to_the_value(value: str) -> None:
    assert _logs(f"X={shlex.quote(value)}; printf '%s\\n' \"$X\"") == (value,)


@given(_VALUE.filter(lambda v: "*" not in v))
def test_an_unquoted_expansion_is_split_on_blanks_only(value: str) -> None:
    assert _logs(f"X={shlex.quote(value)}; printf '%s\\n' $X") == tuple(value.split(" "))


@given(_VALUE)
def test_a_case_word_matches_itself_quoted_whatever_it_holds(value: str) -> None:
    script = f"X={shlex.quote(value)}; case \"$X\" in \"$X\") echo same;; *) echo other;; esac"
    assert _logs(script) == ("same",)


@given(_VALUE.filter(lambda v: not any(c in v for c in "*?[\\")), _VALUE)
def test_an_unquoted_pattern_without_glob_characters_matches_only_its_value(pattern: str, word: str) -> None:
    script = f"X={shlex.quote(pattern)}; case {shlex.quote(word)} in $X) echo same;; *) echo other;; esac"
    assert _logs(script) == ("same" if word == pattern else "other",)


@pytest.mark.parametrize(("script", "want"), [
    ("echo '>>> starting'; echo \"<\"; echo '<<EOF'; echo \\>x", (">>> starting", "<", "<<EOF", ">x")),
    ("X='>f'; echo $X; cat f", (">f", "cat: f: No such file or directory")),
    ("echo b>>/tmp/o; echo c>/tmp/o; cat /tmp/o", ("c",)),
    ("echo a 2>&1; echo d 2>/tmp/q; cat /tmp/q", ("a", "d")),
])
def test_only_an_unquoted_operator_redirects(script: str, want: tuple[str, ...]) -> None:
    run = interpret(["sh", "-c", script])
    assert run.logs == want


@pytest.mark.parametrize(("script", "want"), [
    ("L=a,b,c; IFS=,; for x in $L; do echo $x; done", ("a", "b", "c")),
    ("L='a,,b'; IFS=,; printf '[%s]\\n' $L", ("[a]", "[]", "[b]")),
    ("L='a b:c'; IFS=:; printf '[%s]\\n' $L", ("[a b]", "[c]")),
    ("L='a b'; IFS=; printf '[%s]\\n' $L", ("[a b]",)),
    ("L='x,y'; IFS=,; printf '[%s]\\n' \"$L\" pre$L", ("[x,y]", "[prex]", "[y]")),
    ("L='a b'; for x in $L \"q r\" $((1+2)); do echo $x; done", ("a", "b", "q r", "3")),
    ("X=\"it's\"; for x in $X; do echo $x; done", ("it's",)),
])
def test_unquoted_expansions_are_split_by_ifs(script: str, want: tuple[str, ...]) -> None:
    assert _logs(script) == want


_IFS_VALUE = st.text(st.sampled_from("ab,: "), max_size=10)


@given(_IFS_VALUE, st.sampled_from([",", ":", ", ", " ", ",:"]))
def test_the_fields_printed_are_split_fields_of_the_value(value: str, ifs: str) -> None:
    fields = split_fields(value, ifs)
    script = f"V={shlex.quote(value)}; IFS={shlex.quote(ifs)}; printf '[%s]\\n' $V"
    run = interpret(["sh", "-c", script])
    assert run.logs == (tuple(f"[{f}]" for f in fields) if fields else ("[]",))


def test_split_fields_follows_posix() -> None:
    assert split_fields(" a , b ", ", ") == ["a", "b"]
    assert split_fields("a,", ",") == ["a"] and split_fields(",a", ",") == ["", "a"]
    assert split_fields("a  b", " ") == ["a", "b"] and split_fields("   ", " ") == []
    assert split_fields("a b", "") == ["a b"]
