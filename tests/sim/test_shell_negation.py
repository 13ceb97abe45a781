"""``! PIPELINE`` in a simulated script (POSIX "Shell Command Language" 2.9.2): the pipeline's
status negated, 0 for a non-zero status and 1 for 0; ``!`` as a quoted word or an argument is data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.sim.command import interpret


@pytest.mark.parametrize(("script", "want"), [
    ("if ! false; then echo negated; fi", ("negated",)),
    ("! true; echo $?", ("1",)),
    ("! echo a | grep -q b && echo no-match", ("no-match",)),
    ("n=0; while ! [ $n -ge 3 ]; do n=$((n+1)); done; echo $n", ("3",)),
    ("echo '!' x; echo ! y", ("! x", "! y")),
])
def test_a_negated_pipeline_has_the_opposite_status(script: str, want: tuple[str, ...]) -> None:
    run = interpret(["sh", "-c", script])
    assert (run.logs, run.exit_code) == (want, 0)


@given(st.integers(min_value=0, max_value=3), st.booleans())
def test_the_status_of_a_negation_is_zero_exactly_when_the_pipeline_failed(code: int, piped: bool) -> None:
    pipeline = f"[ {code} -eq 0 ]" if not piped else f"echo {code} | grep -q '^0$'"
    plain = interpret(["sh", "-c", f"{pipeline}; echo $?"]).logs
    negated = interpret(["sh", "-c", f"! {pipeline}; echo $?"]).logs
    assert plain == (str(int(code != 0)),)
    assert negated == (str(int(plain == ("0",))),)


@pytest.mark.parametrize(("script", "want"), [
    ("! if true; then echo x; fi; echo $?", ("x", "1")),
    ("! while false; do :; done; echo $?", ("1",)),
    ("! for i in 1; do false; done && echo failed", ("failed",)),
    ("! case a in b) ;; esac || echo matched-none", ("matched-none",)),
])
def test_a_negated_compound_command_has_the_opposite_status(script: str, want: tuple[str, ...]) -> None:
    # bash --posix and dash print the same
    run = interpret(["sh", "-c", script])
    assert (run.logs, run.exit_code) == (want, 0)
