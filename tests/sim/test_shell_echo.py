"""``echo`` in the simulated shells (kbatch.sim.shell_commands ``_echo``): dash's converts backslash
escapes always, as its ``printf %b`` (dash(1) ``echo``: ``\\c`` ends the output, newline included;
``\\0NNN`` and ``\\NNN`` are octal bytes) and takes only a first ``-n``; bash's takes any leading words of
``-n``/``-e``/``-E`` letters and converts escapes only under ``-e``, its own list (bash(1) ``echo``:
``\\E``, hex, an octal byte only after ``\\0``). Before, both printed every operand as written.
Compared with bash (not in POSIX mode: ``bash -c`` as a container runs it) and dash, in the C locale."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SHELLS, real_output, simulated_output


def _agree(script: str) -> None:
    for shell in SHELLS:
        simulated = simulated_output(script, shell="bash" if shell == "bash" else "sh")
        assert simulated == real_output(shell, script, posix=False), (shell, script)


@pytest.mark.parametrize("script", [
    'echo "a\\nb\\tc"; echo end',
    'echo -n x; echo "y\\c" z; echo end',
    'echo -e "e\\x41|\\101|\\0101|\\E|\\e|\\1|\\08"; echo',
    'echo -ne "q\\n"; echo -E "r\\n"; echo -enE "s\\n"; echo',
    'echo -- s; echo -; echo -nx a; echo -n -e "t\\n"; echo -e -n "u\\c"; echo',
    'echo "\\\\|\\a|\\z|\\?|\\x|\\u"',
    'echo -en; echo -e; echo "v\\0400w"',
    'x=$(echo "a\\tb"); printf "%s|" "$x"; echo',
])
def test_echo_agrees_with_bash_and_dash(script: str) -> None:
    _agree(script)


_PIECES = st.sampled_from(["a", " ", "\\n", "\\t", "\\\\", "\\c", "\\0", "\\01", "\\101", "\\0101", "\\7",
                           "\\x4", "\\x41", "\\e", "\\E", "\\q", "-n", "-e", "-E", "-ne", "--", "\\v", "7"])
_WORD = st.lists(_PIECES, min_size=0, max_size=4).map("".join)


@settings(max_examples=40, deadline=None)
@given(st.lists(_WORD, min_size=0, max_size=4))
def test_generated_echo_words_agree(words: list[str]) -> None:
    quoted = " ".join("'" + w + "'" for w in words)
    _agree(f"echo {quoted}; echo .")
