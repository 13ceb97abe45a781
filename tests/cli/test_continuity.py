"""N CLI commands are one simulation (issue 15): the same command lines run (a) against one
in-process control plane, (b) as separate processes over a state directory and (c) over a state
directory with every ``advance`` cut into random pieces give byte-identical objects (every kind,
Events included) and the same trace digest; and the issue's documented cases, through separate
processes.

The property test drawn here is small enough for CI: two scenarios of up to four steps, as every
command of (b) is a new interpreter (about a second of CPU, mostly imports), and (c) through the entry
point in this process, which loads and saves the image at every command just as a process does.
``pytest -m slow tests/cli/test_continuity.py`` runs the bigger one (25 scenarios of up to ten steps,
(c) as separate processes too).
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .runners import CliInProcess, CliProcesses, KeptControlPlane, Observation

JOB_NAME = "batch.kubernetes.io/job-name"
FAILED = json.dumps({"status": {"phase": "Failed"}})


# --- manifests --------------------------------------------------------------------------------------

def _container(seconds: int, exit_code: int) -> dict[str, Any]:
    script = f"sleep {seconds}" + (f"; exit {exit_code}" if exit_code else "")
    return {"name": "main", "image": "busybox", "command": ["sh", "-c", script],
            "resources": {"requests": {"cpu": "500m"}}}


def pod(name: str, seconds: int, exit_code: int = 0, restart: str = "Never") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": restart, "containers": [_container(seconds, exit_code)]}}


def job(name: str, seconds: int, exit_code: int = 0, *, completions: int = 2, parallelism: int = 1,
        backoff_limit: int = 2, policy: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "completions": completions, "parallelism": parallelism, "completionMode": "Indexed",
        "backoffLimit": backoff_limit,
        "template": {"spec": {"restartPolicy": "Never", "containers": [_container(seconds, exit_code)]}}}
    if policy:  # fail fast on exit code 42, retry disruptions without counting them
        spec["podFailurePolicy"] = {"rules": [
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": spec}


def cronjob(name: str, seconds: int, policy: str) -> dict[str, Any]:
    template = job(name, seconds, completions=1)["spec"]
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": "*/2 * * * *", "concurrencyPolicy": policy, "successfulJobsHistoryLimit": 1,
                     "failedJobsHistoryLimit": 1, "jobTemplate": {"spec": template}}}


# --- scenarios --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Apply:
    manifest: dict[str, Any]
    server_side: bool = False


@dataclass(frozen=True)
class Command:
    args: tuple[str, ...]


@dataclass(frozen=True)
class FailJobPod:
    """Mark the ``index``-th (by name, modulo) of a Job's pods that have not failed Failed with a status
    patch, when it has one (the names are the control plane's: found with ``get -l … -o name``)."""

    job: str
    index: int


@dataclass(frozen=True)
class Advance:
    seconds: int
    cuts: tuple[int, ...] = ()  # where the split run (c) cuts it, seconds from its start

    def pieces(self) -> list[int]:
        points = [0, *sorted(c for c in set(self.cuts) if 0 < c < self.seconds), self.seconds]
        return [b - a for a, b in itertools.pairwise(points)]


Step = Apply | Command | FailJobPod | Advance

SECONDS = st.integers(1, 600)
PODS = ("p0", "p1")
JOBS = ("j0", "j1")
JOB_EDITS = ({"parallelism": 3}, {"suspend": True}, {"suspend": False})

manifests = st.one_of(
    st.builds(pod, st.sampled_from(PODS), SECONDS, st.sampled_from((0, 1)),
              st.sampled_from(("Never", "OnFailure", "Always"))),
    st.builds(job, st.sampled_from(JOBS), SECONDS, st.sampled_from((0, 1, 42)),
              completions=st.integers(1, 3), parallelism=st.integers(1, 2), backoff_limit=st.integers(0, 2),
              policy=st.booleans()),
    st.builds(cronjob, st.just("cj"), SECONDS, st.sampled_from(("Allow", "Forbid", "Replace"))),
)

applies = st.builds(Apply, manifests, st.booleans())
commands = st.one_of(
    st.sampled_from(PODS).map(lambda n: Command(("patch", "pod", n, "--subresource", "status", "--type",
                                                  "merge", "-p", FAILED))),
    st.tuples(st.sampled_from(PODS), st.sampled_from((1, 3))).map(
        lambda a: Command(("fail", "pod", a[0], "--exit-code", str(a[1])))),
    st.sampled_from(PODS).map(lambda n: Command(("evict", "pod", n))),
    st.tuples(st.sampled_from(("pod/p0", "pod/p1", "job/j0", "job/j1", "cronjob/cj")),
              st.sampled_from(((), ("--grace-period", "0")))).map(lambda a: Command(("delete", a[0], *a[1]))),
    st.sampled_from(("stop-kubelet", "start-kubelet")).map(lambda verb: Command(("node", verb, "node-1"))),
    st.tuples(st.sampled_from(JOBS), st.sampled_from(JOB_EDITS)).map(
        lambda a: Command(("patch", "job", a[0], "--type", "merge", "-p", json.dumps({"spec": a[1]})))),
    st.sampled_from(JOBS).map(lambda n: Command(("wait", f"job/{n}", "--for", "condition=Complete",
                                                 "--timeout", "2m"))),
)


@st.composite
def advances(draw: Any, longest: int = 900) -> Advance:
    seconds = draw(st.integers(1, longest))
    cuts = draw(st.lists(st.integers(1, max(1, seconds - 1)), max_size=3)) if seconds > 1 else []
    return Advance(seconds, tuple(cuts))


def scenarios(max_steps: int) -> st.SearchStrategy[list[Step]]:
    step = st.one_of(applies, commands, st.builds(FailJobPod, st.sampled_from(JOBS), st.integers(0, 3)),
                     advances())
    return st.lists(step, min_size=1, max_size=max_steps).map(lambda steps: [*steps, Advance(60)])


# --- running them -------------------------------------------------------------------------------------

SETUP = ("nodes", "add", "--count", "2", "--cpu", "2", "--memory", "8Gi")


def play(runner: Any, steps: Sequence[Step], files: Path, *, split: bool) -> tuple[list[Any], Observation]:
    """Run ``steps`` with ``runner``; the outputs of every command but ``advance`` (whose lines name
    the pieces) and the final observation."""
    outputs: list[Any] = [runner.run(*SETUP)]
    for n, step in enumerate(steps):
        if isinstance(step, Advance):
            for piece in step.pieces() if split else [step.seconds]:
                done = runner.run("advance", f"{piece}s")
                assert done.code == 0, done.err
            continue
        if isinstance(step, Apply):
            path = files / f"step-{n}.json"
            path.write_text(json.dumps(step.manifest))
            mode = ("--server-side",) if step.server_side else ()
            outputs.append(runner.run("apply", "-f", str(path), *mode))
        elif isinstance(step, Command):
            outputs.append(runner.run(*step.args))
        else:
            listed = runner.run("get", "pods", "-l", f"{JOB_NAME}={step.job}", "--field-selector",
                                "status.phase!=Failed", "-o", "name")
            outputs.append(listed)
            names = listed.out.split()
            if names:
                target = names[step.index % len(names)]
                outputs.append(runner.run("patch", target, "--subresource", "status", "--type", "merge",
                                          "-p", FAILED))
    return outputs, runner.observe()


def _agree(steps: list[Step], split_runner: type) -> None:
    with tempfile.TemporaryDirectory(prefix="kbatch-continuity-") as work:
        root = Path(work)
        files = root / "manifests"
        files.mkdir()
        kept = KeptControlPlane()
        try:
            want_out, want = play(kept, steps, files, split=False)
        finally:
            kept.close()
        got_out, got = play(CliProcesses(root / "b"), steps, files, split=False)
        split_out, split = play(split_runner(root / "c"), steps, files, split=True)
    assert [(o.code, o.out) for o in got_out] == [(o.code, o.out) for o in want_out]
    assert [(o.code, o.out) for o in split_out] == [(o.code, o.out) for o in want_out]
    assert got.objects == want.objects, "objects differ: one process per command vs one control plane"
    assert split.objects == want.objects, "objects differ: split advances vs one control plane"
    assert (got.digest, split.digest) == (want.digest, want.digest)


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(max_steps=4))
def test_commands_continue_one_simulation(steps: list[Step]) -> None:
    _agree(steps, CliInProcess)


