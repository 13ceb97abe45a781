"""Manifests with values of the wrong JSON type, anywhere, through ``kbatch apply``/``create`` (local
state): one readable error line in kubectl's or kube-apiserver's words (``json: cannot unmarshal …``),
exit code 1, never a traceback, nothing stored. ``kbatch serve``'s side: tests/server/test_bad_bodies.py."""

from __future__ import annotations

import copy
import io
import json
import re
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbatch.cli import main

JOB = {"apiVersion": "batch/v1", "kind": "Job",
       "metadata": {"name": "fuzz", "labels": {"app": "x"}, "annotations": {"note": "y"},
                    "finalizers": ["example.com/f"]},
       "spec": {"parallelism": 2, "completions": 4, "backoffLimit": 1, "suspend": True,
                "completionMode": "Indexed",
                "podFailurePolicy": {"rules": [{"action": "FailJob",
                                                "onExitCodes": {"operator": "In", "values": [3]}}]},
                "template": {"metadata": {"labels": {"app": "x"}},
                             "spec": {"restartPolicy": "Never",
                                      "tolerations": [{"key": "k", "operator": "Exists",
                                                       "effect": "NoSchedule"}],
                                      "containers": [{"name": "c", "image": "busybox",
                                                      "command": ["sleep", "5"],
                                                      "env": [{"name": "A", "value": "1"}],
                                                      "ports": [{"containerPort": 80}],
                                                      "resources": {"requests": {"cpu": "1"}}}]}}},
       "status": {"active": 1}}
POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "fuzz", "namespace": "default", "generation": 1},
       "spec": {"nodeSelector": {"disk": "ssd"}, "terminationGracePeriodSeconds": 5, "hostNetwork": False,
                "containers": [{"name": "c", "image": "busybox", "args": ["a", "b"]}]},
       "status": {"phase": "Pending", "conditions": [{"type": "Ready", "status": "False"}]}}


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out += _paths(value, (*prefix, index))
    return out


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _other_kinds(value: Any) -> st.SearchStrategy[Any]:
    """Values of another JSON kind than ``value``, none of which a lax decoder could coerce back
    (no numeric or boolean strings, no 0/1 for a boolean, no floats for an integer)."""
    text = st.sampled_from(["zz", "fuzz value", "-"])
    number = st.integers(min_value=2, max_value=10**6)
    obj = st.fixed_dictionaries({"k": st.sampled_from(["v", "w"])})
    array = st.lists(st.sampled_from(["v", 1]), min_size=1, max_size=2)
    if isinstance(value, int | float):  # bool too
        return st.one_of(text, obj, array)
    if isinstance(value, str):
        return st.one_of(number, st.booleans(), obj, array)
    if isinstance(value, dict):
        return st.one_of(text, number, st.booleans(), array)
    return st.one_of(text, number, st.booleans(), obj)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[dict[str, Any], tuple[Any, ...]]:
    base = copy.deepcopy(draw(st.sampled_from([JOB, POD])))
    path = draw(st.sampled_from(_paths(base)))
    quantity = len(path) > 1 and path[-2] in ("requests", "limits")
    value = draw(_other_kinds(_at(base, path)).filter(lambda v: not (quantity and isinstance(v, int))))
    _at(base, path[:-1])[path[-1]] = value
    if draw(st.booleans()):
        base = {"apiVersion": "v1", "kind": "List", "items": [base]}
    return base, path


@st.composite
def not_objects(draw: st.DrawFn) -> Any:
    """A List whose items are not objects, or a document that is not one."""
    junk = draw(st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2)))
    if draw(st.booleans()):
        return {"apiVersion": "v1", "kind": "List", "items": [copy.deepcopy(JOB), junk]}
    return junk


