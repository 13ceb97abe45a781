"""A write's options as kube-apiserver checks them before anything else, sent with the official
``kubernetes`` client to a ``kbatch serve`` process.

Upstream: k8s.io/apimachinery ``pkg/apis/meta/v1/validation`` ``ValidateCreateOptions``,
``ValidateUpdateOptions``, ``ValidatePatchOptions`` and ``ValidateDeleteOptions``; the handlers in
k8s.io/apiserver ``pkg/endpoints/handlers`` (create.go, update.go, patch.go, delete.go) answer a
failure as one 422 ``Invalid`` of ``<Kind>Options.meta.k8s.io ""`` and write nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

kubernetes = pytest.importorskip("kubernetes", reason="the official Python client (pip install kubernetes)")
from kubernetes import client, config  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

DRY_RUN = 'dryRun: Unsupported value: ["Bogus"]: supported values: "All"'


@pytest.fixture(scope="module")
def core(served: Any) -> Any:
    return client.CoreV1Api(config.new_client_from_config(config_file=str(served.kubeconfig)))


def _cm(name: str) -> client.V1ConfigMap:
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"a": "1"})


def _invalid(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ApiException) as err:
        call(*args, **kwargs)
    status = json.loads(err.value.body)
    assert (err.value.status, status["reason"]) == (422, "Invalid"), status
    assert status["details"]["group"] == "meta.k8s.io"
    message: str = status["message"]
    return message


def _names(core: Any) -> list[str]:
    return [c.metadata.name for c in core.list_namespaced_config_map("default").items]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"dry_run": "Bogus"}, DRY_RUN),
    ({"field_validation": "strict"},
     'fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"'),
    ({"field_manager": "m" * 129}, "fieldManager: Too long: may not be more than 128 bytes"),
    ({"field_manager": "\u00e9" * 65},  # Go's len counts bytes: 130
     "fieldManager: Too long: may not be more than 128 bytes"),
    ({"field_manager": "tab\there"},
     'fieldManager: Invalid value: "tab\\there": invalid character U+0009 (at position 3)'),
    ({"dry_run": "Bogus", "field_validation": "x"},
     f'[{DRY_RUN}, fieldValidation: Unsupported value: "x": supported values: "", "Ignore", "Strict", '
     '"Warn"]'),
], ids=["dryRun", "fieldValidation", "manager-too-long", "manager-too-long-in-bytes", "manager-unprintable",
        "two-at-once"])
def test_create_options_are_validated_before_the_create(core: Any, kwargs: dict[str, str],
                                                        message: str) -> None:
    got = _invalid(core.create_namespaced_config_map, "default", _cm("opts"), **kwargs)
    assert got == f'CreateOptions.meta.k8s.io "" is invalid: {message}'
    assert "opts" not in _names(core)


def test_update_and_patch_options_name_their_kind(core: Any) -> None:
    core.create_namespaced_config_map("default", _cm("upd"))
    got = _invalid(core.replace_namespaced_config_map, "upd", "default", _cm("upd"), dry_run="Bogus")
    assert got == f'UpdateOptions.meta.k8s.io "" is invalid: {DRY_RUN}'
    got = _invalid(core.patch_namespaced_config_map, "upd", "default", {"data": {"b": "2"}}, dry_run="Bogus")
    assert got == f'PatchOptions.meta.k8s.io "" is invalid: {DRY_RUN}'
    assert core.read_namespaced_config_map("upd", "default").data == {"a": "1"}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"dry_run": "Bogus"}, DRY_RUN),
    ({"orphan_dependents": True, "propagation_policy": "Foreground"},
     'propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be '
     "both set"),
    ({"orphan_dependents": False, "propagation_policy": "Background"},
     'propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be '
     "both set"),
    ({"propagation_policy": "Later"},
     'propagationPolicy: Unsupported value: "Later": supported values: "Foreground", "Background", '
     '"Orphan", "nil"'),
], ids=["dryRun", "orphan-and-foreground", "not-orphan-and-background", "unknown-policy"])
def test_delete_options_are_validated_before_the_delete(core: Any, kwargs: dict[str, Any],
                                                        message: str) -> None:
    core.create_namespaced_config_map("default", _cm("del"))
    try:
        got = _invalid(core.delete_namespaced_config_map, "del", "default", **kwargs)
        assert got == f'DeleteOptions.meta.k8s.io "" is invalid: {message}'
        assert "del" in _names(core)
    finally:
        core.delete_namespaced_config_map("del", "default")