@pytest.fixture
def only_when_selected(request: pytest.FixtureRequest) -> None:
    if "slow" not in (request.config.getoption("markexpr", "") or ""):
        pytest.skip("slow: run with -m slow")


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(scenarios(max_steps=10))
def test_commands_continue_one_simulation_slow(only_when_selected: None, steps: list[Step]) -> None:
    _agree(steps, CliProcesses)


# --- the documented cases, through separate processes ------------------------------------------

def _items(observation: Observation, kind: str) -> list[dict[str, Any]]:
    return [i for i in json.loads(observation.objects)["items"] if i["kind"] == kind]


def _both(tmp_path: Path, steps: Sequence[Step]) -> tuple[Observation, CliProcesses]:
    """Run ``steps`` in one control plane and as separate processes; they agree; the processes' view."""
    files = tmp_path / "manifests"
    files.mkdir()
    kept = KeptControlPlane()
    try:
        _, want = play(kept, steps, files, split=False)
    finally:
        kept.close()
    processes = CliProcesses(tmp_path / "state")
    _, got = play(processes, steps, files, split=False)
    assert got == want
    return got, processes


def _container_state(pod_: dict[str, Any]) -> dict[str, Any]:
    return pod_["status"]["containerStatuses"][0]["state"]


def _pods(processes: CliProcesses) -> list[dict[str, Any]]:
    listed = processes.run("get", "pods", "-o", "json")
    assert listed.code == 0, listed.err
    return json.loads(listed.out)["items"]


