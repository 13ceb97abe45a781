"""Each CLI write is recorded under its command's field manager, as kubectl's are.

Upstream: k8s.io/kubectl v0.37.0-beta.0 ``pkg/cmd/create/create.go`` (``kubectl-create``),
``pkg/cmd/patch/patch.go`` (``kubectl-patch``), ``pkg/cmd/apply/apply.go``
(``FieldManagerClientSideApply`` = ``kubectl-client-side-apply``; ``--server-side``: ``kubectl``;
``GetApplyFieldManagerFlag``: a given ``--field-manager`` wins). kbatch reads ``kubectl`` as ``kbatch``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Kbatch


def _cm(name: str, data: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _managers(kb: Kbatch, name: str) -> dict[str, str]:
    got = json.loads(kb.ok("get", "configmap", name, "-o", "json", "--show-managed-fields"))
    return {e["manager"]: e["operation"] for e in got["metadata"].get("managedFields") or []}


def _write(tmp_path: Path, obj: dict[str, Any]) -> str:
    path = tmp_path / f"{obj['metadata']['name']}.json"
    path.write_text(json.dumps(obj))
    return str(path)


def test_create_and_patch_record_their_default_managers(kb: Kbatch, tmp_path: Path) -> None:
    kb.ok("create", "-f", _write(tmp_path, _cm("c", {"a": "1"})))
    assert _managers(kb, "c") == {"kbatch-create": "Update"}
    kb.ok("patch", "configmap", "c", "-p", '{"data": {"b": "2"}}', "--type", "merge")
    assert _managers(kb, "c") == {"kbatch-create": "Update", "kbatch-patch": "Update"}


def test_field_manager_flag_names_the_manager(kb: Kbatch, tmp_path: Path) -> None:
    kb.ok("create", "-f", _write(tmp_path, _cm("d", {"a": "1"})), "--field-manager", "me")
    kb.ok("patch", "configmap", "d", "-p", '{"data": {"b": "2"}}', "--field-manager", "you")
    assert _managers(kb, "d") == {"me": "Update", "you": "Update"}


@pytest.mark.parametrize(("args", "manager", "operation"), [
    ((), "kbatch-client-side-apply", "Update"),
    (("--field-manager", "ops"), "ops", "Update"),
    (("--server-side",), "kbatch", "Apply"),
    (("--server-side", "--field-manager", "ops"), "ops", "Apply"),
], ids=["client-side", "client-side-flag", "server-side", "server-side-flag"])
def test_apply_records_its_manager_by_mode(kb: Kbatch, tmp_path: Path, args: tuple[str, ...], manager: str,
                                          operation: str) -> None:
    kb.ok("apply", "-f", _write(tmp_path, _cm("e", {"a": "1"})), *args)
    assert _managers(kb, "e") == {manager: operation}
