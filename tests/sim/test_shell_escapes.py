"""Line continuation (POSIX "Shell Command Language" 2.2.1: a backslash-newline outside single
quotes and comments is removed before the script is read, so a script ending in one ends there) and
``printf``'s escapes as dash and bash read them (XCU ``printf``; bash(1) "printf": bash's format
takes ``\\"``, ``\\'`` and ``\\?``, dash's and any ``%b`` argument keep the backslash). Compared
with both shells."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SHELLS, agree, real_output, simulated_output


@pytest.mark.parametrize("script", [
    "echo a \\\n",
    "echo a\\\nb; echo \"c\\\nd\" 'e\\\nf'",
    "# a comment \\\necho g \\\n  h; echo c \\",
    "if true; \\\nthen echo t; fi; x=1\\\n2; echo $x",
    "echo 1 && \\\n echo 2 | \\\n tr 2 3",
])
def test_line_continuation_agrees_with_dash_and_bash(script: str) -> None:
    agree(script)
    agree(script, ("bash",), as_bash=True)


_PIECES = st.sampled_from(["\\\"", "\\'", "\\?", "\\e", "\\\\", "\\n", "a", "%%", "\\101", "\""])


@settings(max_examples=40, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=5), st.booleans())
def test_printf_escapes_agree_with_each_shell(pieces: list[str], as_b: bool) -> None:
    text = shlex.quote("".join(pieces))
    script = f"printf '%b|' {text}; echo" if as_b else f"printf {text}; echo"
    for shell in SHELLS:
        sim = simulated_output(script, shell="bash" if shell == "bash" else "sh")
        assert sim == real_output(shell, script), shell
