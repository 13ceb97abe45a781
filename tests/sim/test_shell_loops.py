"""``while``/``until``, ``break``/``continue``, ``case``, ``$(( ))``, ``let`` and ``$( )`` in a simulated
container's script (kbatch.sim.shell_run, shell_syntax, shell_arith, shell_expand): POSIX "Shell
Command Language" 2.6.3, 2.6.4, 2.9.4.3, 2.9.4.5-6, 2.14, as dash runs them. Each example ran as
"anything else" (1 s, exit 0) before these constructs were modelled."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import ContainerRun, interpret
from kbatch.sim.shell_arith import ArithError, evaluate, truncating_div, truncating_mod, wrap64
from kbatch.sim.shell_run import MAX_LOG_LINES, MAX_STEPS
from kbatch.sim.shell_syntax import Case, While, parse_script


def sh(script: str, **env: str) -> ContainerRun:
    return interpret(["sh", "-c", script], env)


def outcome(script: str, **env: str) -> tuple[float, int, tuple[str, ...]]:
    run = sh(script, **env)
    return run.duration, run.exit_code, run.logs


@pytest.mark.parametrize(("script", "want"), [
    # the brief's counting loop: five lines a second apart, 5 s
    ("i=0; while [ $i -lt 5 ]; do echo $i; sleep 1; i=$((i+1)); done", (5.0, 0, ("0", "1", "2", "3", "4"))),
    ("n=3; until [ $n -eq 0 ]; do echo $n; n=$((n-1)); sleep 2; done; echo go",
     (6.0, 0, ("3", "2", "1", "go"))),
    ("i=0; while true; do i=$((i+1)); [ $i -ge 4 ] && break; done; echo $i", (0.0, 0, ("4",))),
    ("for i in 1 2 3 4; do [ $i = 2 ] && continue; echo $i; done", (0.0, 0, ("1", "3", "4"))),
    ("for a in 1 2; do for b in x y; do [ $b = y ] && continue 2; echo $a$b; done; done",
     (0.0, 0, ("1x", "2x"))),
    ("for a in 1 2; do while :; do break 2; done; echo never; done; echo out", (0.0, 0, ("out",))),
    ("while false; do echo no; done", (0.0, 0, ())),  # no iteration: status 0
    ("i=0; while [ $i -lt 2 ]; do i=$((i+1)); false; done", (0.0, 1, ())),  # the body's last status
    ("i=0; while [ $i -lt 3 ]; do i=$((i+1)); if [ $i = 2 ]; then exit 7; fi; done", (0.0, 7, ())),
    ("break; echo after", (0.0, 0, ("after",))),  # outside a loop: nothing (dash)
])
def test_while_until_break_continue(script: str, want: tuple[float, int, tuple[str, ...]]) -> None:
    assert outcome(script) == want


@pytest.mark.parametrize(("index", "want"), [("0", ("leader",)), ("1", ("worker 1",)), ("7", ("worker 7",)),
                                             ("x", ("odd x",))])
def test_case_on_the_completion_index(index: str, want: tuple[str, ...]) -> None:
    script = ('case $JOB_COMPLETION_INDEX in\n  0) echo leader;;\n  [1-9]|[1-9][0-9]) echo "worker '
              '$JOB_COMPLETION_INDEX" ;;\n  *) echo "odd $JOB_COMPLETION_INDEX";;\nesac')
    assert sh(script, JOB_COMPLETION_INDEX=index).logs == want


@pytest.mark.parametrize(("script", "want"), [
    ('case "a*" in "a*") echo literal;; a*) echo glob;; esac', ("literal",)),  # quoted: literal
    ('case abc in "a"*) echo prefix;; esac', ("prefix",)),
    ("case x in (x) echo parenthesised;; esac", ("parenthesised",)),
    ("case z in a) echo a;; esac; echo $?", ("0",)),  # no arm: status 0
    ("X=b; case $X in a|b) echo ab; sleep 3;; esac", ("ab",)),
    ("case q in ?) echo one-char;; *) echo other;; esac", ("one-char",)),
])
def test_case_patterns(script: str, want: tuple[str, ...]) -> None:
    assert sh(script).logs == want


def test_the_tree_of_while_and_case() -> None:
    nodes = parse_script("until [ -f /tmp/ready ]; do sleep 1; done\ncase $I in 0) exit 1;; *) :;; esac")
    assert nodes is not None
    loop, case = nodes
    assert isinstance(loop, While) and loop.until and len(loop.body) == 1
    assert isinstance(case, Case) and case.word == "$I" and [p for p, _ in case.arms] == [("0",), ("*",)]


@pytest.mark.parametrize(("index", "code"), [("0", 0), ("1", 1), ("2", 0), ("7", 1)])
def test_exit_with_arithmetic(index: str, code: int) -> None:
    assert sh("exit $((JOB_COMPLETION_INDEX % 2))", JOB_COMPLETION_INDEX=index).exit_code == code


@pytest.mark.parametrize(("script", "want"), [
    ("echo $((1 + 2 * 3)) $((7 / -2)) $((-7 % 3)) $((1 << 4)) $((5 > 3 && 2 < 1))", "7 -3 -1 16 0"),
    ("x=5; echo $((x * x)) $(($x+1)) $((y + 1))", "25 6 1"),  # names with or without $; unset is 0
    ("echo $((i = 3)) >/dev/null; echo $((i += 4)) $i", "7 7"),
    ("echo $((010 + 0x10)) $((~0)) $((!3)) $((2 ? 10 : 20))", "24 -1 0 10"),
    ("echo $((9223372036854775807 + 1))", "-9223372036854775808"),  # 64-bit wrap
    ("let a=2*3 b=a+1; echo $a $b", "6 7"),
])
def test_arithmetic_expansion(script: str, want: str) -> None:
    assert sh(script).logs[-1] == want


def test_an_arithmetic_error_exits_the_shell_with_2() -> None:
    assert outcome("echo before; echo $((1 / 0)); echo after") == (
        0.0, 2, ("before", "sh: 1: arithmetic expression: division by zero"))
    assert sh("let 0").exit_code == 1 and sh("let 1").exit_code == 0


def test_command_substitution_of_modelled_commands() -> None:
    assert sh('n=$(echo 3); echo "n is $n"; echo $(($(echo 4) * 2))').logs == ("n is 3", "8")
    assert sh("x=$(sleep 5; echo late); echo $x").log_offsets == (5.0,)
    assert sh("echo $(hostname)").logs == ("$(hostname)",)  # not modelled: left as written, no time
    assert sh("x=1; y=$(x=2; echo $x); echo $x $y").logs == ("1 2",)  # a subshell's variables stay in it


def test_a_loop_that_changes_nothing_runs_until_killed_without_spinning() -> None:
    """``while true; do sleep 10; done`` is a long-running container: its iteration leaves every
    variable and file as it found them, so the run is infinite (the kubelet kills it) and the
    interpreter stops after the second iteration instead of running forever."""
    assert sh("while true; do sleep 10; done") == ContainerRun(math.inf, 0)
    assert sh("until [ -f /tmp/ready ]; do sleep 1; done").duration == math.inf
    assert sh("echo start; while :; do :; done").duration == math.inf  # a busy loop: also forever
    ticking = sh("echo start; while true; do echo tick; sleep 10; done")
    assert ticking.duration == math.inf and len(ticking.logs) == MAX_LOG_LINES
    assert ticking.logs[:3] == ("start", "tick", "tick")
    assert ticking.log_offsets[:4] == (0.0, 0.0, 10.0, 20.0)
    background = sh("while true; do sleep 60; done & sleep 5; echo main done")
    assert (background.duration, background.logs) == (5.0, ("main done",))  # sh exits without waiting
    assert sh("while true; do sleep 60; done & wait").duration == math.inf
    assert outcome("if true; then sleep 3; echo bg; fi & echo fg; wait") == (3.0, 0, ("fg", "bg"))


def test_a_loop_past_the_step_limit_is_anything_else_with_a_warning() -> None:
    run = sh(f"i=0; while [ $i -lt {MAX_STEPS} ]; do i=$((i+1)); done; exit 3")
    assert (run.duration, run.exit_code, run.logs) == (1.0, 0, ())
    assert "more than 200,000 commands" in run.warning


# --- properties ------------------------------------------------------------------------------------

_INT = st.integers(min_value=-(1 << 40), max_value=1 << 40)


_OPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^"]


@given(_INT, _INT, st.sampled_from(_OPS))
def test_arithmetic_matches_c_integer_semantics(a: int, b: int, op: str) -> None:
    """Python's integers with C's truncating division and remainder, wrapped to 64 bits."""
    python = {"+": a + b, "-": a - b, "*": a * b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b,
              "==": a == b, "!=": a != b, "&": a & b, "|": a | b, "^": a ^ b}
    if op in ("/", "%") and b == 0:
        with pytest.raises(ArithError):
            evaluate(f"a {op} b", {"a": str(a), "b": str(b)})
        return
    if op == "/":
        want = int(a / b) if abs(a) < (1 << 52) else truncating_div(a, b)
        assert want == (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
    elif op == "%":
        want = truncating_mod(a, b)
        assert want == a - truncating_div(a, b) * b and (want == 0 or (want < 0) == (a < 0))
    else:
        want = int(python[op])
    assert evaluate(f"a {op} b", {"a": str(a), "b": str(b)}) == wrap64(want)
    assert sh(f"echo $(( {a} {op} ({b}) ))").logs == (str(wrap64(want)),)


@given(st.integers(min_value=0, max_value=30), st.integers(min_value=1, max_value=4),
       st.integers(min_value=0, max_value=3))
@settings(max_examples=40)
def test_a_for_and_the_equivalent_while_give_the_same_run(count: int, step: int, pause: int) -> None:
    """``for i in $(seq 0 STEP LAST)`` and the ``while`` that counts the same way print the same
    lines at the same times and take as long."""
    last = count * step
    body = f"echo item $i; sleep {pause}"
    by_for = sh(f"for i in $(seq 0 {step} {last}); do {body}; done")
    by_while = sh(f"i=0; while [ $i -le {last} ]; do {body}; i=$((i + {step})); done")
    assert (by_for.duration, by_for.logs, by_for.log_offsets) == \
        (by_while.duration, by_while.logs, by_while.log_offsets)
    assert by_for.duration == (count + 1) * pause


@given(st.lists(st.sampled_from(["a", "b", "c", "1", "x y"]), min_size=1, max_size=6),
       st.sampled_from("abc1"))
def test_case_takes_the_first_matching_arm(words: list[str], word: str) -> None:
    arms = " ".join(f'"{w}") echo arm{i};;' for i, w in enumerate(words))
    run = sh(f"case {word} in {arms} *) echo none;; esac")
    first = next((f"arm{i}" for i, w in enumerate(words) if w == word), "none")
    assert run.logs == (first,)


_TOKENS = ["while", "until", "do", "done", "case", "in", "esac", ";;", ")", "(", "if", "then", "fi",
           "for", "break", "continue", "2", "$((", "))", "$(", "i", "+", "/", "0", "echo", "cat", "/tmp/f",
           ">", ">>", "2>&1", "<", "&", ";", "\n", "&&", "||", "[", "]", "-f", "-lt", "sleep", "1", "exit",
           "*", "'", '"', "let", "x=1", "$i", "true", "false", ":", "ls", "mkdir", "-p", "cd", "..", "|"]


@given(st.lists(st.sampled_from(_TOKENS), max_size=30))
@settings(max_examples=300)
def test_any_script_runs_without_raising(tokens: list[str]) -> None:
    """Whatever the user wrote, the kubelet gets a run (the interpreter never raises)."""
    run = sh(" ".join(tokens))
    assert run.duration >= 0 and 0 <= run.exit_code <= 255 and len(run.logs) == len(run.log_offsets)
