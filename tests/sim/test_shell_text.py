"""Here-documents, ``read``, ``printf``, pipelines and their consumers in a simulated script
(kbatch.sim.shell_input, shell_printf, shell_text), as dash runs them with GNU coreutils."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret, unmodelled_command
from kbatch.sim.shell_printf import printf


def _run(script: str, **env: str) -> tuple[tuple[str, ...], int]:
    run = interpret(["sh", "-c", script], env=env)
    return run.logs, run.exit_code


HEREDOCS = [
    ("cat <<EOF\nhello $NAME\n$((1+2)) $(echo sub)\nEOF", ("hello bob", "3 sub")),
    ("cat <<'EOF'\nhello $NAME\nEOF", ("hello $NAME",)),  # a quoted delimiter: no expansion
    ('cat <<"EOF"\n$NAME\nEOF', ("$NAME",)),
    ("cat <<\\EOF\n$NAME\nEOF", ("$NAME",)),
    ("cat <<-EOF\n\t\tindented $NAME\n\tEOF\necho after", ("indented bob", "after")),  # tabs stripped
    ("cat <<EOF\nprice \\$5 and 'quotes' \"kept\"\nEOF", ("price $5 and 'quotes' \"kept\"",)),
    ("cat <<A; cat <<B\none\nA\ntwo\nB", ("one", "two")),  # bodies in the order of the operators
    ("echo $((1 << 3))", ("8",)),  # a shift is not a here-document
]


@pytest.mark.parametrize(("script", "logs"), HEREDOCS)
def test_here_documents(script: str, logs: tuple[str, ...]) -> None:
    assert _run(script, NAME="bob") == (logs, 0)


READS = [
    ("read a b <<EOF\none two three\nEOF\necho \"$a|$b\"", ("one|two three",), 0),  # the last takes the rest
    ("read a b c <<EOF\n  x  \nEOF\necho \"[$a][$b][$c]\"", ("[x][][]",), 0),
    ("read a <<'EOF'\nback\\slash\nEOF\necho \"$a\"", ("backslash",), 0),  # not -r: \\ quotes
    ("read a <<'EOF'\ncontin\\\nued\nEOF\necho \"$a\"", ("continued",), 0),  # \\-newline joins
    ("read -r a <<'EOF'\nback\\slash\nEOF\necho \"$a\"", ("back\\slash",), 0),
    ("IFS=: read a b <<EOF\nx:y:z\nEOF\necho $a $b; echo \"[$IFS]\"", ("x y:z", "[]"), 0),
    ("read a; echo \"status $? [$a]\"", ("status 1 []",), 0),  # a container's stdin is empty
    ("read line < /etc/hostname; echo $line", ("box",), 0),
    ("while read -r n v; do echo \"$n=$v\"; done <<EOF\na 1\nb 2\nEOF\necho end", ("a=1", "b=2", "end"), 0),
    ("n=0; while read l; do n=$((n+1)); done < /etc/hostname; echo $n", ("1",), 0),
    ("echo x | read v; echo \"v=$v\"", ("v=",), 0),  # a pipeline's commands run in subshells
]


@pytest.mark.parametrize(("script", "logs", "status"), READS)
def test_read(script: str, logs: tuple[str, ...], status: int) -> None:
    from kbatch.sim.files import FileSystem, Mount

    run = interpret(["sh", "-c", script], files=lambda: FileSystem([Mount("/etc/hostname", {"": "box\n"})]))
    assert (run.logs, run.exit_code) == (logs, status)


PRINTF = [
    ("%s\n", ["a"], "a\n", 0),
    ("%s-%d\n", ["a", "1", "b", "2"], "a-1\nb-2\n", 0),  # the format is reused
    ("%s %s\n", ["only"], "only \n", 0),  # a missing argument is empty
    ("%5s|%-5s|%05d|%+d\n", ["ab", "cd", "42", "7"], "   ab|cd   |00042|+7\n", 0),
    ("%x %X %o %u\n", ["255", "255", "8", "-1"], "ff FF 10 18446744073709551615\n", 0),
    ("%d %d %d\n", ["0x1f", "017", "'A"], "31 15 65\n", 0),
    ("%.2f %e\n", ["3.14159", "1000"], "3.14 1.000000e+03\n", 0),
    ("100%%\n", [], "100%\n", 0),
    ("tab\\there\\101\\n", [], "tab\there\x41\n", 0),
    ("%b", ["a\\nb\\cIGNORED"], "a\nb", 0),
    ("%c\n", ["xyz"], "x\n", 0),
    ("%d\n", ["12abc"], "12\n", 1),
]


@pytest.mark.parametrize(("fmt", "args", "out", "status"), PRINTF)
def test_printf(fmt: str, args: list[str], out: str, status: int) -> None:
    text, _, code = printf(fmt, args)
    assert (text, code) == (out, status)


def test_printf_errors_in_the_log() -> None:
    assert _run("printf '%d\\n' x; echo $?") == (("0", "sh: 1: printf: x: expected numeric value", "1"), 0)


PIPELINES = [
    ("echo hello world | tr a-z A-Z", ("HELLO WORLD",), 0),
    ("echo hello | tr -d l", ("heo",), 0),
    ("echo aaabbb | tr -s ab", ("ab",), 0),
    ("echo 'a b' | tr '[:lower:]' '[:upper:]'", ("A B",), 0),
    ("printf 'b\\na\\nc\\n' | sort", ("a", "b", "c"), 0),
    ("printf 'b\\na\\nc\\n' | sort -r | head -n 2", ("c", "b"), 0),
    ("printf '10\\n9\\n100\\n' | sort -n", ("9", "10", "100"), 0),
    ("printf 'a\\nb\\na\\n' | sort -u", ("a", "b"), 0),
    ("printf '1\\n2\\n3\\n4\\n' | tail -n 2", ("3", "4"), 0),
    ("printf '1\\n2\\n3\\n4\\n' | tail -n +3", ("3", "4"), 0),
    ("printf '1\\n2\\n3\\n' | head -1", ("1",), 0),
    ("echo a,b,c | cut -d, -f2,3", ("b,c",), 0),
    ("echo abcdef | cut -c2-4", ("bcd",), 0),
    ("printf 'x\\ny\\nx\\n' | grep -c x", ("2",), 0),
    ("printf 'x1\\ny\\nx2\\n' | grep -n x", ("1:x1", "3:x2"), 0),
    ("printf 'Ab\\nab\\n' | grep -i '^ab$'", ("Ab", "ab"), 0),
    ("printf 'a.b\\naxb\\n' | grep -F a.b", ("a.b",), 0),
    ("printf 'ab\\naab\\n' | grep -E '^a+b$'", ("ab", "aab"), 0),
    ("printf 'a+b\\naab\\n' | grep 'a+b'", ("a+b",), 0),  # BRE: + is literal
    ("printf 'x\\ny\\n' | grep -v x", ("y",), 0),
    ("echo x | grep -q y; echo $?", ("1",), 0),
    ("echo x | grep y", (), 1),  # the last command's status is the pipeline's
    ("printf '1\\n2\\n3\\n' | wc -l", ("3",), 0),
    ("echo one two | wc -w", ("2",), 0),
    ("echo hi | wc", ("      1       1       3",), 0),
    ("echo a | cat - | cat", ("a",), 0),
    ("printf 'a\\nb\\n' | tee /tmp/f | wc -l; cat /tmp/f", ("2", "a", "b"), 0),
    ("echo x | false | true", (), 0),
    ("echo x | true | false", (), 1),
    ("grep -c x /none; echo $?", ("grep: /none: No such file or directory", "2"), 0),
    ("v=$(printf 'a\\nb\\n' | wc -l); echo \"[$v]\"", ("[2]",), 0),
    ("echo 'a|b' | cut -d'|' -f2", ("b",), 0),  # a quoted | is not a pipe
]


@pytest.mark.parametrize(("script", "logs", "status"), PIPELINES)
def test_pipelines(script: str, logs: tuple[str, ...], status: int) -> None:
    assert _run(script) == (logs, status)


def test_a_pipeline_takes_as_long_as_its_longest_command() -> None:
    run = interpret(["sh", "-c", "sleep 3 | cat; echo done"])
    assert (run.duration, run.logs, run.log_offsets) == (3.0, ("done",), (3.0,))
    run = interpret(["sh", "-c", "printf 'a\\n' | sleep 2; echo done"])
    assert run.duration == 2.0


@pytest.mark.parametrize(("script", "found"), [
    ("cat f | wc -l", None), ("printf '%s' x | grep -q x", None), ("cat <<EOF\nx\nEOF", None),
    ("echo x | awk 1", "echo x | awk 1"), ("sort -k2 f", "sort -k2 f"), ("grep -P x f", "grep -P x f"),
    ("while read l; do echo $l; done < f", None),
])
def test_what_is_modelled(script: str, found: str | None) -> None:
    assert unmodelled_command(["sh", "-c", script]) == found


# no quotes, backslashes or redirection characters: an expanded value is read again as words, and a
# quoted word that looks like a redirection is taken as one (limitations of the expander)
_TEXT = st.text(st.characters(codec="ascii", exclude_characters="\x00\\%'\"\r`$<>"), max_size=20)


@given(st.lists(_TEXT, max_size=4))
def test_printf_s_and_read_round_trip(values: list[str]) -> None:
    """What ``printf '%s\\n'`` writes, ``read -r`` reads back line by line (IFS emptied)."""
    values = [v.replace("\n", " ") for v in values]
    args = " ".join("'" + v + "'" for v in values)
    script = (f"printf '%s\\n' {args} > /tmp/v; "
              "while IFS= read -r line; do printf '[%s]\\n' \"$line\"; done < /tmp/v")
    logs = interpret(["sh", "-c", script]).logs
    assert logs == tuple(f"[{v}]" for v in values) if values else logs == ("[]",)


@given(st.integers(-(2 ** 62), 2 ** 62))
def test_printf_d_and_x_round_trip(number: int) -> None:
    text, _, status = printf("%d %x", [str(number), str(abs(number))])
    assert status == 0 and text == f"{number} {abs(number):x}"


@given(st.lists(st.text("abxAB19.", min_size=1, max_size=4), max_size=8))
def test_filters_agree_with_their_definitions(lines: list[str]) -> None:
    """sort (C locale: bytes), sort -u, wc -l and grep -c over the same input, twice the same."""
    feed = "printf '%s\\n' " + " ".join(lines) if lines else "true"
    script = f"{feed} | sort; {feed} | sort -u; {feed} | wc -l; {feed} | grep -c x"
    run = interpret(["sh", "-c", script])
    assert run == interpret(["sh", "-c", script])
    ordered = sorted(lines, key=str.encode)
    assert run.logs == (*ordered, *sorted(set(lines), key=str.encode), str(len(lines)),
                        str(sum("x" in line for line in lines)))