def test_a_sleep_spanning_three_advances_succeeds_with_its_start_kept(tmp_path: Path) -> None:
    """Issue 15: ``sleep 3600`` advanced 10m, 10m, 45m in three commands is Succeeded at 65m, and its
    container's start is not rewritten by later commands."""
    bare = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "sleeper"},
            "spec": {"restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"]}]}}
    got, processes = _both(tmp_path, [Apply(bare), Advance(600)])
    (running,) = _items(got, "Pod")
    started = _container_state(running)["running"]["startedAt"]
    for minutes in (10, 45):
        assert processes.run("advance", f"{minutes}m").code == 0
    (done,) = _pods(processes)
    assert done["status"]["phase"] == "Succeeded"
    terminated = _container_state(done)["terminated"]
    assert (terminated["startedAt"], terminated["exitCode"]) == (started, 0)
    assert terminated["finishedAt"] == "2025-01-01T01:00:00Z"  # started at 00:00:00, ran 3600 s


def test_job_pod_failure_backoff_survives_between_commands(tmp_path: Path) -> None:
    """Issue 15: a Job pod marked Failed by a status patch is replaced after the 10 s pod-failure
    back-off (job_controller.go ``DefaultJobPodFailureBackOff``, counted from the pod's finish time,
    here its creation: backoff_utils.go ``getFinishedTime``), then 20 s after the second failure — the
    same instants as in one control plane."""
    got, processes = _both(tmp_path, [Apply(job("train", 600, completions=1, backoff_limit=3)),
                                      FailJobPod("train", 0), Advance(2), Advance(7)])
    assert [p["status"]["phase"] for p in _items(got, "Pod")] == ["Failed"]  # 9 s: still backing off
    assert processes.run("advance", "1s").code == 0
    (replacement,) = [p for p in _pods(processes) if p["status"]["phase"] != "Failed"]
    assert replacement["metadata"]["creationTimestamp"] == "2025-01-01T00:00:10Z"
    patched = processes.run("patch", "pod", replacement["metadata"]["name"], "--subresource", "status",
                            "--type", "merge", "-p", FAILED)
    assert patched.code == 0, patched.err
    assert processes.run("advance", "19s").code == 0  # 00:00:29: the second back-off is 20 s
    assert processes.run("advance", "1s").code == 0
    pods = _pods(processes)
    assert sorted(p["metadata"]["creationTimestamp"] for p in pods) == \
        ["2025-01-01T00:00:00Z", "2025-01-01T00:00:10Z", "2025-01-01T00:00:30Z"]


def test_node_lifecycle_registers_each_node_once(tmp_path: Path) -> None:
    """Issue 15: node lifecycle's ``RegisteredNode`` is recorded once per node, not at every command."""
    got, _ = _both(tmp_path, [Advance(60), Advance(60), Advance(300)])
    registered = [e for e in _items(got, "Event") if e["reason"] == "RegisteredNode"]
    assert sorted(e["involvedObject"]["name"] for e in registered) == ["node-0", "node-1"]
    assert all(e.get("count", 1) == 1 for e in registered)


# --- a state directory whose image cannot be continued ------------------------------------------------

@pytest.mark.parametrize("damage", ["truncated", "other-version"])
def test_an_unloadable_image_is_one_error_line_and_nothing_is_written(kb: Any, damage: str) -> None:
    kb.ok("nodes", "add", "--count", "1")
    image, trace = kb.state / "state.kbatch", kb.state / "trace.jsonl"
    data = image.read_bytes()
    if damage == "truncated":
        data = data[:len(data) // 2]
    else:
        magic, header, body = data.split(b"\n", 2)
        data = magic + b"\n" + json.dumps(json.loads(header) | {"kbatch": "0.0.1"}).encode() + b"\n" + body
    image.write_bytes(data)
    lines = trace.read_bytes()
    for args in (("get", "pods"), ("advance", "1m"), ("apply", "-f", "-")):
        res = kb(*args, input_=json.dumps(pod("p", 10)) if args[-1] == "-" else None)
        assert res.code == 1 and res.err.count("\n") == 1 and "Traceback" not in res.err, res.err
        assert str(image) in res.err
        assert "kbatch reset" in res.err if damage == "other-version" else "cannot load the image" in res.err
        assert image.read_bytes() == data and trace.read_bytes() == lines
    kb.ok("reset")
    assert kb("get", "nodes").err.startswith("No resources found")
