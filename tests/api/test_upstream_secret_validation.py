"""Upstream's Secret validation tables, translated: each row goes through kbatch's API as a user's
object does (a create, so ``stringData`` merging and ``type`` defaulting run too).

Source: kubernetes ``pkg/apis/core/validation/validation_test.go`` (1.37) ``TestValidateSecret``,
``TestValidateDockerConfigSecret``, ``TestValidateBasicAuthSecret``, ``TestValidateSSHAuthSecret``,
``TestValidateTLSSecret`` and ``TestValidateSecretUpdate``; the row names are upstream's. Rows that do not
translate: "empty namespace" and "invalid namespace" (the API server takes the namespace from the
request path, so a create cannot carry a bad one), and ``TestValidateTLSSecret``'s error rows (they
fail upstream on the missing namespace of a typeless secret, not on a TLS rule): kbatch's TLS rows
below are typed ``kubernetes.io/tls`` instead.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch import ControlPlane
from kbatch.api import edit
from kbatch.api.core_v1 import Secret
from kbatch.api.errors import Invalid

MAX = 1024 * 1024
DOCKERCFG = ('{"https://index.docker.io/v1/": {"auth": "Y2x1ZWRyb29sZXIwMDAxOnBhc3N3b3Jk",'
             '"email": "fake@example.com"}}')
DOCKERJSON = '{"auths":' + DOCKERCFG + "}"
SA = {"kubernetes.io/service-account.name": "foo"}
KEYS = st.from_regex(r"[a-z][-._a-z0-9]{0,8}", fullmatch=True)


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def secret(name: str = "foo", type_: str | None = None, data: dict[str, str] | None = None,
           annotations: dict[str, str] | None = None, **fields: Any) -> Secret:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if annotations is not None:
        meta["annotations"] = annotations
    body: dict[str, Any] = {"metadata": meta, **fields}
    if type_ is not None:
        body["type"] = type_
    if data is not None:
        body["data"] = {k: b64(v) for k, v in data.items()}
    return Secret.model_validate(body)


VALID = [
    ("TestValidateSecret/valid", secret(data={"data-1": "bar"})),
    ("TestValidateSecret/valid service-account-token secret",
     secret(type_="kubernetes.io/service-account-token", annotations=SA, data={"data-1": "bar"})),
    ("TestValidateSecret/leading dot key", secret(data={"data-1": "bar", ".key": "bar"})),
    ("TestValidateDockerConfigSecret/valid dockercfg",
     secret(type_="kubernetes.io/dockercfg", data={".dockercfg": DOCKERCFG})),
    ("TestValidateDockerConfigSecret/valid config.json",
     secret(type_="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": DOCKERJSON})),
    ("TestValidateBasicAuthSecret/valid",
     secret(type_="kubernetes.io/basic-auth", data={"username": "username", "password": "password"})),
    ("kbatch: basic-auth with only a username (upstream's comment: one may be missing)",
     secret(type_="kubernetes.io/basic-auth", data={"username": "u"})),
    ("TestValidateSSHAuthSecret/valid",
     secret(type_="kubernetes.io/ssh-auth", data={"ssh-privatekey": "foo-bar-baz"})),
    ("TestValidateTLSSecret/empty certificate chain",
     secret(name="tls-cert", type_="kubernetes.io/tls",
            data={"tls.crt": "public key", "tls.key": "private key"})),
    ("kbatch: bootstrap token secrets have no required keys in ValidateSecret",
     secret(type_="bootstrap.kubernetes.io/token")),
]


@pytest.mark.parametrize(("case", "obj"), VALID, ids=[c for c, _ in VALID])
def test_upstream_valid_rows_are_created(case: str, obj: Secret) -> None:
    created = ControlPlane().client.create(obj)
    assert created.data == obj.data
    assert created.type == (obj.type or "Opaque")


INVALID = [
    ("TestValidateSecret/empty name", secret(name="", data={"data-1": "bar"}),
     "metadata.name: Required value"),
    ("TestValidateSecret/invalid name", secret(name="NoUppercaseOrSpecialCharsLike=Equals"),
     "metadata.name: Invalid value"),
    ("TestValidateSecret/over max size", secret(data={"over": "\0" * (MAX + 1)}),
     "data: Too long: may not be more than 1048576 bytes"),
    ("TestValidateSecret/invalid key", secret(data={"data-1": "bar", "a*b": "whoops"}),
     'data[a*b]: Invalid value: "a*b": a valid config key must consist of alphanumeric characters'),
    ("TestValidateSecret/empty service-account-token annotation",
     secret(type_="kubernetes.io/service-account-token",
            annotations={"kubernetes.io/service-account.name": ""}),
     "metadata.annotations[kubernetes.io/service-account.name]: Required value"),
    ("TestValidateSecret/missing service-account-token annotation",
     secret(type_="kubernetes.io/service-account-token", annotations={"other": "x"}),
     "metadata.annotations[kubernetes.io/service-account.name]: Required value"),
    ("TestValidateSecret/missing service-account-token annotations",
     secret(type_="kubernetes.io/service-account-token"),
     "metadata.annotations[kubernetes.io/service-account.name]: Required value"),
    ("TestValidateSecret/dot key", secret(data={".": "bar"}), "must not be '.'"),
    ("TestValidateSecret/double dot key", secret(data={"..": "bar"}), "must not be '..'"),
    ("TestValidateDockerConfigSecret/missing dockercfg", secret(type_="kubernetes.io/dockercfg", data={}),
     "data[.dockercfg]: Required value"),
    ("TestValidateDockerConfigSecret/empty dockercfg",
     secret(type_="kubernetes.io/dockercfg", data={".dockercfg": ""}),
     'data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'),
    ("TestValidateDockerConfigSecret/invalid dockercfg",
     secret(type_="kubernetes.io/dockercfg", data={".dockercfg": "bad"}),
     'data[.dockercfg]: Invalid value: "<secret contents redacted>": invalid character \'b\' looking for '
     'beginning of value'),
    ("TestValidateDockerConfigSecret/missing config.json",
     secret(type_="kubernetes.io/dockerconfigjson", data={}), "data[.dockerconfigjson]: Required value"),
    ("TestValidateDockerConfigSecret/empty config.json",
     secret(type_="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": ""}),
     "unexpected end of JSON input"),
    ("TestValidateDockerConfigSecret/invalid config.json",
     secret(type_="kubernetes.io/dockerconfigjson", data={".dockerconfigjson": "bad"}), "invalid character"),
    ("TestValidateBasicAuthSecret/missing username and password",
     secret(type_="kubernetes.io/basic-auth", data={}),
     "data[%s][username]: Required value, data[%s][password]: Required value"),
    ("TestValidateSSHAuthSecret/missing private key", secret(type_="kubernetes.io/ssh-auth", data={}),
     "data[%s][ssh-privatekey]: Required value"),
    ("kbatch: ssh-auth with an empty private key (len == 0 upstream)",
     secret(type_="kubernetes.io/ssh-auth", data={"ssh-privatekey": ""}),
     "data[%s][ssh-privatekey]: Required"),
    ("TestValidateTLSSecret/missing private key (typed)",
     secret(type_="kubernetes.io/tls", data={"tls.crt": "public key"}), "data[tls.key]: Required value"),
    ("TestValidateTLSSecret/missing public key (typed)",
     secret(type_="kubernetes.io/tls", data={"tls.key": "private key"}), "data[tls.crt]: Required value"),
]


@pytest.mark.parametrize(("case", "obj", "message"), INVALID, ids=[c for c, _, _ in INVALID])
def test_upstream_invalid_rows_are_refused(case: str, obj: Secret, message: str) -> None:
    cp = ControlPlane()
    with pytest.raises(Invalid) as err:
        cp.client.create(obj)
    assert message in err.value.message
    assert cp.client.list(Secret, namespace="default").items == []  # no partial write


def test_string_data_is_merged_into_data_and_never_stored() -> None:
    """``Convert_v1_Secret_To_core_Secret``: stringData wins over data of the same key."""
    created = ControlPlane().client.create(
        secret(data={"a": "old", "b": "kept"}, stringData={"a": "new", "c": "üñí"}))
    assert created.string_data is None
    assert created.data == {"a": b64("new"), "b": b64("kept"), "c": b64("üñí")}
    assert created.metadata.generation in (None, 0)  # the strategy keeps no generation


def test_string_data_counts_against_the_size_and_type_rules() -> None:
    """The merge happens before validation: stringData satisfies a type's required keys."""
    cp = ControlPlane()
    made = cp.client.create(secret(type_="kubernetes.io/basic-auth", stringData={"password": "p"}))
    assert made.data == {"password": b64("p")}
    with pytest.raises(Invalid) as err:
        cp.client.create(secret(name="big", stringData={"x": "y" * (MAX + 1)}))
    assert "data: Too long" in err.value.message


