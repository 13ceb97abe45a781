"""``CMD <<< WORD`` in a simulated script: the expanded word and a newline are the command's
standard input (bash(1) "Here Strings"; busybox ash with its bash compatibility, the usual
``/bin/sh`` of small images); a here-document on the same script still takes its body."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret


@pytest.mark.parametrize(("script", "want"), [
    ('x="1 2"; read a b <<< "$x"; echo "$b"', ("2",)),
    ("cat <<<hello", ("hello",)),
    ("tr a-z A-Z <<< 'up here'", ("UP HERE",)),
    ("grep -c o <<< 'one two'", ("1",)),
    ("cat <<< first; cat <<EOF\nsecond\nEOF", ("first", "second")),
])
def test_a_here_string_is_the_commands_input(script: str, want: tuple[str, ...]) -> None:
    run = interpret(["bash", "-c", script])
    assert (run.logs, run.exit_code) == (want, 0)


@given(st.text(st.sampled_from("ab c"), min_size=1, max_size=10).filter(lambda v: v.strip() == v))
def test_read_from_a_here_string_gets_the_words_back(value: str) -> None:
    run = interpret(["bash", "-c", f"v='{value}'; read -r first rest <<< \"$v\"; echo \"$first|$rest\""])
    first, _, rest = value.partition(" ")
    assert run.logs == (f"{first}|{rest.strip()}",)
