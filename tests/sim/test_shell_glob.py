"""Pathname expansion in the simulated shell (kbatch.sim.shell_glob; POSIX "Shell Command
Language" 2.6.6, 2.13): each script's output is compared with what bash (``--posix``) and dash
print for it in the C locale, in a scratch directory the script fills itself."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.files import FileSystem, Mount
from kbatch.sim.shell_glob import MARKS, expand_pathname, pattern_regex
from tests.sim.real_shell import SETUP as _SETUP
from tests.sim.real_shell import agree as _agree
from tests.sim.real_shell import simulated_output as _sim


@pytest.mark.parametrize("script", [
    "touch b.txt a.txt c.log; echo *.txt; echo *; echo '*'.txt; echo \"*\"; echo \\*",
    "touch a1 a2 b1; echo a?; echo [ab]1; echo [!a]*; echo [a-b]2; echo z*; echo [",
    "touch x; echo x[; echo [x]; echo ?; echo ??",
    "mkdir d e; touch d/1 d/2 e/3 f; echo */; echo */*; echo d/*; echo */[12]; echo nod/*",
    "touch A b C; echo [[:upper:]]; echo [[:lower:]]*; echo [!]]; echo []]",
    "touch a b; X='*'; echo $X; echo \"$X\"; Y=*; echo \"$Y\"; set -f; echo *; set +f; echo *",
    "touch a b; for f in *; do echo \"file $f\"; done; for f in 'a*' zz*; do echo \"$f\"; done",
    "touch 'a b' c; for f in *; do echo \"[$f]\"; done; ls *",
    "mkdir -p s/t; touch s/t/u; echo s/*/u; echo */t; echo s/t/*",
    "touch a; case * in '*') echo literal;; *) echo other;; esac",
])
def test_pathname_expansion_agrees_with_real_shells(script: str) -> None:
    _agree(_SETUP + script)


def test_a_caret_negates_a_bracket_as_bash_and_busybox_do() -> None:
    # dash reads ``[^a]`` as ``^`` or ``a``; bash, and busybox ash through fnmatch(3), as ``[!a]``
    _agree(_SETUP + "touch a1 b1 ^x; echo [^a]*", ("bash",))


_NAME = st.text(st.sampled_from("ab-]["), min_size=1, max_size=3).filter(lambda n: not n.startswith("-"))
_PATTERN = st.lists(st.sampled_from(["a", "b", "*", "?", "[", "]", "!", "-", "'*'", "\\?", "[ab]", "[!a]"]),
                    min_size=1, max_size=5).map("".join)


@settings(max_examples=60, deadline=None)
@given(st.lists(_NAME, min_size=1, max_size=5, unique=True), _PATTERN)
def test_generated_patterns_agree_with_real_shells(names: list[str], pattern: str) -> None:
    touch = " ".join(f"'{n}'" for n in names)
    _agree(f"{_SETUP}touch {touch}; echo {pattern}")


def test_volumes_are_matched_and_sorted_bytewise() -> None:
    files = FileSystem([Mount("/etc/config", {"b.yaml": "", "a.yaml": "", "Z.yaml": "", "n.txt": ""})])
    assert expand_pathname(f"/etc/config/{MARKS['*']}.yaml", "/", files) == [
        "/etc/config/Z.yaml", "/etc/config/a.yaml", "/etc/config/b.yaml"]
    script = "for f in /etc/config/*.yaml; do echo \"$f: $(cat \"$f\")\"; done"
    assert _sim(script, files)[0].splitlines() == ["/etc/config/Z.yaml: ", "/etc/config/a.yaml: ",
                                                   "/etc/config/b.yaml: "]


def test_an_unclosed_bracket_is_no_pattern() -> None:
    assert pattern_regex(MARKS["["]) is None
    assert pattern_regex(f"a{MARKS['[']}b") is None
    assert pattern_regex(f"{MARKS['[']}ab]") is not None