def _kbatch(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


class _State:
    """One state directory for a whole hypothesis run: every bad manifest must leave it as it was."""

    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory(prefix="kbatch-bad-")
        self.state = str(Path(self.dir.name) / "state")
        # created and settled: a command that saves (a read does not), so the new cluster's first
        # controller sync (the aggregated bootstrap roles filled) is behind the recorded digest
        assert _kbatch("--state", self.state, "advance", "0s")[0] == 0
        self.digest = self.trace()

    def trace(self) -> str:
        return _kbatch("--state", self.state, "trace", "--digest")[1]

    def run(self, command: str, doc: Any) -> tuple[int, str]:
        path = Path(self.dir.name) / "m.json"
        path.write_text(json.dumps(doc))
        code, _, err = _kbatch(command, "-f", str(path), "--state", self.state)
        return code, err


def _assert_one_readable_line(code: int, err: str) -> None:
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Error:" not in err.split(":")[0]
    assert lines[0].startswith(("error: ", "Error from server (BadRequest): ")), lines[0]


@pytest.fixture(scope="module")
def state() -> Any:
    holder = _State()
    yield holder
    holder.dir.cleanup()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated(), st.sampled_from(["apply", "create"]))
def test_type_mutated_manifests_are_one_line_and_store_nothing(
        state: _State, case: tuple[dict[str, Any], tuple[Any, ...]], command: str) -> None:
    doc, path = case
    code, err = state.run(command, doc)
    _assert_one_readable_line(code, err)
    field = ".".join(str(p) for p in path if not isinstance(p, int))
    if field not in ("apiVersion", "kind"):
        # a JSON type error names the field as Go does (its path without indexes or map keys); a value
        # that is no quantity as kbatch does (upstream's quantity error names no field)
        named = re.search(r"Go struct field \w*\.(\S+) of type", err)
        k8s_path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        go_named = named is not None and f"{field}.".startswith(f"{named.group(1)}.")
        assert go_named or f"{k8s_path}: " in err, (field, err)
    assert state.trace() == state.digest  # nothing was written


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(not_objects())
def test_documents_and_list_items_that_are_not_objects(state: _State, doc: Any) -> None:
    code, err = state.run("apply", doc)
    _assert_one_readable_line(code, err)
    assert err.startswith("error: error validating")
    assert state.trace() == state.digest


# What kube-apiserver and kubectl 1.32 print for the same documents (kubectl apply: its client-side
# decoding of metadata, then the server's decoding of the body).
EXAMPLES = [
    ({**JOB, "metadata": []},
     'error: unable to decode "FILE": json: cannot unmarshal array into Go struct field '
     'metadataOnlyObject.metadata of type v1.ObjectMeta'),
    ({**JOB, "spec": "x"},
     'Error from server (BadRequest): Job in version "v1" cannot be handled as a Job: json: '
     'cannot unmarshal string into Go struct field Job.spec of type v1.JobSpec'),
    ({**JOB, "status": []},
     'Error from server (BadRequest): Job in version "v1" cannot be handled as a Job: json: '
     'cannot unmarshal array into Go struct field Job.status of type v1.JobStatus'),
    ({**POD, "spec": {"containers": {"name": "c"}}},
     'Error from server (BadRequest): Pod in version "v1" cannot be handled as a Pod: json: cannot '
     'unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container'),
    ({**POD, "spec": {"containers": [{"name": "c", "image": "i", "env": [{"name": "A", "value": 9}]}]}},
     'Error from server (BadRequest): Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal '
     'number into Go struct field EnvVar.spec.containers.env.value of type string'),
    ({**JOB, "kind": ["Job"]},
     'error: error validating "FILE": error validating data: kind isn\'t string type'),
]


@pytest.mark.parametrize(("doc", "line"), EXAMPLES)
def test_documented_lines(state: _State, doc: dict[str, Any], line: str) -> None:
    code, err = state.run("apply", doc)
    path = str(Path(state.dir.name) / "m.json")
    assert code == 1 and err.strip() == line.replace("FILE", path)
    assert state.trace() == state.digest
