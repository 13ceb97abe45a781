"""Printing as kubectl prints, reading manifests as kubectl reads them, client-side apply patches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbatch.cli.applying import LAST_APPLIED, three_way_patch, with_last_applied
from kbatch.cli.manifests import ManifestError, load_manifests, parse_documents
from kbatch.cli.render import as_list, format_table, render_json, render_name, render_yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _table(rows: list[list[object]], ns: str = "default") -> dict:
    cols = [{"name": "Name", "priority": 0}, {"name": "Status", "priority": 0},
            {"name": "Node", "priority": 1}]
    return {"columnDefinitions": cols,
            "rows": [{"cells": r, "object": {"metadata": {"namespace": ns}}} for r in rows]}


def test_table_alignment_like_tabwriter() -> None:
    text = format_table(_table([["a-long-name", "Running", "n1"], ["b", "Pending", "n2"]]))
    assert text.splitlines() == ["NAME          STATUS", "a-long-name   Running", "b             Pending"]


def test_wide_and_all_namespaces() -> None:
    text = format_table(_table([["a", "Running", "n1"]], ns="team"), wide=True, with_namespace=True)
    assert text.splitlines() == ["NAMESPACE   NAME   STATUS    NODE", "team        a      Running   n1"]


def test_no_headers_and_empty() -> None:
    assert format_table(_table([["a", "Running", "n"]]), headers=False) == "a     Running"
    assert format_table(_table([])) == ""


def test_json_list_envelope_and_name() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"}}
    assert json.loads(render_json(as_list([job]))) == {
        "apiVersion": "v1", "kind": "List", "items": [job], "metadata": {"resourceVersion": ""}}
    assert json.loads(render_json(as_list([])))["items"] == []
    assert render_name(job) == "job.batch/pi"
    assert render_name({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}) == "pod/p"
    assert render_json(job).splitlines()[1] == '    "apiVersion": "batch/v1",'


def test_yaml_sorted_and_block_style() -> None:
    text = render_yaml({"kind": "Job", "apiVersion": "batch/v1", "spec": {"items": [{"b": 1, "a": 2}]}})
    assert text.splitlines() == ["apiVersion: batch/v1", "kind: Job", "spec:", "  items:", "  - a: 2",
                                 "    b: 1"]


def test_every_example_parses() -> None:
    objects = load_manifests([str(EXAMPLES)])
    kinds = sorted({o["kind"] for o in objects})
    assert kinds == ["Job", "Node", "Pod", "Service"]
    assert len(objects) >= 9


def test_manifest_errors_are_readable(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="does not exist"):
        load_manifests([str(tmp_path / "missing.yaml")])
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: [unclosed")
    with pytest.raises(ManifestError, match="error parsing"):
        load_manifests([str(bad)])
    with pytest.raises(ManifestError, match="apiVersion and kind"):
        parse_documents("metadata: {name: x}\n")


def test_list_kinds_are_expanded() -> None:
    docs = parse_documents("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod}\n---\n")
    assert docs == [{"apiVersion": "v1", "kind": "Pod"}]


def test_three_way_patch() -> None:
    original = {"spec": {"parallelism": 1, "suspend": True, "list": [1]}}
    modified = {"spec": {"parallelism": 2, "list": [1]}}
    current = {"spec": {"parallelism": 1, "suspend": True, "list": [1, "defaulted"], "server": "x"}}
    assert three_way_patch(original, modified, current) == {"spec": {"parallelism": 2, "suspend": None}}
    assert three_way_patch(modified, modified, {"spec": {"parallelism": 2, "list": [1]}}) == {}


def test_last_applied_annotation_holds_the_manifest() -> None:
    obj = with_last_applied({"kind": "Job", "metadata": {"name": "pi"}})
    stored = json.loads(obj["metadata"]["annotations"][LAST_APPLIED])
    assert stored == {"kind": "Job", "metadata": {"name": "pi"}}
