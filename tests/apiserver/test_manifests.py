"""The one manifest loader (``kbatch apply -f`` and ``ControlPlane.apply``): documents, Lists, YAML read
as JSON, and kubectl's client-side checks in kubectl's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbatch.api.errors import BadRequest
from kbatch.apiserver.manifests import ManifestError, load_manifests, parse_documents
from kbatch.cli.manifests import read_manifests

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_example_parses() -> None:
    objects = read_manifests([str(EXAMPLES)])
    kinds = sorted({o["kind"] for o in objects})
    assert kinds == ["Job", "JobSet", "Node", "Pod", "Service"]  # the top level (dra/, kueue/ apart)
    assert len(objects) >= 9


def test_files_that_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="does not exist"):
        read_manifests([str(tmp_path / "missing.yaml")])
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed")
    with pytest.raises(ManifestError, match=r"^error parsing .*bad\.yaml: error converting YAML to JSON: "
                                           r"yaml: line 1: "):
        read_manifests([str(bad)])


def test_list_kinds_are_expanded_recursively() -> None:
    text = ("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod}\n"
            "- {apiVersion: v1, kind: PodList, items: [{apiVersion: v1, kind: Node}]}\n---\n")
    assert load_manifests(text) == [{"apiVersion": "v1", "kind": "Pod"}, {"apiVersion": "v1", "kind": "Node"}]


def test_yaml_is_read_as_the_json_it_stands_for() -> None:
    text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {3: a, true: b, day: 2024-01-01}\n"
    [pod] = load_manifests(text)
    assert pod["metadata"]["labels"] == {"3": "a", "true": "b", "day": "2024-01-01"}
    with pytest.raises(ManifestError, match="error converting YAML to JSON: json: unsupported value: nan"):
        load_manifests("apiVersion: v1\nkind: Pod\nspec: {x: .nan}\n")
    with pytest.raises(ManifestError, match="a recursive alias"):
        load_manifests("apiVersion: v1\nkind: Pod\nmetadata: &m {labels: *m}\n")
    assert parse_documents('{"kind": "Pod"}') == [{"kind": "Pod"}]  # JSON first, as kubectl's decoder


# kubectl 1.32's own lines for these documents (its suffix about --validate=false left out)
KUBECTL_LINES = [
    ("[1, 2]", 'error validating "f.json": error validating data: invalid object to validate'),
    ('{"apiVersion": "v1", "kind": "List", "items": [1]}',
     'error validating "f.json": error validating data: invalid object to validate'),
    ('{"apiVersion": "v1", "kind": "List", "items": "x"}',
     'error validating "f.json": error validating data: invalid object to validate'),
    ('{"kind": "Job"}', 'error validating "f.json": error validating data: apiVersion not set'),
    ('{"metadata": {}}',
     'error validating "f.json": error validating data: [apiVersion not set, kind not set]'),
    ('{"apiVersion": "batch/v1", "kind": ["Job"]}',
     'error validating "f.json": error validating data: kind isn\'t string type'),
    ('{"apiVersion": 1, "kind": "Job"}',
     'error validating "f.json": error validating data: apiVersion isn\'t string type'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": []}',
     'unable to decode "f.json": json: cannot unmarshal array into Go struct field '
     'metadataOnlyObject.metadata of type v1.ObjectMeta'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"labels": []}}',
     'unable to decode "f.json": json: cannot unmarshal array into Go struct field '
     'ObjectMeta.metadata.labels of type map[string]string'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"labels": {"a": 1}}}',
     'unable to decode "f.json": json: cannot unmarshal number into Go struct field '
     'ObjectMeta.metadata.labels of type string'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"ownerReferences": [1]}}',
     'unable to decode "f.json": json: cannot unmarshal number into Go struct field '
     'ObjectMeta.metadata.ownerReferences of type v1.OwnerReference'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"creationTimestamp": 5}}',
     'unable to decode "f.json": json: cannot unmarshal number into Go struct field '
     'ObjectMeta.metadata.creationTimestamp of type string'),
    ('{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"generation": "x"}}',
     'unable to decode "f.json": json: cannot unmarshal string into Go struct field '
     'ObjectMeta.metadata.generation of type int64'),
]


@pytest.mark.parametrize(("text", "line"), KUBECTL_LINES)
def test_documents_kubectl_refuses_before_sending(text: str, line: str) -> None:
    with pytest.raises(ManifestError) as err:
        load_manifests(text, "f.json")
    assert err.value.message == line
    assert isinstance(err.value, BadRequest)  # in process: a BadRequest Status, never a traceback


def test_what_kubectl_leaves_to_the_server_passes() -> None:
    [job] = load_manifests('{"apiVersion": "batch/v1", "kind": "Job", "metadata": null, "spec": "x"}')
    assert job["spec"] == "x"  # the API server's decoder refuses it (test_bad_manifests)


# go-yaml v2 non-strict (sigs.k8s.io/yaml Unmarshal, kubectl's YAMLToJSONDecoder): the last value wins
DUPLICATED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: first
  name: second
  labels: {a: "1", a: "2"}
data:
  k: one
  k: two
"""


def test_a_repeated_yaml_key_keeps_its_last_value() -> None:
    [cm] = load_manifests(DUPLICATED)
    assert cm["metadata"] == {"name": "second", "labels": {"a": "2"}}
    assert cm["data"] == {"k": "two"}


def test_repeated_keys_in_go_yaml_strict_words() -> None:
    from kbatch.apiserver.yaml_duplicates import duplicate_key_problems, duplicate_keys_error

    problems = duplicate_key_problems(DUPLICATED)
    assert problems == ['line 5: key "name" already set in map', 'line 6: key "a" already set in map',
                        'line 9: key "k" already set in map']
    assert duplicate_key_problems("a: 1\n1: x\n'1': y\n") == []  # an int key and a string key differ
    assert duplicate_key_problems("a: {1: x, 1: y}\n") == ["line 1: key 1 already set in map"]
    assert duplicate_key_problems("a: [b\n") == []  # a syntax error is the non-strict read's to report
    assert duplicate_keys_error(problems[:1]) == ('error converting YAML to JSON: yaml: unmarshal errors:\n'
                                                  '  line 5: key "name" already set in map')
