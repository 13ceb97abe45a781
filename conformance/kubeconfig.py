"""Read a kubeconfig (the file ``kubectl`` uses) into what an HTTP client needs to reach the cluster.

Supported: the current context (or a named one), ``server``, bearer ``token`` / ``tokenFile``, basic
auth, client certificates (file or ``-data``), ``certificate-authority`` (file or ``-data``) and
``insecure-skip-tls-verify``, and the context's ``namespace``. ``exec`` and ``auth-provider`` plugins
are not run: get a token first (``kubectl create token …``) and put it in the kubeconfig.
"""

from __future__ import annotations

import base64
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

__all__ = ["ClusterConfig", "load_kubeconfig"]


@dataclass(frozen=True)
class ClusterConfig:
    server: str
    token: str | None = None
    basic_auth: tuple[str, str] | None = None
    verify: bool | str = True  # False (insecure), True (system CAs) or a CA bundle path
    client_cert: tuple[str, str] | None = None  # (cert file, key file)
    namespace: str = "default"
    context: str = ""


def _named(entries: list[dict[str, Any]] | None, name: str, what: str) -> dict[str, Any]:
    for entry in entries or ():
        if entry.get("name") == name:
            return entry.get(what) or {}
    raise ValueError(f"kubeconfig has no {what} named {name!r}")


def _file_or_data(section: dict[str, Any], key: str, base: Path) -> str | None:
    """A path for ``key`` (relative paths are relative to the kubeconfig), writing ``key-data`` to a
    private temporary file when the data is inline."""
    if section.get(f"{key}-data"):
        fd, path = tempfile.mkstemp(prefix=f"kbatch-conformance-{key}-")
        with os.fdopen(fd, "wb") as out:
            out.write(base64.b64decode(section[f"{key}-data"]))
        return path
    if section.get(key):
        return str((base / os.path.expanduser(section[key])).resolve())
    return None


def load_kubeconfig(path: str | os.PathLike[str] | None = None, context: str | None = None) -> ClusterConfig:
    """``path`` defaults to the first file in ``$KUBECONFIG``, then ``~/.kube/config``."""
    if path is None:
        env = os.environ.get("KUBECONFIG", "")
        path = next((p for p in env.split(os.pathsep) if p), "~/.kube/config")
    file = Path(os.path.expanduser(str(path)))
    doc = YAML(typ="safe").load(file.read_text()) or {}
    name = context or doc.get("current-context") or ""
    if not name:
        raise ValueError(f"{file}: no current-context and no context given")
    ctx = _named(doc.get("contexts"), name, "context")
    cluster = _named(doc.get("clusters"), ctx.get("cluster", ""), "cluster")
    user = _named(doc.get("users"), ctx["user"], "user") if ctx.get("user") else {}
    if "exec" in user or "auth-provider" in user:
        raise ValueError(f"{file}: user {ctx.get('user')!r} uses an exec/auth-provider plugin, which the "
                         "conformance target does not run; put a bearer token in the kubeconfig instead")
    base = file.parent
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = (base / user["tokenFile"]).read_text().strip()
    verify: bool | str = True
    if cluster.get("insecure-skip-tls-verify"):
        verify = False
    else:
        verify = _file_or_data(cluster, "certificate-authority", base) or True
    cert = _file_or_data(user, "client-certificate", base)
    key = _file_or_data(user, "client-key", base)
    basic = (user["username"], user.get("password", "")) if user.get("username") else None
    return ClusterConfig(server=str(cluster["server"]).rstrip("/"), token=token, basic_auth=basic,
                         verify=verify, client_cert=(cert, key) if cert and key else None,
                         namespace=ctx.get("namespace") or "default", context=name)
