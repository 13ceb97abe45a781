"""The kubeconfig that points kubectl and the Python client at a running ``kbatch serve``."""

from __future__ import annotations

import base64
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kbatch.server.tls import ServingCert

__all__ = ["kubeconfig", "write_kubeconfig"]


def kubeconfig(server: str, *, token: str | None = None, name: str = "kbatch",
               namespace: str = "default", tls: ServingCert | None = None) -> dict[str, Any]:
    """``tls``: the serving certificate of ``kbatch serve --tls`` (``certificate-authority-data``) and
    the administrator's client certificate (the user's, when there is no ``token``)."""
    cluster: dict[str, Any] = {"server": server}
    user: dict[str, Any] = {"token": token} if token else {}
    if tls is not None:
        cluster["certificate-authority-data"] = base64.b64encode(tls.ca_pem).decode()
        if not token:
            user = {"client-certificate-data": base64.b64encode(tls.admin_cert_pem).decode(),
                    "client-key-data": base64.b64encode(tls.admin_key_pem).decode()}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
        "current-context": name,
        "users": [{"name": name, "user": user}],
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike[str], config: dict[str, Any]) -> Path:
    """Write atomically with mode 0600 (it may hold a token). JSON is valid YAML for kubectl."""
    import json

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".kubeconfig-")
    with os.fdopen(fd, "w") as out:
        json.dump(config, out, indent=2)
        out.write("\n")
    os.chmod(tmp, 0o600)
    os.replace(tmp, target)
    return target
