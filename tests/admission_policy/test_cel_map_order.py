"""CEL iterates maps in key order, the same in every process: a ValidatingAdmissionPolicy message
built from ``request.userInfo.extra`` and ``object.metadata.labels``, a map built in CEL, and
a DRA selector's error give the same bytes whatever process evaluates them (kbatch's determinism rule;
cel-go randomizes map iteration, and so did the C++ runtime's hash tables: kbatch.api.cel.iteration).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.cel.admission import compile_expression

ROOT = Path(__file__).resolve().parents[2]

# one process's evaluations: a denial's message, a mutation's labels, a selector's runtime error
SCRIPT = r"""
import json
from kbatch import ControlPlane
from kbatch.api.cel import DeviceInput, SelectorRuntimeError, compile_selector
from kbatch.api.cel.admission import compile_expression
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.errors import StatusError
from kbatch.apiserver.requester import acting_as
from kbatch.authz.user import UserInfo

U = "request.userInfo"
message = (f"{U}.extra.map(k, k + '=' + {U}.extra[k].join(',')).join(';') + '|' + "
           "object.metadata.labels.map(k, k).join(',') + '|' + "
           "object.metadata.labels.filter(k, object.metadata.labels[k] != '0').join(',') + '|' + "
           "object.metadata.labels.transformList(k, v, k + v).join(',') + '|' + "
           "string(object.metadata.labels.exists_one(k, k == 'k3'))")
rules = [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}]
cp = ControlPlane()
cp.apply({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
          "metadata": {"name": "show"},
          "spec": {"matchConstraints": {"resourceRules": rules},
                   "validations": [{"expression": "false", "messageExpression": message}]}})
cp.apply({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
          "metadata": {"name": "show"}, "spec": {"policyName": "show", "validationActions": ["Deny"]}})
user = UserInfo("u", ("g",), "id", tuple((f"x-{i}", (f"v{i}", "w")) for i in range(9)))
labels = {f"k{i}": str(i) for i in range(9)}
try:
    with acting_as(user):
        cp.server.create(ConfigMap.model_validate({"metadata": {"name": "c", "namespace": "default",
                                                                "labels": labels}}))
except StatusError as err:
    print(err.message)
literal = compile_expression("{'z': 1, 'b': 2, 'q': 3, 'a': 4, 'm': 5}", False, "any")
print(json.dumps(literal.evaluate_plain({})))
selector = compile_selector("device.attributes['d'].all(k, semver(device.attributes['d'][k]).major() > 1)")
device = DeviceInput("d", {f"d/a{i}": type("A", (), {"version": None, "value": lambda self, i=i: f"s{i}"})()
                           for i in range(9)}, {})
try:
    selector.matches(device)
except SelectorRuntimeError as err:
    print(err)
"""


def _run(seed: int) -> bytes:
    env = {"PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def test_the_same_evaluation_gives_the_same_bytes_in_every_process() -> None:
    outputs = {_run(seed) for seed in (0, 1, 2, 3)}
    assert len(outputs) == 1, outputs
    lines = outputs.pop().decode().splitlines()
    extra = ";".join(f"x-{i}=v{i},w" for i in range(9))
    keys = ",".join(f"k{i}" for i in range(9))
    assert lines[0].endswith(f"denied request: {extra}|{keys}|{keys[3:]}|"
                             + ",".join(f"k{i}{i}" for i in range(9)) + "|true")
    assert lines[1] == '{"a": 4, "b": 2, "m": 5, "q": 3, "z": 1}'
    assert lines[2] == "string is not a valid SemVer: s0"  # the first key's error


def test_one_process_iterates_a_map_the_same_way_every_time() -> None:
    """Within one process too: the runtime's tables are seeded per table, not only per process."""
    keys = compile_expression("object.map(k, k).join(',')", False, "string")
    data = {"object": {f"key-{i}": i for i in range(16)}}
    wanted = ",".join(sorted(data["object"]))
    assert {keys.evaluate(data) for _ in range(30)} == {wanted}


def test_a_two_variable_comprehension_over_a_map_sees_each_key_with_its_value() -> None:
    pairs = compile_expression("object.transformList(k, v, k + '=' + string(v)).join(',')", False, "string")
    assert pairs.evaluate({"object": {"b": 2, "a": 1, "c": 3}}) == "a=1,b=2,c=3"
    indexed = compile_expression("[5, 6].transformList(i, v, i * 10 + v)", False, "any")
    assert indexed.evaluate_plain({}) == [5, 16]


_KEYS = st.dictionaries(st.text("abcxyz-./", min_size=1, max_size=6), st.integers(-5, 5), max_size=8)


@settings(max_examples=60, deadline=None)
@given(m=_KEYS, threshold=st.integers(-5, 5))
def test_every_comprehension_over_a_map_sees_the_keys_in_order(m: dict[str, int], threshold: int) -> None:
    """The macros keep their meaning (upstream's macro expansions) and visit keys sorted."""
    data = {"object": m, "params": threshold}
    keys = sorted(m)

    def run(expression: str) -> Any:
        return compile_expression(expression, True, "any").evaluate_plain(data)

    assert run("object.map(k, k)") == keys
    assert run("object.filter(k, object[k] > params)") == [k for k in keys if m[k] > threshold]
    assert run("object.map(k, object[k] > params, k + '!')") == [k + "!" for k in keys if m[k] > threshold]
    assert run("object.transformList(k, v, k + '=' + string(v))") == [f"{k}={m[k]}" for k in keys]
    assert run("object.all(k, v, v >= params)") is all(v >= threshold for v in m.values())
    assert run("object.exists(k, object[k] == params)") is (threshold in m.values())
    assert run("object.exists_one(k, object[k] == params)") is (list(m.values()).count(threshold) == 1)
    assert run("object.map(k, object.filter(j, j < k).size())") == list(range(len(keys)))
