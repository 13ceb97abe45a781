"""A JSON ``null`` for a field of a struct decodes as if the field were absent, as Go's decoder does.

Upstream: ``encoding/json`` ``decode.go`` ``literalStore`` (and sigs.k8s.io/json, kube-apiserver's
fork) sets a pointer, map, slice or interface to nil on ``null`` and ignores it for any other type,
so ``spec: null`` is never a type error; apiextensions-apiserver prunes such a ``null`` for a custom
resource (``pkg/apiserver/schema/defaulting/prunenulls.go``). A YAML key with nothing after it, like
the ``spec:`` of jobset's ``config/samples/batch_v1alpha2_jobset.yaml``, is that ``null``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.apiserver.decoding import StrictDecodingError, decode_dict

JOB = {"apiVersion": "batch/v1", "kind": "Job",
       "metadata": {"name": "n", "labels": {"app": "x"}},
       "spec": {"parallelism": 2, "completions": 4, "backoffLimit": 1, "completionMode": "Indexed",
                "podFailurePolicy": {"rules": [{"action": "FailJob",
                                                "onExitCodes": {"operator": "In", "values": [3]}}]},
                "template": {"metadata": {"labels": {"app": "x"}},
                             "spec": {"restartPolicy": "Never", "nodeSelector": {"disk": "ssd"},
                                      "containers": [{"name": "c", "image": "busybox",
                                                      "command": ["sleep", "5"],
                                                      "env": [{"name": "A", "value": "1"}],
                                                      "ports": [{"containerPort": 80}],
                                                      "resources": {"requests": {"cpu": "1"}}}]}}}}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
       "spec": {"terminationGracePeriodSeconds": 5, "hostNetwork": False,
                "containers": [{"name": "c", "image": "busybox", "args": ["a", "b"]}]}}
MAPS = frozenset({"labels", "annotations", "nodeSelector", "requests", "limits"})  # not structs


def _struct_fields(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a field of a struct (a dict that is no map) in ``doc``."""
    out: list[tuple[Any, ...]] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            if prefix[-1:] not in ((m,) for m in MAPS) and key not in ("apiVersion", "kind"):
                out.append((*prefix, key))
            out += _struct_fields(value, (*prefix, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            out += _struct_fields(value, (*prefix, index))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc


def test_null_spec_of_a_job_decodes_as_no_spec() -> None:
    doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "n"}, "spec": None}
    job, warnings = decode_dict(Job, doc)
    assert job == decode_dict(Job, {k: v for k, v in doc.items() if k != "spec"})[0]
    assert warnings == [] and doc["spec"] is None  # the caller's dict is not touched


@given(st.sampled_from([(Job, JOB), (Pod, POD)]).flatmap(
    lambda case: st.tuples(st.just(case), st.sampled_from(_struct_fields(case[1])))))
def test_null_for_any_struct_field_reads_as_the_field_absent(case: Any) -> None:
    (model, base), path = case
    nulled, dropped = copy.deepcopy(base), copy.deepcopy(base)
    _parent(nulled, path)[path[-1]] = None
    del _parent(dropped, path)[path[-1]]
    assert decode_dict(model, nulled)[0] == decode_dict(model, dropped)[0]


def test_an_unknown_field_given_null_is_still_unknown() -> None:
    doc = copy.deepcopy(POD)
    doc["spec"]["bogus"] = None
    with pytest.raises(StrictDecodingError, match=r'unknown field "spec\.bogus"'):
        decode_dict(Pod, doc)


STRING_MAP_VALUES = [("metadata", "labels", "app"), ("spec", "template", "metadata", "labels", "app"),
                     ("spec", "template", "spec", "nodeSelector", "disk"),
                     ("spec", "template", "spec", "nodeSelector", "new-key")]


