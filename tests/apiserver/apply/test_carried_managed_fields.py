"""A write that carries ``managedFields`` is tracked starting from them, in process and through the CLI.

Upstream: k8s.io/apimachinery ``pkg/util/managedfields/internal/fieldmanager.go`` (``decodeLiveOrNew``,
``isResetManagedFields``), ``managedfields.go`` (``DecodeManagedFields``; the rows of
``managedfields_test.go`` ``TestHasFieldsType``, ``TestHasAPIVersion``, ``TestHasOperation``) and
structured-merge-diff ``merge/update.go`` (``Updater.Update``: the writer takes what it writes).
kubectl against ``kbatch serve``: ``tests/server/test_kubectl_carried_managed_fields.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.base import format_time
from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import ConfigMap
from kbatch.api.frozen import edit
from kbatch.api.meta import ManagedFieldsEntry
from kbatch.apiserver.apply.carried import decodes, is_reset, starting_entries
from kbatch.apiserver.apply.tracking import field_manager
from tests.apiserver.apply.conftest import make_apiserver
from tests.apiserver.apply.test_apply_examples import job
from tests.cli.runners import ROOT

ENTRY = {"manager": "foo", "operation": "Apply", "apiVersion": "v1", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:field": {}}}


def _configmap(name: str, managed: list[dict[str, Any]] | None) -> ConfigMap:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if managed is not None:
        meta["managedFields"] = managed
    return ConfigMap.model_validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
                                     "data": {"a": "1"}})


def _wire(obj: ConfigMap) -> list[dict[str, Any]]:
    return [e.to_dict() for e in obj.metadata.managed_fields or ()]


@pytest.mark.parametrize(("change", "ok"), [
    ({}, True),
    ({"fieldsType": "FieldsV2"}, False),  # TestHasFieldsType: invalid fieldsType V2
    ({"fieldsType": None}, False),  # TestHasFieldsType: missing fieldsType
    ({"apiVersion": None}, False),  # TestHasAPIVersion: missing apiVersion
    ({"operation": "Update"}, True),  # TestHasOperation
    ({"operation": None}, False),  # TestHasOperation: missing operation
    ({"operation": "Invalid"}, False),
    ({"manager": None}, True),  # no manager is not an error upstream
    ({"fieldsV1": None}, True),  # decodeVersionedSet: the empty set
    ({"fieldsV1": {"x:field": {}}}, False),  # DeserializePathElement: unknown prefix
    ({"fieldsV1": {"k:not json": {}}}, False),
    ({"fieldsV1": {'k:{"name":"c"}': {".": {}}, 'v:"x"': {}, "i:3": {}}}, True),
    ({"fieldsV1": {"f:field": 1}}, False),
])
def test_an_entry_decodes_as_upstream(change: dict[str, Any], ok: bool) -> None:
    entry = {k: v for k, v in {**ENTRY, **change}.items() if v is not None}
    assert decodes(entry) is ok


def test_resets_and_fallbacks() -> None:
    stored = [ENTRY]
    assert is_reset([]) and is_reset([{}]) and is_reset([{"manager": ""}])
    assert not is_reset(None) and not is_reset([{"fieldsV1": {}}]) and not is_reset([{}, {}])
    assert starting_entries([], stored, "") == [] and starting_entries([{}], stored, "") == []
    assert starting_entries(None, stored, "") == stored  # left out: the stored ones
    assert starting_entries([{"operation": "x"}], stored, "") == stored  # does not decode: ignored
    other = {**ENTRY, "manager": "bar"}
    assert starting_entries([other], stored, "") == [other]
    assert starting_entries([other], stored, "status") == stored  # a subresource never sets them
    assert starting_entries([{}], stored, "status") == stored


def test_an_in_process_create_without_a_manager_keeps_them_and_records_kbatch() -> None:
    # the existing rule: a write carrying managedFields is tracked, its unnamed writer is "kbatch"
    carried = {**ENTRY, "operation": "Update", "manager": "someone", "time": "2024-01-01T00:00:00Z",
               "fieldsV1": {"f:data": {"f:b": {}}}}
    out = make_apiserver().create(_configmap("cm", [carried]))
    assert [(e["manager"], e["fieldsV1"]) for e in _wire(out)] == [
        ("someone", {"f:data": {"f:b": {}}}), ("kbatch", {"f:data": {"f:a": {}}})]


def test_an_in_process_create_with_a_bad_list_records_only_the_writer() -> None:
    out = make_apiserver().create(_configmap("cm", [{**ENTRY, "operation": "Bogus"}]))
    assert [e["manager"] for e in _wire(out)] == ["kbatch"]


def test_untracked_creates_stay_untracked() -> None:
    # the performance design (tracking.py): an in-process create that carries nothing records nothing
    assert make_apiserver().create(_configmap("cm", None)).metadata.managed_fields is None


def test_the_cli_create_keeps_them(tmp_path: Path) -> None:
    carried = {**ENTRY, "operation": "Update", "manager": "someone", "time": "2024-01-01T00:00:00Z",
               "fieldsV1": {"f:data": {"f:b": {}}}}
    manifest = tmp_path / "cm.json"
    manifest.write_text(_configmap("mf", [carried]).to_json().decode())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def cli(*args: str) -> str:
        command = [sys.executable, "-m", "kbatch", "--state", str(tmp_path / "st"), *args]
        return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=True,
                              timeout=120).stdout

    cli("create", "-f", str(manifest))
    got = json.loads(cli("get", "cm", "mf", "-o", "json", "--show-managed-fields"))
    assert [(e["manager"], e["fieldsV1"]) for e in got["metadata"]["managedFields"]] == [
        ("someone", {"f:data": {"f:b": {}}}), ("kbatch-create", {"f:data": {"f:a": {}}})]


TIMES = ["2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z", "2025-01-01T00:00:00Z"]
PATHS = [("f:data", "f:a"), ("f:data", "f:b"), ("f:data", "f:c"), ("f:metadata", "f:labels", "f:x")]
WRITER_FIELDS = {("f:data", "f:a")}  # what this create writes (the object has data.a only)


def _trie(paths: set[tuple[str, ...]]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for step in path:
            node = node.setdefault(step, {})
    return root


_entries = st.dictionaries(
    st.tuples(st.sampled_from(["alice", "bob", "carol", "w"]), st.sampled_from(["Apply", "Update"])),
    st.tuples(st.sampled_from(TIMES), st.sets(st.sampled_from(PATHS), min_size=1)),
    min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(_entries)
def test_any_valid_set_sent_on_create_is_kept_with_the_writer_merged(
        chosen: dict[tuple[str, str], tuple[str, set[tuple[str, ...]]]]) -> None:
    sent = [{"manager": m, "operation": op, "apiVersion": "v1", "time": t, "fieldsType": "FieldsV1",
             "fieldsV1": _trie(paths)} for (m, op), (t, paths) in chosen.items()]
    api = make_apiserver()
    now = format_time(api.timestamp())
    with field_manager("w"):
        out = api.create(_configmap("cm", sent))
    expected: dict[tuple[str, str], tuple[str, set[tuple[str, ...]]]] = {}
    for (m, op), (t, paths) in chosen.items():  # the writer takes every field it writes
        if paths - WRITER_FIELDS:
            expected[(m, op)] = (t, paths - WRITER_FIELDS)
    _, mine = expected.get(("w", "Update"), ("", set()))
    expected[("w", "Update")] = (now, mine | WRITER_FIELDS)  # merged into its own entry, stamped now
    order = sorted(expected.items(), key=lambda kv: (kv[0][1], kv[1][0], kv[0][0]))  # upstream's sort
    assert [(e["manager"], e["operation"], e["time"], e["fieldsV1"]) for e in _wire(out)] == [
        (m, op, t, _trie(paths)) for (m, op), (t, paths) in order]


def test_a_status_write_never_sets_them() -> None:
    # decodeLiveOrNew(ignoreManagedFieldsFromRequestObject): a subresource write starts from the stored ones
    api = make_apiserver()
    api.apply(job(), field_manager="alice")
    current = edit(api.get(Job, "j", "default"))
    stored = _wire(current)
    current.metadata.managed_fields = [ManagedFieldsEntry.model_validate({**ENTRY, "manager": "intruder"})]
    current.status.active = 1
    with field_manager("ctl"):
        out = api.update_status(current)
    assert [e for e in _wire(out) if e["manager"] != "ctl"] == stored
    assert [e["fieldsV1"] for e in _wire(out) if e["manager"] == "ctl"] == [{"f:status": {"f:active": {}}}]
