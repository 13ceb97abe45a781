"""Upstream's ``TestMakeEnvironmentVariables`` rows, translated: each row's container runs on a
simulated node and prints its variables (``echo`` in the command vocabulary), so the environment is
read as the user would, through the pod's log; error rows show ``CreateContainerConfigError``.

Source: kubernetes ``pkg/kubelet/kubelet_pods_test.go`` ``TestMakeEnvironmentVariables`` (1.37);
the case names are upstream's. The service-link rows ("api server = Y, kubelet = Y",
"nil_enableServiceLinks", ...) are in ``test_kubelet_service_env.py``; the ``resourceFieldRef`` rows
do not translate; "downward api pod" (the addresses) is in ``test_kubelet_pod_ips.py``, which
runs the node-ipam-controller that gives the node its pod range.
Upstream's fake client answers every name with the row's object; here each object carries the name
the row references. Upstream's ``*_invalid_keys`` rows expected an ``InvalidEnvironmentVariableNames``
event for the keys ``1234`` and ``1z``; under 1.37's relaxed variable names (KEP-4369, GA) those keys
are valid and kept, which is what kbatch does.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kbatch.controllers.kubelet import pod_logs

from .cluster import get_pod, sim_cluster


def _run(env: list[Any] | None = None, env_from: list[Any] | None = None, names: tuple[str, ...] = (),
         objects: tuple[dict[str, Any], ...] = ()) -> tuple[Any, Any]:
    cp = sim_cluster(1)
    for obj in objects:
        cp.apply(yaml.safe_dump(obj))
    echo = "; ".join(f'echo "{n}=${{{n}}}"' for n in names) or "true"
    container: dict[str, Any] = {"name": "main", "image": "busybox", "command": ["sh", "-c", echo]}
    if env:
        container["env"] = env
    if env_from:
        container["envFrom"] = env_from
    cp.apply(yaml.safe_dump({"apiVersion": "v1", "kind": "Pod",
                             "metadata": {"name": "dapi-test-pod-name", "namespace": "default"},
                             "spec": {"restartPolicy": "Never", "containers": [container]}}))
    cp.advance(1)
    return cp, get_pod(cp, "dapi-test-pod-name")


def _cm(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"},
            "data": data}


def _secret(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "default"},
            "stringData": data}


def _key_ref(var: str, kind: str, name: str, key: str = "key",
             optional: bool | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {"name": name, "key": key}
    if optional is not None:
        ref["optional"] = optional
    return {"name": var, "valueFrom": {kind: ref}}


KEYS = {"1234": "abc", "1z": "abc", "key": "value"}


def _logs(cp: Any) -> list[str]:
    return pod_logs(cp, "default", "dapi-test-pod-name").splitlines()


def test_env_expansion() -> None:
    """"env expansion": in-order ``$(VAR)`` expansion; undefined and later-defined references stay."""
    env = [{"name": "TEST_LITERAL", "value": "test-test-test"},
           {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
           {"name": "OUT_OF_ORDER_TEST", "value": "$(OUT_OF_ORDER_TARGET)"},
           {"name": "OUT_OF_ORDER_TARGET", "value": "FOO"},
           {"name": "EMPTY_VAR"},
           {"name": "EMPTY_TEST", "value": "foo-$(EMPTY_VAR)"},
           {"name": "POD_NAME_TEST2", "value": "test2-$(POD_NAME)"},
           {"name": "POD_NAME_TEST3", "value": "$(POD_NAME_TEST2)-3"},
           {"name": "LITERAL_TEST", "value": "literal-$(TEST_LITERAL)"},
           {"name": "TEST_UNDEFINED", "value": "$(UNDEFINED_VAR)"}]
    names = ("POD_NAME_TEST2", "POD_NAME_TEST3", "LITERAL_TEST", "OUT_OF_ORDER_TEST", "EMPTY_TEST",
             "TEST_UNDEFINED")
    cp, _ = _run(env, names=names)
    assert _logs(cp) == ["POD_NAME_TEST2=test2-dapi-test-pod-name",
                         "POD_NAME_TEST3=test2-dapi-test-pod-name-3", "LITERAL_TEST=literal-test-test-test",
                         "OUT_OF_ORDER_TEST=$(OUT_OF_ORDER_TARGET)",
                         "EMPTY_TEST=foo-", "TEST_UNDEFINED=$(UNDEFINED_VAR)"]


@pytest.mark.parametrize(("case", "kind", "obj"), [
    ("configmap", "configMapRef",
     _cm("test-config-map", REPLACE_ME="FROM_CONFIG_MAP", DUPE_TEST="CONFIG_MAP")),
    ("secret", "secretRef", _secret("test-secret", REPLACE_ME="FROM_SECRET", DUPE_TEST="SECRET")),
])
def test_env_from_with_prefix_expansion_and_override(case: str, kind: str, obj: dict[str, Any]) -> None:
    """"configmap" / "secret": envFrom twice (plain and ``p_``), env entries override and expand."""
    name, source = obj["metadata"]["name"], "CONFIG_MAP" if case == "configmap" else "SECRET"
    env_from = [{kind: {"name": name}}, {"prefix": "p_", kind: {"name": name}}]
    env = [{"name": "TEST_LITERAL", "value": "test-test-test"},
           {"name": "EXPANSION_TEST", "value": "$(REPLACE_ME)"},
           {"name": "DUPE_TEST", "value": "ENV_VAR"}]
    names = ("TEST_LITERAL", "REPLACE_ME", "EXPANSION_TEST", "DUPE_TEST", "p_REPLACE_ME", "p_DUPE_TEST")
    cp, _ = _run(env, env_from, names, (obj,))
    assert _logs(cp) == ["TEST_LITERAL=test-test-test", f"REPLACE_ME=FROM_{source}",
                         f"EXPANSION_TEST=FROM_{source}", "DUPE_TEST=ENV_VAR",
                         f"p_REPLACE_ME=FROM_{source}", f"p_DUPE_TEST={source}"]


@pytest.mark.parametrize(("case", "env", "env_from", "objects"), [
    ("configmapkeyref_missing_optional", [_key_ref("POD_NAME", "configMapKeyRef", "missing-config-map",
                                                   optional=True)], None, ()),
    ("configmapkeyref_missing_key_optional", [_key_ref("POD_NAME", "configMapKeyRef", "test-config-map",
                                                       optional=True)],
     None, (_cm("test-config-map", a="b"),)),
    ("secretkeyref_missing_optional",
     [_key_ref("POD_NAME", "secretKeyRef", "missing-secret", optional=True)],
     None, ()),
    ("secretkeyref_missing_key_optional",
     [_key_ref("POD_NAME", "secretKeyRef", "test-secret", optional=True)],
     None, (_secret("test-secret", a="b"),)),
    ("configmap_missing_optional", None,
     [{"configMapRef": {"name": "missing-config-map", "optional": True}}], ()),
    ("secret_missing_optional", None, [{"secretRef": {"name": "missing-secret", "optional": True}}], ()),
])
def test_optional_rows_define_nothing(case: str, env: Any, env_from: Any, objects: Any) -> None:
    cp, pod = _run(env, env_from, ("POD_NAME",), objects)
    assert pod.status.phase == "Succeeded" and _logs(cp) == ["POD_NAME="]


@pytest.mark.parametrize(("case", "env_from", "message"), [
    ("configmap_missing", [{"configMapRef": {"name": "test-config-map"}}],
     'configmap "test-config-map" not found'),
    ("secret_missing", [{"secretRef": {"name": "test-secret"}}], 'secret "test-secret" not found'),
])
def test_missing_rows_are_errors(case: str, env_from: Any, message: str) -> None:
    _, pod = _run(None, env_from)
    waiting = pod.status.container_statuses[0].state.waiting
    assert (waiting.reason, waiting.message) == ("CreateContainerConfigError", message)


@pytest.mark.parametrize(("case", "kind", "obj"), [
    ("configmap_invalid_keys", "configMapRef", _cm("test-config-map", **KEYS)),
    ("secret_invalid_keys", "secretRef", _secret("test-secret", **KEYS)),
])
def test_invalid_keys_rows_under_relaxed_names(case: str, kind: str, obj: dict[str, Any]) -> None:
    """Every key is kept (1.37: no InvalidEnvironmentVariableNames for these keys); the ``p_`` rows
    (``*_invalid_keys_valid``) likewise."""
    name = obj["metadata"]["name"]
    env_from = [{kind: {"name": name}}, {"prefix": "p_", kind: {"name": name}}]
    cp, _ = _run(None, env_from, ("key", "p_1234"), (obj,))
    assert _logs(cp) == ["key=value", "p_1234=abc"]
