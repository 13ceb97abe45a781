"""bash's ANSI-C quoting ``$'…'`` and ``${P@E}`` in the simulated shell (kbatch.sim.shell_ansi_c;
bash(1) "QUOTING", "Parameter Expansion"), compared with bash 5.2; dash 0.5.12 has no ``$'…'``
and reads a ``$`` before a single-quoted string."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kbatch.sim.shell_ansi_c import ansi_c_words, decode
from tests.sim.real_shell import SHELLS, agree

_BASH = ("bash",)
_DASH = tuple(shell for shell in SHELLS if shell == "dash")


@pytest.mark.parametrize("script", [
    r"""printf '%q\n' $'a\tb\nc' $'\x41\101\u0042\U00000043' $'\e\E\f\r\v\a\b' $'\\ \' \" \?'""",
    r"""printf '%q\n' $'\z\u\x' $'\8x' $'a\0b' $'\400z' $'\1234' $'\u00e9' $'\U1F600' $'\x414'""",
    r"""printf '%q\n' $'\ca\cZ\c?\c[' $'\c\\x' $'a\c' $'\cA\c@tail'""",
    r"""x=$'it\'s'; echo "$x"; echo "$'a\tb'" '$'"'x'"; echo a$'b\tc'd""",
    r"""case $'a\tb' in $'a\tb') echo tab;; *) echo no;; esac; for w in $'1\n2' x; do echo "[$w]"; done""",
    r"""v=$'x\ny'; echo "$v"; echo $'one;two' $'(p)' $'&' $'|'; # $'comment\n'""",
    r"""read -r a <<< $'in\tput'; echo "[$a]"; f() { echo $'f\x21'; }; f; echo "$(echo $'sub\x21')" """,
    r"""P='a\tb\x41\101\c?\0hidden'; printf '%q\n' "${P@E}"; Q='no escapes'; echo "${Q@E}" "[${u@E}]" """,
    "cat <<EOF\n$'a\\tb' \"$'x'\"\nEOF\necho $'\\x41'",  # a here-document's body keeps it
])
def test_ansi_c_words_agree_with_bash(script: str) -> None:
    agree(script, _BASH, as_bash=True)


@pytest.mark.parametrize("script", [
    r"""x=$'a\tb'; printf '%s\n' "$x" $'q'""",
    r"""printf '%s\n' $'it'"'s"; echo $'a'b""",
])
def test_dash_reads_a_dollar_then_a_quoted_string(script: str) -> None:
    agree(script, _DASH)


def test_script_lines_after_a_decoded_newline_stay_the_scripts() -> None:
    agree("x=$'a\\nb\\nc'\ncat <&5\necho \"$x\"", _BASH, as_bash=True)


def test_decode_and_words() -> None:
    assert decode(r"a\tb\x41\cA") == "a\tbA\x01"
    assert decode(r"x\0y") == "x"
    assert ansi_c_words(r"""echo "$'x'" '$'"'y'" $'it\'s'""") == r"""echo "$'x'" '$'"'y'" 'it'\''s'"""
    assert ansi_c_words("echo $'open") == "echo $'open"


_SIMPLE = st.sampled_from([r"\n", r"\t", r"\\", r"\'", r"\"", r"\?", r"\a", r"\b", r"\e", r"\E", r"\f",
                           r"\r", r"\v", r"\z", r"\8", r"\u", r"\c"])
_HEX = "0123456789abcdefABCDEF"  # no plain character below is one, nor an octal digit (a byte
# past ASCII, from ``\\x`` or ``\\nnn`` running on into it, is no text to compare)


def _octal(text: str) -> bool:
    return int(text, 8) & 0xFF < 0x80  # a byte past ASCII is no text to compare


_ESCAPE = st.one_of(
    _SIMPLE,
    st.text("01234567", min_size=1, max_size=3).filter(_octal).map(lambda d: "\\" + d),
    st.text(_HEX, min_size=1, max_size=2).filter(lambda d: int(d, 16) < 0x80).map(lambda d: "\\x" + d),
    st.text(_HEX, min_size=1, max_size=4).map(lambda d: "\\u" + d),
    st.text(_HEX, min_size=1, max_size=8).map(lambda d: "\\U" + d),
    st.sampled_from("aZ@?[]^_ 1").map(lambda c: "\\c" + c),
)
_BODY = st.lists(st.one_of(_ESCAPE, st.sampled_from(list("qZ $*\"`;|&()"))), max_size=6).map("".join)


@settings(max_examples=60, deadline=None)
@given(_BODY, _BODY)
def test_generated_ansi_c_words_agree_with_bash(first: str, second: str) -> None:
    assume(not any(k in first + " " + second for k in ("$$", "$(")))  # Kubernetes expands these first
    agree(f"printf '%q\\n' $'{first}' x$'{second}'y; v=$'{first}'$'{second}'; echo \"${{#v}}\"", _BASH,
          as_bash=True)


@settings(max_examples=30, deadline=None)
@given(_BODY)
def test_generated_escapes_transform_as_bash_does(body: str) -> None:
    value = "'" + body.replace("'", "'\\''") + "'"
    assume("$$" not in value and "$(" not in value)
    agree(f"P={value}; printf '%q\\n' \"${{P@E}}\"", _BASH, as_bash=True)
