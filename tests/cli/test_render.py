"""Printing as kubectl prints (tables, json, yaml, names)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

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
    # complete as Go writes it (unset by-value structs as {}: kbatch.api.wire_zeros), so nothing is added
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
           "spec": {"template": {"metadata": {}, "spec": {"containers": None}}}, "status": {}}
    assert json.loads(render_json(as_list([job]))) == {
        "apiVersion": "v1", "kind": "List", "items": [job], "metadata": {"resourceVersion": ""}}
    assert json.loads(render_json(as_list([])))["items"] == []
    assert render_name(job) == "job.batch/pi"
    assert render_name({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}) == "pod/p"
    assert render_json(job).splitlines()[1] == '    "apiVersion": "batch/v1",'


def test_yaml_sorted_and_block_style() -> None:
    gizmo = {"kind": "Gizmo", "apiVersion": "example.kbatch.io/v1", "spec": {"items": [{"b": 1, "a": 2}]}}
    text = render_yaml(gizmo)
    assert text.splitlines() == ["apiVersion: example.kbatch.io/v1", "kind: Gizmo", "spec:", "  items:",
                                 "  - a: 2", "    b: 1"]


def test_json_and_yaml_print_unset_by_value_structs_as_go_writes_them() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"}, "spec": {"template": {
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    assert json.loads(render_json(job))["spec"]["template"] == {
        "metadata": {}, "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {}}]}}
    assert "status: {}" in render_yaml(job).splitlines() and "resources" not in json.dumps(job)


# kubectl 1.32 `get configmap -o yaml` of a ConfigMap holding these strings, against kbatch serve
# (sigs.k8s.io/yaml: go-yaml's encoder quotes a string that would read back as another type in
# double quotes and writes a multi-line one as a literal block; its folding of long scalars at 80
# columns kbatch does not copy, see kbatch/cli/yaml_style.py)
KUBECTL_STRINGS = {
    "Y": "N",
    "base60": "190:20:30",
    "bool": "True",
    "colon": "a: b",
    "dash": "-",
    "date": "2025-1-2",
    "dot": ".5",
    "dq": "say \"hi\"",
    "empty": "",
    "float": "1.5e3",
    "hash": "a #b",
    "hex": "0x1F",
    "inf": "-.Inf",
    "ip": "10.0.0.1",
    "lead": " lead",
    "multi": "line one\nline two\n",
    "multinotrail": "a\nb",
    "nan": ".nan",
    "neg": "-3",
    "null": "null",
    "num": "2",
    "oct": "0o17",
    "on": "off",
    "plain": "Running",
    "plus": "+x",
    "quote": "it's",
    "sign": "+5",
    "star": "*x",
    "tilde": "~",
    "trail": "trail ",
    "ts": "2025-01-01T00:00:00Z",
    "under": "1_000",
    "url": "http://x:80/y",
    "ver": "v1.2",
    "y": "y",
    "yes": "yes",
    "zero": "012",
}
KUBECTL_YAML = [
    "data:",
    "  \"Y\": \"N\"",
    "  base60: \"190:20:30\"",
    "  bool: \"True\"",
    "  colon: 'a: b'",
    "  dash: '-'",
    "  date: \"2025-1-2\"",
    "  dot: \".5\"",
    "  dq: say \"hi\"",
    "  empty: \"\"",
    "  float: \"1.5e3\"",
    "  hash: 'a #b'",
    "  hex: \"0x1F\"",
    "  inf: \"-.Inf\"",
    "  ip: 10.0.0.1",
    "  lead: ' lead'",
    "  multi: |",
    "    line one",
    "    line two",
    "  multinotrail: |-",
    "    a",
    "    b",
    "  nan: \".nan\"",
    "  neg: \"-3\"",
    "  \"null\": \"null\"",
    "  num: \"2\"",
    "  oct: \"0o17\"",
    "  \"on\": \"off\"",
    "  plain: Running",
    "  plus: +x",
    "  quote: it's",
    "  sign: \"+5\"",
    "  star: '*x'",
    "  tilde: \"~\"",
    "  trail: 'trail '",
    "  ts: \"2025-01-01T00:00:00Z\"",
    "  under: \"1_000\"",
    "  url: http://x:80/y",
    "  ver: v1.2",
    "  \"y\": \"y\"",
    "  \"yes\": \"yes\"",
    "  zero: \"012\"",
]


def test_yaml_strings_are_quoted_as_kubectl_prints_them() -> None:
    assert render_yaml({"data": KUBECTL_STRINGS}).splitlines() == KUBECTL_YAML


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(alphabet="aynoTFeE0179_.:-+ xb~", max_size=12),
                       st.text(alphabet="aynoTFeE0179_.:-+ #xb~\n'\"", max_size=40), max_size=6))
def test_yaml_strings_read_back_as_the_same_strings(data: dict[str, str]) -> None:
    """Whatever style a string gets, a YAML 1.1 reader (as kubectl's go-yaml is) reads it back as the
    same string (the CLI ends its output with a newline, as kubectl does)."""
    from ruamel.yaml import YAML

    text = "%YAML 1.1\n---\n" + render_yaml({"data": data}) + "\n"
    assert YAML(typ="safe", pure=True).load(text) == {"data": data}
