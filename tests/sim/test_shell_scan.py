"""One quote and nesting scanner for every splitter of the simulated shell (kbatch.sim.shell_scan;
POSIX "Shell Command Language" 2.2, 2.3): separators inside quotes, escapes and nested regions
(``$( )``, ``$(( ))``, ``${ }``, backquotes, ``( )``) do not split, and a ``#`` starting a word begins a
comment. Compared with bash ``--posix`` and dash where both run the script."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.shell_scan import COMMENT, FREE, QUOTED, region_end, scan
from kbatch.sim.shell_words import split_pipeline, split_script
from tests.sim.real_shell import agree


def test_a_bar_inside_a_parameter_expansion_is_no_pipe() -> None:
    # bash: ``a|b`` is the pattern (a literal ``|`` without extglob); dash has no ``${P/…}``
    agree("X='xa|by'; echo ${X/a|b/-} | cat; echo \"${X//[|]/:}\" | cat", ("bash",))
    assert split_pipeline("echo ${X/a|b/-} | cat") == ["echo ${X/a|b/-}", "cat"]


@pytest.mark.parametrize("script", [
    "echo a\\;b; echo c\\&\\&d",
    "echo a # a comment; echo not run\necho b",
    "echo \"$(echo 'x;y' | tr ';' '|')\"; echo done",
    "echo $(echo a; echo b) && echo \"$(echo \"c|d\")\"",
    "X=1; echo ${X:+\"a;b\"} $((X|2))",
    "echo 'it''s'#not-a-comment; echo x#y",
    "true &&\necho a; false ||\necho b; echo c |\ntr c d; false &&\n\necho never; echo end",
])
def test_separators_in_quotes_escapes_and_substitutions_agree_with_real_shells(script: str) -> None:
    agree(script)


def test_kinds_and_depths() -> None:
    found = {pos: (depth, kind) for pos, _, depth, kind in scan("a '|' $(b|c) # x", comments=True)}
    assert found[2] == (0, QUOTED) and found[3] == (0, QUOTED)
    assert found[6] == (0, FREE) and found[7] == (0, FREE)  # ``$(`` at the depth outside it
    assert found[9] == (1, FREE)  # the ``|`` inside
    assert found[11] == (0, FREE)  # its ``)``
    assert found[13] == (0, COMMENT)
    assert region_end("a ${P/}/x} b", 4, "}") == 7  # the first ``}`` closes it (bash does so too)
    assert region_end('x "$(a ")")" y)', 2, ")") == 15


def test_a_lone_closer_is_a_plain_character() -> None:
    assert split_script("case a in a) echo x;; esac") == [
        ([(";", "case a in a) echo x")], False), ([(";", ";;")], False), ([(";", "esac")], False)]


# Generated scripts: commands of plain words and of regions that hold every separator; splitting
# must give back each command whole.
_PLAIN = st.sampled_from(["echo", "a", "b1", "x=1", "2>&1", ">f", "<g"])
_REGION = st.sampled_from([
    "'a;b|c&&d'", '"a;b|c||d"', "\\;", "\\|", "\\&", "$(a; b | c && d)", "$((1|2))", "${X/a|b/;}",
    "${X:-a;b}", "`a;b|c`", '"x $(y "z;|" ) w"', "( a; b | c )", "${X//[;]/&}", "'\"'", '"\'"',
])
_COMMAND = st.lists(st.one_of(_PLAIN, _REGION), min_size=1, max_size=5).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["; ", " && ", " || ", "\n", " & "]),
                          st.lists(_COMMAND, min_size=1, max_size=3)), min_size=1, max_size=4))
def test_splitting_never_cuts_inside_a_quoted_or_nested_region(
        script_parts: list[tuple[str, list[str]]]) -> None:
    script = ""
    for separator, pipeline in script_parts:
        script += (separator if script else "") + " | ".join(pipeline)
    stages = [stage for chain, _ in split_script(script) for _, command in chain
              for stage in split_pipeline(command)]
    assert stages == [command for _, pipeline in script_parts for command in pipeline]