def test_upstream_secret_update_rules() -> None:
    """``TestValidateSecretUpdate`` / ``ValidateSecretUpdate``: type is immutable; an immutable
    secret keeps ``immutable`` and its data, while its metadata may change."""
    cp = ControlPlane()
    made = cp.client.create(secret(data={"a": "1"}))
    retyped = edit(made)
    retyped.type = "kubernetes.io/tls"
    retyped.data = {"tls.crt": b64("c"), "tls.key": b64("k")}
    with pytest.raises(Invalid) as err:
        cp.client.update(retyped)
    assert 'type: Invalid value: "kubernetes.io/tls": field is immutable' in err.value.message
    frozen = cp.client.create(secret(name="frozen", data={"a": "1"}, immutable=True))
    changed = edit(frozen)
    changed.data, changed.immutable = {"a": b64("2")}, False
    with pytest.raises(Invalid) as err:
        cp.client.update(changed)
    assert "immutable: Forbidden: field is immutable when `immutable` is set" in err.value.message
    assert "data: Forbidden: field is immutable when `immutable` is set" in err.value.message
    via_string = edit(frozen)
    via_string.string_data = {"a": "2"}
    with pytest.raises(Invalid):
        cp.client.update(via_string)
    labelled = edit(frozen)
    labelled.metadata.labels = {"ok": "yes"}
    assert cp.client.update(labelled).metadata.labels == {"ok": "yes"}


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(KEYS, st.text(max_size=20), max_size=4),
       st.dictionaries(KEYS, st.text(max_size=20), max_size=4))
def test_string_data_merge_property(data: dict[str, str], string_data: dict[str, str]) -> None:
    """Whatever the two maps, the stored data is data overlaid by stringData, in bytes."""
    created = ControlPlane().client.create(secret(data=data, stringData=string_data))
    want = {**data, **string_data}
    assert {k: base64.b64decode(v).decode() for k, v in (created.data or {}).items()} == want
