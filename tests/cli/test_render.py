"""Printing as kubectl prints (tables, json, yaml, names)."""

from __future__ import annotations

import json

from kbatch.cli.render import as_list, format_table, render_json, render_name, render_yaml


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
