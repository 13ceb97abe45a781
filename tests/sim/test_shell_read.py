"""bash's ``read`` options in the simulated shell (kbatch.sim.shell_read; bash(1) "read"): ``-d``,
``-n``, ``-N``, ``-a`` (with the ``${NAME[i]}`` / ``${NAME[@]}`` / ``${#NAME[@]}`` expansions), ``-t``
on an input that never blocks. Each script's output is compared with bash's."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import agree, real_output, simulated_output


@pytest.mark.parametrize("script", [
    'read -d , a b <<< "x y,z"; echo "[$a][$b] $?"',
    'read -d , a <<< "xyz"; echo "[$a] $?"',
    'read -n 2 a <<< "xyz"; echo "[$a] $?"; read -n1 b <<< "pq"; echo $b',
    'read -n 5 a b <<< "x y"; echo "[$a][$b] $?"',
    'read -N 4 a <<< "x y\nzz"; echo "[$a] $?"',
    'read -a arr <<< "a b  c"; echo "${arr[1]} ${#arr[@]} $arr ${arr[*]}"',
    'read -a arr <<< "a b  c"; for x in "${arr[@]}"; do echo "<$x>"; done',
    'read -a arr <<< "a b  c"; for x in ${arr[*]}x; do echo $x; done',
    'IFS=, read -a arr <<< "a,b,"; echo ${#arr[@]}; i=1; echo "${arr[i]} ${arr[$i-1]} [${arr[5]}]"',
    'read -a arr <<< "p q"; read -a arr <<< "r"; echo "${#arr[@]} ${arr[@]}"',
    'read -t 1 a < /dev/null; echo "$? [$a]"; read -t 0 < /dev/null; echo $?; read -t 0 <<< x; echo $?',
    'read -t 2.5 a <<< "in time"; echo "$? $a"',
    'read -n 3 a <<< "a\\bcd"; echo "[$a]"; read -rd: a <<< "p:q"; echo $a',
    'read -d "" a <<< "a\nb"; echo "[$a] $?"',
    'printf "k1=v1;k2=v2;" | while read -d ";" kv; do echo "<$kv>"; done',
    'printf "one\ntwo\n" > f; while read -r -n 2 c; do echo "<$c>"; done < f',
    'read <<< "  spaced  "; echo "[$REPLY]"',
])
def test_read_options_agree_with_bash(script: str) -> None:
    agree(script, ("bash",))


@pytest.mark.parametrize(("script", "status"), [
    ("read -x a; echo $?", "2"),
    ("read -n x a <<< z; echo $?", "1"),
    ("read -t soon a <<< z; echo $?", "1"),
    ("read -d", "2"),
])
def test_bad_read_operands_are_bashs_messages_and_status(script: str, status: str) -> None:
    sim, _ = simulated_output(script)
    real, _ = real_output("bash", script)
    assert sim.replace("sh: 1: ", "bash: line 1: ") == real
    assert sim.splitlines()[-1] == status or script == "read -d"


# a backslash ending the input is left out: bash then stores its internal escape byte (\x01)
_TEXT = st.text(st.sampled_from("ab ,;\\\n"), max_size=10).filter(lambda t: not t.endswith("\\"))


@settings(max_examples=50, deadline=None)
@given(_TEXT, st.sampled_from([",", ";", ""]), st.sampled_from(["", "-n 1", "-n 3", "-N 2"]), st.booleans(),
       st.sampled_from(["a", "a b", "REPLY"]))
def test_read_up_to_a_delimiter_or_a_count_agrees_with_bash(text: str, delim: str, count: str, raw: bool,
                                                              names: str) -> None:
    delimiter = f"-d {shlex.quote(delim)}" if delim else ""
    options = " ".join(o for o in ("-r" if raw else "", delimiter, count) if o)
    shown = " ".join(f'"[${n}]"' for n in names.split())
    script = f"printf %s {shlex.quote(text)} > in; read {options} {names} < in; echo $? {shown}"
    agree(script, ("bash",), as_bash=True)  # bash's echo: a backslash read into $a is printed as is


@pytest.mark.parametrize("line", ["x\\ ", "\\ \\ ", "x \\ y", " \\ x", "\\  ", "a \\  "])
def test_escaped_blanks_in_a_plain_read_agree_with_bash_and_dash(line: str) -> None:
    agree(f"printf '%s\\n' {shlex.quote(line)} > in; read a < in; echo \"[$a]\"; read a b < in; "
          "echo \"[$a][$b]\"")
