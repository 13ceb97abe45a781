"""bash's ``printf %q`` in the simulated shell (kbatch.sim.shell_printf ``shell_quote``; bash(1)
"printf", ``lib/sh/shquote.c``): the same quoting as bash in the C locale, and text bash reads back
as the value it quoted."""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.shell_printf import shell_quote
from tests.sim.real_shell import agree

_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}


def _bash(script: str, *args: str) -> str:
    return subprocess.run(["bash", "-c", script, "_", *args], capture_output=True, text=True, env=_ENV,
                          check=True, timeout=20).stdout


@settings(max_examples=80, deadline=None)
@given(st.text(st.sampled_from("ab =:~#'\"\\$`*?[]{},!|&;<>()^\t\n\x01\x1bé"), max_size=8))
def test_percent_q_quotes_as_bash_does_and_bash_reads_it_back(text: str) -> None:
    quoted = shell_quote(text)
    assert quoted == _bash('printf %q "$1"', text)
    assert _bash('eval "v=$1"; printf %s "$v"', quoted) == text


@pytest.mark.parametrize("script", [
    "printf '%q|%5q|%-6q|%.3q|\\n' 'a b' x \"it's\" '=~'; printf '[%q]\\n'; printf '%q %q\\n' a 'b c' d",
    "X='$HOME *'; printf 'cmd %q\\n' \"$X\" > f; cat f",
])
def test_printf_q_in_a_script_agrees_with_bash(script: str) -> None:
    agree(script, ("bash",))
