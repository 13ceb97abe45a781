"""The client-go credential plugin protocol: what a plugin's answer must hold, and its failures.

Source: kubernetes/kubernetes ``staging/src/k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go``
(``refreshCredsLocked``) and ``exec_test.go``'s answers (a token; no status; neither token nor cert;
only one of cert and key; another apiVersion). The plugin of the last tests is a real subprocess.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.kueue_config_clusterprofile import ExecConfig
from kbatch.controllers.kueue.multikueue.exec_credential import (
    CredentialError,
    cluster_info,
    exec_info,
    parse_credential,
    run_plugin,
)

V1 = "client.authentication.k8s.io/v1"
PLUGIN = ExecConfig("unused", V1)


def answer(status: object = None, api_version: str = V1) -> bytes:
    body: dict[str, object] = {"apiVersion": api_version, "kind": "ExecCredential"}
    if status is not None:
        body["status"] = status
    return json.dumps(body).encode()


ROWS = [
    ("no status", answer(), "exec plugin didn't return a status field"),
    ("no token nor cert", answer({}), "exec plugin didn't return a token or cert/key pair"),
    (
        "only a cert",
        answer({"clientCertificateData": "c"}),
        "exec plugin returned only certificate or key, not both",
    ),
    (
        "another apiVersion",
        answer({"token": "t"}, "client.authentication.k8s.io/v1beta1"),
        "exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned "
        "version client.authentication.k8s.io/v1beta1",
    ),
]


@pytest.mark.parametrize(("case", "stdout", "message"), ROWS, ids=[r[0] for r in ROWS])
def test_refused_answers(case: str, stdout: bytes, message: str) -> None:
    with pytest.raises(CredentialError) as err:
        parse_credential(PLUGIN, stdout)
    assert str(err.value) == f"getting credentials: {message}"


def test_not_json_is_a_decoding_error() -> None:
    with pytest.raises(CredentialError, match=r"^getting credentials: decoding stdout: "):
        parse_credential(PLUGIN, b"not json")


@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1))
def test_a_token_is_answered_as_given(token: str) -> None:
    assert parse_credential(PLUGIN, answer({"token": token})) == token


def test_exec_info_carries_the_cluster_only_when_asked() -> None:
    info = cluster_info("https://w:6443", b"ca", '{"k":"v"}')
    assert json.loads(exec_info(PLUGIN, info)) == {
        "apiVersion": V1, "kind": "ExecCredential", "spec": {"interactive": False}}
    with_cluster = json.loads(exec_info(ExecConfig("x", V1, provide_cluster_info=True), info))
    assert with_cluster["spec"]["cluster"] == {
        "server": "https://w:6443", "certificate-authority-data": "Y2E=", "config": {"k": "v"}}


def test_missing_executable_names_it_with_the_install_hint(tmp_path: Path) -> None:
    plugin = ExecConfig(str(tmp_path / "nope"), V1, install_hint="install nope")
    with pytest.raises(CredentialError) as err:
        run_plugin(plugin, None)
    want = f"getting credentials: exec: executable {tmp_path / 'nope'} not found\n\ninstall nope"
    assert str(err.value) == want


def test_invalid_api_version_is_refused_before_running() -> None:
    alpha = "client.authentication.k8s.io/v1alpha1"
    with pytest.raises(CredentialError) as err:
        run_plugin(ExecConfig("true", alpha), None)
    assert str(err.value) == f'getting credentials: exec plugin: invalid apiVersion "{alpha}"'


def test_env_and_args_reach_the_plugin() -> None:
    script = (
        "import json, os, sys; print(json.dumps({'apiVersion': sys.argv[2], 'kind': 'ExecCredential', "
        "'status': {'token': os.environ['TOKEN_PREFIX'] + sys.argv[1]}}))"
    )
    plugin = ExecConfig(sys.executable, V1, args=("-c", script, "-arg", V1), env=(("TOKEN_PREFIX", "tok"),))
    assert run_plugin(plugin, None) == "tok-arg"
