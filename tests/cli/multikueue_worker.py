"""A MultiKueue worker for CLI tests: a ``kbatch serve`` with a node and examples/kueue/queues.yaml, and
the manager's Secret holding a kubeconfig that reaches it."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import httpx
import yaml

from tests.cli.conftest import EXAMPLES


def set_up_worker(url: str, token: str | None = None) -> None:
    """One node and the queues of examples/kueue/queues.yaml, written over HTTP (with the bearer
    ``token`` of a ``kbatch serve --token``)."""
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    reply = httpx.post(f"{url}/apis/kbatch.dev/v1alpha1/actions/nodes-add", json={"count": 1}, headers=auth,
                       timeout=60)
    assert reply.is_success, reply.text
    for doc in yaml.safe_load_all((EXAMPLES / "kueue" / "queues.yaml").read_text()):
        plural = {"ResourceFlavor": "resourceflavors", "ClusterQueue": "clusterqueues"}.get(doc["kind"])
        path = plural or "namespaces/default/localqueues"
        reply = httpx.post(f"{url}/apis/kueue.x-k8s.io/v1beta2/{path}", json=doc, headers=auth, timeout=60)
        assert reply.is_success, reply.text


def worker_secret(path: Path, url: str, name: str = "worker2-secret") -> Path:
    """The Secret examples/multikueue/manager-setup.yaml's cluster names, for the worker at ``url``."""
    kubeconfig = (f"apiVersion: v1\nkind: Config\ncurrent-context: w\nclusters:\n- name: w\n  cluster:\n"
                  f"    server: {url}\ncontexts:\n- name: w\n  context: {{cluster: w, user: w}}\n"
                  "users:\n- name: w\n  user: {}\n")
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": name, "namespace": "kueue-system"},
        "data": {"kubeconfig": base64.b64encode(kubeconfig.encode()).decode()},
    }))
    return path
