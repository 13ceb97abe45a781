"""``if`` and ``for`` in a simulated container's script, and ``test`` conditions (kbatch.sim.shell_syntax,
kbatch.sim.shell_eval): the scripts of kubernetes-sigs/jobset's failure-policy examples behave as
bash runs them, index 0 failing after 10 s while the others count to 1000."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.apiserver.manifests import load_manifests
from kbatch.sim.command import DEFAULT_DURATION, ContainerRun, interpret
from kbatch.sim.shell_eval import condition_status, for_items
from kbatch.sim.shell_syntax import For, If, Simple, parse_script
from tests.cli.test_upstream_examples import FAILURE_POLICY as JOBSET_FAILURE_POLICY

# kubernetes-sigs/jobset site/static/examples/simple/failure-policy.yaml, the leader's script
FAILURE_POLICY = load_manifests(JOBSET_FAILURE_POLICY)[0]["spec"]["replicatedJobs"][0]["template"]["spec"][
    "template"]["spec"]["containers"][0]["command"][2]


def test_the_failure_policy_example_fails_index_0_after_ten_seconds() -> None:
    """``bash -xc``: bash's trace of each command before what it prints (kbatch.sim.shell_trace)."""
    run = interpret(["bash", "-xc", FAILURE_POLICY], env={"JOB_COMPLETION_INDEX": "0"})
    assert (run.duration, run.exit_code) == (10.0, 1)
    iterations = [("+ for i in $(seq 10 -1 1)", f"+ echo 'Sleeping in {i}'", f"Sleeping in {i}", "+ sleep 1")
                  for i in range(10, 0, -1)]
    assert run.logs == ("+ echo JOB_COMPLETION_INDEX=0", "JOB_COMPLETION_INDEX=0", "+ [[ 0 == \\0 ]]",
                        "++ seq 10 -1 1", *(line for lines in iterations for line in lines), "+ exit 1")
    assert run.log_offsets == (0.0,) * 4 + tuple(float(t) for t in range(10) for _ in range(4)) + (10.0,)


def test_the_other_indexes_count_to_a_thousand() -> None:
    run = interpret(["bash", "-xc", FAILURE_POLICY], env={"JOB_COMPLETION_INDEX": "1"})
    assert (run.duration, run.exit_code, len(run.logs)) == (1000.0, 0, 4 + 4 * 1000)
    assert run.logs[-2:] == ("1000", "+ sleep 1") and run.log_offsets[-1] == 999.0


def test_the_failure_policy_trace_is_bashs() -> None:
    """What real bash writes for the script (its sleeps shortened), line for line."""
    from tests.sim.real_shell import SHELLS, real_output, simulated_output
    if "bash" not in SHELLS:
        pytest.skip("no bash")
    short = FAILURE_POLICY.replace("seq 10", "seq 3").replace("sleep 1", ":")
    script = "JOB_COMPLETION_INDEX=0; set -x\n" + short
    assert simulated_output(script, shell="bash") == real_output("bash", script)


def test_the_tree() -> None:
    nodes = parse_script("if [ a = b ]; then exit 1; elif true; then sleep 2; else echo c; fi\n"
                         "for x in 1 2; do echo $x; done")
    assert nodes is not None
    first, second = nodes
    assert isinstance(first, If) and len(first.branches) == 2 and first.orelse is not None
    assert first.branches[0][0] == (Simple(((";", "[ a = b ]"),)),)
    assert first.branches[0][1] == (Simple(((";", "exit 1"),)),)
    assert second == For("x", "1 2", (Simple(((";", "echo $x"),)),))


@pytest.mark.parametrize("script", [
    "if true; then sleep 1", "fi", "for x in 1; sleep 1; done", "{ sleep 1 }", "( )",
    "then echo", "done",
])
def test_syntax_outside_the_model_is_none(script: str) -> None:
    assert parse_script(script) is None
    assert interpret(["sh", "-c", script]) == ContainerRun(DEFAULT_DURATION, 0)


@pytest.mark.parametrize(("script", "want"), [
    ("if [ -f /tmp/fail ]; then exit 1; elif [ -f /tmp/succeed ]; then exit 0; fi; sleep 2", (2.0, 0, ())),
    ("X=3; if [ $X -gt 2 ]; then echo big; else echo small; fi", (0.0, 0, ("big",))),
    ("for i in {1..3}; do echo $i; sleep 1; done", (3.0, 0, ("1", "2", "3"))),
    ("for i in $(seq 3); do :; done; echo $i", (0.0, 0, ("3",))),
    ("if false; then echo no; fi", (0.0, 0, ())),
    ("if sleep 5; then exit 4; fi", (5.0, 4, ())),
    ("for i in $(ls); do echo $i; done", (DEFAULT_DURATION, 0, ())),  # another substitution
    ('[[ "$N" == 1* ]] && exit 7', (0.0, 7, ())),
])
def test_scripts(script: str, want: tuple[float, int, tuple[str, ...]]) -> None:
    run = interpret(["sh", "-c", script], env={"N": "12"})
    assert (run.duration, run.exit_code, run.logs) == want


@pytest.mark.parametrize(("argv", "status"), [
    (["[", "a", "=", "a", "]"], 0), (["[", "a", "!=", "a", "]"], 1), (["test", "-z", ""], 0),
    (["[", "-n", "", "]"], 1), (["[", "3", "-lt", "10", "]"], 0), (["[", "x", "-lt", "1", "]"], 2),
    (["[", "!", "-f", "/x", "]"], 0), (["[", "a", "=", "a"], 2), (["[[", "abc", "==", "a*", "]]"], 0),
    (["[", "abc", "=", "a*", "]"], 1), (["[", "]"], 1), (["[", "x", "]"], 0),
    (["[", "a", "b", "c", "d", "]"], 2),
])
def test_test_status(argv: list[str], status: int) -> None:
    assert condition_status(argv) == status


def test_for_items() -> None:
    assert for_items("$(seq 10 -3 1)", {}) == ["10", "7", "4", "1"]
    assert for_items("$(seq 2 4) {5..4} $A", {"A": "x y"}) == ["2", "3", "4", "5", "4", "x", "y"]
    assert for_items("$(seq 1 0 3)", {}) is None and for_items("$(seq a)", {}) is None
    assert for_items("$(seq 1 10000000)", {}) is None


@given(index=st.integers(0, 20), target=st.integers(0, 20), fail=st.integers(1, 255),
       work=st.integers(0, 50))
def test_only_the_guarded_index_exits_with_the_code(index: int, target: int, fail: int, work: int) -> None:
    """Property: an ``if`` guarding an ``exit`` runs it exactly when its condition holds, and a loop
    over ``seq`` runs its body once per number."""
    script = (f'if [[ "$I" == "{target}" ]]; then exit {fail}; fi\n'
              f"for s in $(seq 1 {work}); do sleep 1; done")
    run = interpret(["bash", "-c", script], env={"I": str(index)})
    assert (run.exit_code, run.duration) == ((fail, 0.0) if index == target else (0, float(work)))
