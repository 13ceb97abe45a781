"""Reading kubeconfigs: the current context, tokens, CA and client certificates, insecure mode,
and a clear refusal of exec plugins; and Status bodies mapped to the mirrored error types."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from conformance import errors
from conformance.kubeconfig import load_kubeconfig


def _write(tmp_path: Path, user: dict, cluster: dict | None = None, namespace: str | None = None) -> Path:
    ctx = {"cluster": "c", "user": "u", **({"namespace": namespace} if namespace else {})}
    doc = {"apiVersion": "v1", "kind": "Config", "current-context": "main",
           "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:6443/", **(cluster or {})}}],
           "contexts": [{"name": "other", "context": {"cluster": "x", "user": "y"}},
                        {"name": "main", "context": ctx}],
           "users": [{"name": "u", "user": user}]}
    path = tmp_path / "config"
    path.write_text(json.dumps(doc))
    return path


def test_token_namespace_and_server(tmp_path: Path) -> None:
    config = load_kubeconfig(_write(tmp_path, {"token": "t0k"}, namespace="team"))
    assert (config.server, config.token, config.namespace, config.context) == (
        "https://127.0.0.1:6443", "t0k", "team", "main")
    assert config.verify is True and config.client_cert is None


def test_token_file_ca_data_and_client_cert(tmp_path: Path) -> None:
    (tmp_path / "tok").write_text("from-file\n")
    ca = base64.b64encode(b"-----CA-----").decode()
    user = {"tokenFile": "tok", "client-certificate": "c.pem", "client-key-data": ca}
    config = load_kubeconfig(_write(tmp_path, user, {"certificate-authority-data": ca}))
    assert config.token == "from-file"
    assert isinstance(config.verify, str) and Path(config.verify).read_bytes() == b"-----CA-----"
    assert config.client_cert is not None and config.client_cert[0] == str(tmp_path / "c.pem")


def test_insecure_skip_verify(tmp_path: Path) -> None:
    assert load_kubeconfig(_write(tmp_path, {}, {"insecure-skip-tls-verify": True})).verify is False


def test_exec_plugins_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exec/auth-provider"):
        load_kubeconfig(_write(tmp_path, {"exec": {"command": "aws"}}))


def test_kubeconfig_env_and_missing_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(_write(tmp_path, {})))
    assert load_kubeconfig().namespace == "default"
    with pytest.raises(ValueError, match="no context named 'nope'"):
        load_kubeconfig(context="nope")


def test_status_bodies_become_the_mirrored_errors() -> None:
    conflict = errors.from_status(409, {"kind": "Status", "reason": "Conflict", "message": "stale"})
    assert isinstance(conflict, errors.Conflict) and (conflict.code, conflict.message) == (409, "stale")
    exists = errors.from_status(409, {"kind": "Status", "reason": "AlreadyExists", "message": "x"})
    assert isinstance(exists, errors.AlreadyExists)
    assert isinstance(errors.from_status(422, None, "bad"), errors.Invalid)
    assert type(errors.from_status(503, "oops")) is errors.TargetError
