"""A worker's kubeconfig: parsed, checked as Kueue checks it, reduced to what a client needs.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``
(``validateKubeconfig``, ``validateRestConfig``, ``isValidHostname``; ``MultiKueueAllowInsecureKubeconfigs``
is locked off in 0.19, so these checks always run). The current context picks the cluster and user, as
client-go's ``RESTConfigFromKubeConfig`` does. kbatch reads ``server``, ``token`` and
``certificate-authority-data``; a server ``kbatch+inprocess://NAME`` names a worker attached in the same
process (:mod:`.inprocess`).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from kbatch.api.kueue_config_clusterprofile import ExecConfig

__all__ = ["ClientConfig", "InvalidKubeConfig", "parse_kubeconfig"]

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_IP = re.compile(r"^(\d{1,3}\.){3}\d{1,3}$|^\[?[0-9a-fA-F:]+\]?$")


class InvalidKubeConfig(ValueError):
    """The kubeconfig cannot be parsed or is not allowed (the cluster's reason ``InsecureKubeConfig``)."""


@dataclass(frozen=True)
class ClientConfig:
    """What connecting to a worker takes."""

    server: str
    token: str | None = None
    ca_data: bytes | None = None
    # a ClusterProfile's credential plugin, run at each connection for the token (:mod:`.exec_credential`)
    exec_plugin: ExecConfig | None = None

    @property
    def in_process(self) -> str | None:
        """The attached worker's name for ``kbatch+inprocess://NAME``, else ``None``."""
        scheme, _, rest = self.server.partition("://")
        return rest.strip("/") if scheme == "kbatch+inprocess" else None


def _named(items: Any, name: str, what: str) -> dict[str, Any]:
    for item in items or ():
        if isinstance(item, dict) and item.get("name") == name:
            return item.get(what) or {}
    return {}


def _check_clusters(config: dict[str, Any]) -> None:
    for user in config.get("users") or ():
        if (user.get("user") or {}).get("tokenFile"):
            raise InvalidKubeConfig("tokenFile is not allowed")
    for entry in config.get("clusters") or ():
        name, cluster = entry.get("name", ""), entry.get("cluster") or {}
        if cluster.get("insecure-skip-tls-verify"):
            raise InvalidKubeConfig(f"insecure TLS verification is not allowed for cluster {name}")
        if cluster.get("certificate-authority"):
            raise InvalidKubeConfig(
                "certificate-authority file paths are not allowed, use certificate-authority-data "
                f"for cluster {name}"
            )
        if not cluster.get("server"):
            raise InvalidKubeConfig(f"server URL is required for cluster {name}")


def valid_hostname(server: str) -> bool:
    """``isValidHostname``: the server's host is an IP address or a DNS subdomain."""
    try:
        host = urlsplit(server).hostname or ""
    except ValueError:
        return False
    return bool(_IP.match(host) or _DNS_SUBDOMAIN.match(host.lower()))


def _check_user(user: dict[str, Any]) -> None:
    if user.get("username") or user.get("password"):
        raise InvalidKubeConfig("basic auth is not allowed")
    if user.get("exec") is not None:
        raise InvalidKubeConfig("exec plugins are not allowed")
    if user.get("auth-provider") is not None:
        raise InvalidKubeConfig("auth providers are not allowed")


def parse_kubeconfig(text: bytes | str) -> ClientConfig:
    """The client config of the kubeconfig's current context; :class:`InvalidKubeConfig` when Kueue
    would refuse it."""
    try:
        config = YAML(typ="safe").load(text.decode() if isinstance(text, bytes) else text)
    except (YAMLError, UnicodeDecodeError) as err:
        raise InvalidKubeConfig(f"failed to parse kubeconfig(apiconfig): {err}") from None
    if not isinstance(config, dict):
        raise InvalidKubeConfig("failed to parse kubeconfig(apiconfig): not a kubeconfig")
    _check_clusters(config)
    current = config.get("current-context") or ""
    context = _named(config.get("contexts"), current, "context")
    if not context:
        raise InvalidKubeConfig(
            f"invalid configuration: context was not found for specified context: {current}"
        )
    cluster = _named(config.get("clusters"), context.get("cluster", ""), "cluster")
    user = _named(config.get("users"), context.get("user", ""), "user")
    server = str(cluster.get("server") or "")
    if not server:
        raise InvalidKubeConfig("invalid configuration: no server found for cluster")
    _check_user(user)
    if not valid_hostname(server):
        raise InvalidKubeConfig("untrusted server endpoint")
    ca = cluster.get("certificate-authority-data")
    return ClientConfig(server, user.get("token") or None, base64.b64decode(ca) if ca else None)
