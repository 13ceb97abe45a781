"""A Secret's ``data`` (and a ConfigMap's ``binaryData``) is a Go ``map[string][]byte``: kube-apiserver
decodes the JSON body with ``encoding/json`` rules, which read each value with
``base64.StdEncoding``; a value that does not decode fails the body's decode, not validation:
``transformDecodeError`` (k8s.io/apiserver 1.37 ``pkg/endpoints/handlers/rest.go``) answers
``400 BadRequest`` ``Secret in version "v1" cannot be handled as a Secret: illegal base64 data at
input byte N`` (Go's ``base64.CorruptInputError``), and nothing is stored. Go's decoder skips
newlines and does not require zero trailing bits; such values are stored as Go re-encodes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kbatch.api.go_base64 import CorruptInputError, std_decode
from tests.cli.runners import CliInProcess
from tests.server.conftest import AppClient

SECRETS = "/api/v1/namespaces/default/secrets"


def _secret(data: dict[str, str], kind: str = "Secret", field: str = "data") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": "s"}, field: data}


@pytest.mark.parametrize(("value", "offset"), [
    ("not*base64", 3), ("aGk", 0), ("aGVsbG8", 4), ("aGk=x", 4), ("a===", 1), ("aG=x", 2), ("é", 0),
])
def test_go_offsets(value: str, offset: int) -> None:
    """``base64.StdEncoding.DecodeString``'s ``CorruptInputError`` offsets (encoding/base64
    ``decodeQuantum``): the bad byte, the start of an unpadded last quantum, a wrong pad, trailing bytes."""
    with pytest.raises(CorruptInputError) as err:
        std_decode(value)
    assert err.value.offset == offset and str(err.value) == f"illegal base64 data at input byte {offset}"


@pytest.mark.parametrize(("value", "decoded"), [("aGk=", b"hi"), ("aGk=\n", b"hi"), ("a\r\nGk=", b"hi"),
                                                ("aGl=", b"hi"), ("", b"")])
def test_go_accepts_newlines_and_nonzero_trailing_bits(value: str, decoded: bytes) -> None:
    assert std_decode(value) == decoded


def test_post_a_secret_that_is_not_base64_is_a_400_and_nothing_is_stored(api: AppClient) -> None:
    answer = api.post(SECRETS, content=json.dumps(_secret({"a": "aGk=", "b": "not*base64"})))
    body = answer.json()
    assert answer.status_code == 400, body
    assert body["reason"] == "BadRequest" and body["message"] == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3')
    assert api.get(SECRETS).json()["items"] == []


def test_post_a_config_map_whose_binary_data_is_not_base64_is_a_400(api: AppClient) -> None:
    doc = _secret({"b": "aGk"}, kind="ConfigMap", field="binaryData")
    answer = api.post("/api/v1/namespaces/default/configmaps", content=json.dumps(doc))
    assert answer.status_code == 400 and answer.json()["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 0')


def test_a_value_go_decodes_is_stored_as_go_encodes_it(api: AppClient) -> None:
    answer = api.post(SECRETS, content=json.dumps(_secret({"a": "aGk=\n", "b": "aGl="})))
    assert answer.status_code == 201, answer.json()
    assert api.get(SECRETS + "/s").json()["data"] == {"a": "aGk=", "b": "aGk="}


def test_kbatch_create_prints_the_servers_400(tmp_path: Path) -> None:
    cli = CliInProcess(tmp_path / "state")
    manifest = tmp_path / "s.json"
    manifest.write_text(json.dumps(_secret({"b": "not*base64"})))
    done = cli.run("create", "-f", str(manifest))
    assert done.code == 1
    assert done.err.strip() == ('Error from server (BadRequest): Secret in version "v1" cannot be handled '
                                'as a Secret: illegal base64 data at input byte 3')
    assert cli.run("get", "secrets", "-o", "name").out == ""
