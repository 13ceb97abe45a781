"""``multiKueue.clusterProfile`` of Kueue's Configuration, through the file ``--kueue-config`` reads.

Source: kubernetes-sigs/kueue v0.19.2 ``pkg/config/validation_test.go`` ``TestValidate``, the
``multiKueue.clusterProfile`` rows (names below are upstream's), and ``pkg/config/config_test.go``'s
loading of ``accessProviders`` / the deprecated ``credentialsProviders``. Errors compare as upstream's:
type and field path.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kbatch.api.kueue_config import load
from kbatch.api.kueue_config_clusterprofile import ExecConfig, access_providers
from kbatch.controllers.kueue.config import check_config_text

from .upstream_denials import refusal

REQUIRED, NOT_SUPPORTED, FORBIDDEN = "FieldValueRequired", "FieldValueNotSupported", "FieldValueForbidden"
P = "multiKueue.clusterProfile"


def exec_config(**over: Any) -> dict[str, Any]:
    return {
        "command": "test-command",
        "apiVersion": "client.authentication.k8s.io/v1",
        "interactiveMode": "Never",
        **over,
    }


Providers = list[dict[str, Any]]


def cfg(access: Providers | None = None, credentials: Providers | None = None) -> dict[str, Any]:
    cp: dict[str, Any] = {}
    if access is not None:
        cp["accessProviders"] = access
    if credentials is not None:
        cp["credentialsProviders"] = credentials
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        "integrations": {"frameworks": ["batch/job"]},
        "multiKueue": {"clusterProfile": cp},
    }


def one(name: str = "test-provider", **over: Any) -> list[dict[str, Any]]:
    return [{"name": name, "execConfig": exec_config(**over)}]


CASES = [
    (
        "empty multiKueue.clusterProfile.accessProviders.name",
        cfg(one("")),
        [(REQUIRED, f"{P}.accessProviders.name")],
    ),
    (
        "empty multiKueue.clusterProfile.accessProviders.execConfig.command",
        cfg(one(command="")),
        [(REQUIRED, f"{P}.accessProviders.execConfig.command")],
    ),
    (
        "empty multiKueue.clusterProfile.accessProviders.execConfig.apiVersion",
        cfg(one(apiVersion="")),
        [(REQUIRED, f"{P}.accessProviders.execConfig.apiVersion")],
    ),
    (
        "empty multiKueue.clusterProfile.accessProviders.execConfig.env.name",
        cfg(one(env=[{"name": "", "value": "test-value"}])),
        [(REQUIRED, f"{P}.accessProviders.execConfig.env.name")],
    ),
    (
        "empty multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode",
        cfg(one(interactiveMode="")),
        [(REQUIRED, f"{P}.accessProviders.execConfig.interactiveMode")],
    ),
    (
        "invalid multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode",
        cfg(one(interactiveMode="Invalid")),
        [(NOT_SUPPORTED, f"{P}.accessProviders.execConfig.interactiveMode")],
    ),
    (
        "valid multiKueue.clusterProfile configuration",
        cfg(one(env=[{"name": "TEST_VAR", "value": "test-value"}])),
        [],
    ),
    (
        "valid multiKueue.clusterProfile credentialsProviders configuration",
        cfg(credentials=one("legacy-provider", env=[{"name": "TEST_VAR", "value": "test-value"}])),
        [],
    ),
    (
        "multiKueue.clusterProfile accessProviders and credentialsProviders are mutually exclusive",
        cfg(one(), one(command="deprecated-command")),
        [(FORBIDDEN, f"{P}.credentialsProviders")],
    ),
    (
        "invalid multiKueue.clusterProfile.credentialsProviders configuration",
        cfg(credentials=one("legacy-provider", command="")),
        [(REQUIRED, f"{P}.credentialsProviders.execConfig.command")],
    ),
]


@pytest.mark.parametrize(("case", "doc", "want"), CASES, ids=[c[0] for c in CASES])
def test_validate(case: str, doc: dict[str, Any], want: list[tuple[str, str]]) -> None:
    assert refusal(lambda: check_config_text(yaml.safe_dump(doc))) == sorted(want)


def test_message_as_upstream() -> None:
    with pytest.raises(Exception) as err:
        check_config_text(yaml.safe_dump(cfg(one(interactiveMode="Invalid"))))
    assert (
        'multiKueue.clusterProfile.accessProviders.execConfig.interactiveMode: Unsupported value: "Invalid": '
        'supported values: "Never", "IfAvailable", "Always"'
    ) in str(err.value)


@pytest.mark.parametrize("field", ["accessProviders", "credentialsProviders"])
def test_providers_loaded_from_either_field(field: str) -> None:
    doc = cfg(**{"access" if field == "accessProviders" else "credentials": one(args=["--x"])})
    providers = access_providers(load(doc).multi_kueue)
    assert providers is not None
    assert [(p.name, p.exec_config) for p in providers] == [
        (
            "test-provider",
            ExecConfig(
                "test-command", "client.authentication.k8s.io/v1", args=("--x",), interactive_mode="Never"
            ),
        )
    ]


def test_no_section_is_no_provider() -> None:
    assert access_providers(load({**cfg(), "multiKueue": {}}).multi_kueue) is None
    assert access_providers(load(cfg()).multi_kueue) == ()
