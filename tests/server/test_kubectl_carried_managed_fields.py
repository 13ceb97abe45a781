"""The real kubectl against ``kbatch serve``: a create, replace or patch that carries
``metadata.managedFields`` is tracked starting from them, as upstream's ``FieldManager.Update``
(k8s.io/apimachinery ``pkg/util/managedfields/internal/fieldmanager.go``, ``decodeLiveOrNew``),
reached from k8s.io/apiserver ``pkg/endpoints/handlers/create.go``, ``update.go``, ``patch.go``
through ``UpdateNoErrors`` with ``managerOrUserAgent(fieldManager, userAgent)``: kubectl names
itself ``kubectl-create``, ``kubectl-replace``, ``kubectl-patch``."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
import yaml

from tests.server.test_kubectl import kubectl

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")

SOMEONE = {"manager": "someone", "operation": "Update", "apiVersion": "v1", "time": "2024-01-01T00:00:00Z",
           "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:b": {}}}}


def _configmap(name: str, managed: Any) -> str:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if managed is not None:
        meta["managedFields"] = managed
    return yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"a": "1"}})


def _managers(served: Any, name: str) -> list[tuple[str, str, dict[str, Any]]]:
    got = json.loads(kubectl(served, "get", "cm", name, "-o", "json", "--show-managed-fields").stdout)
    return [(m["manager"], m["operation"], m["fieldsV1"]) for m in got["metadata"].get("managedFields", [])]


# upstream also records the data map itself (`".": {}`); kbatch's field sets leave out a map of
# scalars (a separate, pre-existing difference, see docs/server-side-apply.md)
KUBECTL_CREATE = ("kubectl-create", "Update", {"f:data": {"f:a": {}}})


def test_create_keeps_the_carried_entries_and_adds_kubectl_create(served: Any) -> None:
    kubectl(served, "create", "-f", "-", input_=_configmap("mf-kept", [SOMEONE]))
    # upstream's order: operation, then time (someone's is older), then manager
    assert _managers(served, "mf-kept") == [("someone", "Update", {"f:data": {"f:b": {}}}), KUBECTL_CREATE]


def test_create_takes_the_fields_it_writes_from_the_carried_entries(served: Any) -> None:
    # structured-merge-diff Updater.update: every field a create writes is added, so a carried
    # manager of data.a loses it (and, owning nothing else, its entry)
    owns_a = {**SOMEONE, "fieldsV1": {"f:data": {"f:a": {}}}}
    kubectl(served, "create", "-f", "-", input_=_configmap("mf-taken", [owns_a]))
    assert _managers(served, "mf-taken") == [KUBECTL_CREATE]


def test_an_empty_entry_resets_and_kubectl_create_is_recorded(served: Any) -> None:
    kubectl(served, "create", "-f", "-", input_=_configmap("mf-reset", [{}]))
    assert _managers(served, "mf-reset") == [KUBECTL_CREATE]


@pytest.mark.parametrize(("name", "change"), [
    ("mf-bad-op", {"operation": "Bogus"}), ("mf-bad-version", {"apiVersion": ""}),
    ("mf-bad-type", {"fieldsType": "FieldsV2"}), ("mf-no-type", {"fieldsType": None}),
    ("mf-bad-fields", {"fieldsV1": {"x:bad": {}}}),
])
def test_a_list_with_an_entry_that_does_not_decode_is_ignored(served: Any, name: str,
                                                              change: dict[str, Any]) -> None:
    # DecodeManagedFields fails, decodeLiveOrNew falls back to the live object's (none on create):
    # the write is not refused, and the valid entry beside the bad one goes too
    bad = {k: v for k, v in {**SOMEONE, "manager": "bad", **change}.items() if v is not None}
    created = kubectl(served, "create", "-f", "-", input_=_configmap(name, [SOMEONE, bad]))
    assert "created" in created.stdout
    assert _managers(served, name) == [KUBECTL_CREATE]


def test_replace_and_patch_start_from_what_they_carry(served: Any) -> None:
    kubectl(served, "create", "-f", "-", input_=_configmap("mf-write", None))
    other = {**SOMEONE, "manager": "other", "fieldsV1": {"f:data": {"f:c": {}}}}
    kubectl(served, "replace", "-f", "-", input_=_configmap("mf-write", [SOMEONE, other]))
    # nothing changed: kubectl-replace owns nothing, the carried entries replace kubectl-create's
    assert [m[0] for m in _managers(served, "mf-write")] == ["other", "someone"]
    kubectl(served, "patch", "cm", "mf-write", "--type=merge", "-p",
            json.dumps({"metadata": {"managedFields": [SOMEONE]}, "data": {"d": "4"}}))
    assert _managers(served, "mf-write") == [("someone", "Update", {"f:data": {"f:b": {}}}),
                                             ("kubectl-patch", "Update", {"f:data": {"f:d": {}}})]
    kubectl(served, "patch", "cm", "mf-write", "--type=merge", "-p",
            json.dumps({"metadata": {"managedFields": []}}))
    assert _managers(served, "mf-write") == []  # a non-nil empty list resets too (isResetManagedFields)
