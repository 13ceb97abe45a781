"""A client-go credential plugin run for real: the ExecCredential protocol (KEP-541).

Upstream: kubernetes/kubernetes ``staging/src/k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go``
(``Authenticator.refreshCredsLocked``) and the reference page "client-go credential plugins"
(client.authentication.k8s.io v1 / v1beta1). The command runs with the process environment plus the
configured ``env``, and ``KUBERNETES_EXEC_INFO`` holding an ``ExecCredential`` whose ``spec`` says
the run is not interactive and, with ``provideClusterInfo``, describes the cluster (its ``config``
is the ClusterProfile's ``client.authentication.k8s.io/exec`` extension). Its stdout must be an
``ExecCredential`` of the configured apiVersion with a ``status.token``; client-go's error texts
are kept ("getting credentials: exec: executable … failed with exit code 1", "decoding stdout: …",
"exec plugin didn't return a token or cert/key pair").

kbatch's HTTP client authenticates with a bearer token only: a plugin answering with a client
certificate is refused, and the token is fetched once per connection (``expirationTimestamp`` is not
followed; a reconnect runs the plugin again). docs/kueue.md, "ClusterProfiles".
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from collections.abc import Mapping
from typing import Any

from kbatch.api.kueue_config_clusterprofile import ExecConfig
from kbatch.controllers.kueue.multikueue.remote import ConnectionFailed

__all__ = [
    "API_VERSIONS",
    "ClusterInfo",
    "CredentialError",
    "cluster_info",
    "exec_info",
    "parse_credential",
    "run_plugin",
]

API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
EXEC_INFO_ENV = "KUBERNETES_EXEC_INFO"
TIMEOUT = 60.0  # a hung plugin must not hang the manager's loop (client-go has no bound)

ClusterInfo = Mapping[str, Any]  # the ExecCredential's spec.cluster (server, certificate-authority-data…)


class CredentialError(ConnectionFailed):
    """The plugin could not give a credential (the cluster's ``ClientConnectionFailed``)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"getting credentials: {message}")


def exec_info(plugin: ExecConfig, cluster: ClusterInfo | None) -> str:
    """The ``KUBERNETES_EXEC_INFO`` value: the input ``ExecCredential``."""
    spec: dict[str, Any] = {"interactive": False}
    if plugin.provide_cluster_info and cluster is not None:
        spec["cluster"] = dict(cluster)
    return json.dumps({"kind": "ExecCredential", "apiVersion": plugin.api_version, "spec": spec})


def parse_credential(plugin: ExecConfig, stdout: bytes) -> str:
    """The token of the plugin's answer; :class:`CredentialError` with client-go's message if none."""
    try:
        cred = json.loads(stdout)
    except ValueError as err:
        raise CredentialError(f"decoding stdout: {err}") from None
    if not isinstance(cred, dict) or not cred.get("apiVersion") or cred.get("kind") != "ExecCredential":
        raise CredentialError("decoding stdout: Object 'Kind' is missing or not ExecCredential")
    if cred["apiVersion"] != plugin.api_version:
        raise CredentialError(
            f"exec plugin is configured to use API version {plugin.api_version}, plugin returned version "
            f"{cred['apiVersion']}"
        )
    status = cred.get("status")
    if not isinstance(status, dict):
        raise CredentialError("exec plugin didn't return a status field")
    token, cert, key = (status.get(k) or "" for k in ("token", "clientCertificateData", "clientKeyData"))
    if not (token or cert or key):
        raise CredentialError("exec plugin didn't return a token or cert/key pair")
    if bool(cert) != bool(key):
        raise CredentialError("exec plugin returned only certificate or key, not both")
    if not token:
        raise CredentialError(
            "exec plugin returned a client certificate: kbatch authenticates with tokens only"
        )
    return str(token)


def run_plugin(plugin: ExecConfig, cluster: ClusterInfo | None) -> str:
    """Run the plugin and return its bearer token; raises :class:`CredentialError`."""
    if plugin.api_version not in API_VERSIONS:
        raise CredentialError(f'exec plugin: invalid apiVersion "{plugin.api_version}"')
    env = {**os.environ, **dict(plugin.env), EXEC_INFO_ENV: exec_info(plugin, cluster)}
    try:
        done = subprocess.run(
            [plugin.command, *plugin.args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        hint = f"\n\n{plugin.install_hint}" if plugin.install_hint else ""
        raise CredentialError(f"exec: executable {plugin.command} not found{hint}") from None
    except (OSError, subprocess.TimeoutExpired) as err:
        raise CredentialError(f"exec: {err}") from None
    if done.returncode != 0:
        raise CredentialError(f"exec: executable {plugin.command} failed with exit code {done.returncode}")
    return parse_credential(plugin, done.stdout)


def cluster_info(server: str, ca_data: bytes | None, config: str | None) -> dict[str, Any]:
    """The ``spec.cluster`` of the input ExecCredential (client-go ``ConfigToExecCluster``)."""
    info: dict[str, Any] = {"server": server}
    if ca_data:
        info["certificate-authority-data"] = base64.b64encode(ca_data).decode()
    if config is not None:
        info["config"] = json.loads(config)
    return info