@given(st.sampled_from(STRING_MAP_VALUES))
def test_null_value_of_a_string_map_is_stored_empty(path: tuple[str, ...]) -> None:
    """Go decodes a map's value into a fresh zero element: ``labels: {a: null}`` stores ``a: ""``."""
    nulled, emptied = copy.deepcopy(JOB), copy.deepcopy(JOB)
    _parent(nulled, path)[path[-1]] = None
    _parent(emptied, path)[path[-1]] = ""
    assert decode_dict(Job, nulled)[0] == decode_dict(Job, emptied)[0]


LIST_ITEMS = [(("spec", "template", "spec", "containers", 0, "command", 1), ""),
              (("spec", "podFailurePolicy", "rules", 0, "onExitCodes", "values", 0), 0),
              (("spec", "template", "spec", "containers", 0, "env", 0), {}),
              (("spec", "template", "spec", "containers", 0, "ports", 0), {})]


@given(st.sampled_from(LIST_ITEMS))
def test_null_item_of_a_list_is_the_items_zero_value(case: tuple[tuple[Any, ...], Any]) -> None:
    """Go decodes each list item into a fresh zero element (``encoding/json`` ``decode.go``
    ``array``): ``args: [a, null]`` stores ``[a, ""]``, a null struct item a zero struct."""
    path, zero = case
    nulled, zeroed = copy.deepcopy(JOB), copy.deepcopy(JOB)
    _parent(nulled, path)[path[-1]] = None
    _parent(zeroed, path)[path[-1]] = zero
    assert decode_dict(Job, nulled)[0] == decode_dict(Job, zeroed)[0]


def test_null_quantity_is_the_zero_quantity() -> None:
    """``resource.Quantity``'s ``UnmarshalJSON`` (apimachinery ``pkg/api/resource/quantity.go``)
    reads ``null`` as the zero quantity: ``requests: {cpu: null}`` stores ``cpu: "0"``."""
    doc = copy.deepcopy(POD)
    doc["spec"]["containers"][0]["resources"] = {"requests": {"cpu": None, "memory": "1Gi"}}
    pod = decode_dict(Pod, doc)[0]
    assert pod.model_dump(mode="json", by_alias=True, exclude_none=True)["spec"]["containers"][0][
        "resources"] == {"requests": {"cpu": "0", "memory": "1Gi"}}


def test_a_custom_resources_null_list_item_is_still_refused() -> None:
    """apiextensions-apiserver's ``prunenulls.go`` prunes a null property, never a list item: the
    item then fails the schema, so a JobSet's ``null`` item is refused."""
    from kbatch.api.errors import BadRequest
    from kbatch.api.jobset_v1alpha2 import JobSet

    doc = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
           "spec": {"replicatedJobs": [None]}}
    with pytest.raises(BadRequest, match="cannot unmarshal null"):
        decode_dict(JobSet, doc)


def test_null_list_item_and_quantity_through_kbatch_apply(tmp_path: Any, capsys: Any) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
                        "  - name: c\n    image: busybox\n    args: [a, null]\n"
                        "    resources:\n      requests:\n        cpu:\n")
    state = str(tmp_path / "state")
    assert _kbatch("--state", state, "apply", "-f", str(manifest)) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert _kbatch("--state", state, "get", "pod", "p", "-o", "json") == 0
    container = json.loads(capsys.readouterr().out)["spec"]["containers"][0]
    assert container["args"] == ["a", ""] and container["resources"]["requests"] == {"cpu": "0"}


def _kbatch(*args: str) -> int:
    from kbatch.cli import main

    try:
        main(list(args))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_a_configmap_with_null_values_through_kbatch_apply(tmp_path: Any, capsys: Any) -> None:
    manifest = tmp_path / "cm.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    a:\n"
                        "data:\n  k:\n")
    state = str(tmp_path / "state")
    assert _kbatch("--state", state, "apply", "-f", str(manifest)) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert _kbatch("--state", state, "get", "configmap", "c", "-o", "json") == 0
    stored = json.loads(capsys.readouterr().out)
    assert stored["data"] == {"k": ""} and stored["metadata"]["labels"] == {"a": ""}
