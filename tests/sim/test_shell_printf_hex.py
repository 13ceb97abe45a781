"""bash's ``printf`` hex escapes in the simulated ``bash -c`` (kbatch.sim.shell_printf; bash(1)
"SHELL BUILTIN COMMANDS" ``printf``): ``\\xHH`` (one or two hex digits, a byte), ``\\uHHHH`` and
``\\UHHHHHHHH`` (up to four / eight, a character; past ASCII it cannot be written in the C locale
and stays an escape, ``\\u00E9``), in the format and in a ``%b`` argument. dash has none: the
simulated ``sh -c`` keeps them as text, as dash does. Compared with bash and dash."""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.sim.real_shell import SHELLS, real_output, simulated_output


def _agree(script: str) -> None:
    for shell in SHELLS:
        simulated = simulated_output(script, shell="bash" if shell == "bash" else "sh")
        assert simulated == real_output(shell, script, posix=False), shell


@pytest.mark.parametrize("script", [
    "printf '\\x41\\x4a\\x7e|\\x4g|\\x9|\\x414\\n'",
    "printf '\\u00e9|\\u41|\\U1F600|\\u7f|\\u80|\\U00000041|\\u00411\\n'",
    "printf '%b|%b\\n' '\\x41\\u00e9' '\\x7a\\c\\x41'; echo",
    "printf 'a\\x0ab\\n'; printf '%s\\n' '\\x41'",  # %s leaves it alone
    "x=$(printf '\\x2d'); echo \"$x\"",
])
def test_hex_escapes_agree_with_bash_and_dash(script: str) -> None:
    _agree(script)


_HEX = st.text("0123456789abcdefABCDEFg", min_size=0, max_size=9)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["x", "u", "U"]), _HEX, st.booleans())
def test_generated_hex_escapes_agree(kind: str, digits: str, in_b: bool) -> None:
    if not digits[:1] or digits[:1] not in ("1234567" if kind == "x" else "0123456789abcdefABCDEF"):
        digits = "4" + digits  # no digit: bash warns (not modelled); a byte past ASCII: no text
    taken = re.match(f"[0-9a-fA-F]{{1,{ {'x': 2, 'u': 4, 'U': 8}[kind]}}}", digits)
    assume(taken is not None and int(taken.group(), 16) not in (0, 0x0D))  # the harness reads \r as \n
    escape = f"\\{kind}{digits}"
    _agree(f"printf '%b|\\n' '{escape}'" if in_b else f"printf '{escape}|\\n'")
