"""The kubeconfig that points kubectl and the Python client at a running ``kbatch serve``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["kubeconfig", "write_kubeconfig"]


def kubeconfig(server: str, *, token: str | None = None, name: str = "kbatch",
               namespace: str = "default") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server}}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
        "current-context": name,
        "users": [{"name": name, "user": {"token": token} if token else {}}],
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
