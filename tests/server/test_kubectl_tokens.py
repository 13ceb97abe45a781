"""Service-account tokens with the real kubectl against ``kbatch serve --tls`` (kubectl sends a token
only over HTTPS), as users try RBAC on a cluster: ``kubectl create token`` (a protobuf TokenRequest),
then ``kubectl --token``: forbidden before a RoleBinding, allowed after, ``auth whoami`` and ``auth
can-i`` answering for the account, impersonation refused to an account without ``impersonate``, a
bad token refused with 401."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
NS = "tok"
SA = f"system:serviceaccount:{NS}:runner"


@pytest.fixture(scope="module")
def served(served_tls: ServeProcess) -> ServeProcess:
    return served_tls


@pytest.fixture(scope="module")
def token(served: Any) -> str:
    kubectl(served, "create", "namespace", NS)
    kubectl(served, "create", "serviceaccount", "runner", "-n", NS)
    return kubectl(served, "create", "token", "runner", "-n", NS).stdout.strip()


def test_create_token_prints_a_jwt_for_the_account(served: Any, token: str) -> None:
    assert token.count(".") == 2
    request = kubectl(served, "create", "token", "runner", "-n", NS, "--duration=20m", "-o", "json",
                      "--audience=https://example.test")
    out = json.loads(request.stdout)
    assert out["kind"] == "TokenRequest"
    assert out["spec"] == {"audiences": ["https://example.test"], "expirationSeconds": 1200,
                           "boundObjectRef": None}


def test_forbidden_before_the_rolebinding_and_allowed_after(served: Any, token: str) -> None:
    denied = kubectl(served, "get", "pods", "-n", NS, f"--token={token}", check=False)
    assert denied.returncode == 1
    assert (f'Error from server (Forbidden): pods is forbidden: User "{SA}" cannot list resource "pods" '
            f'in API group "" in the namespace "{NS}"') in denied.stderr
    kubectl(served, "create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods", "-n", NS)
    kubectl(served, "create", "rolebinding", "runner-reads", "--role=pod-reader",
            f"--serviceaccount={NS}:runner", "-n", NS)
    allowed = kubectl(served, "get", "pods", "-n", NS, f"--token={token}")
    assert "No resources found" in allowed.stderr
    write = kubectl(served, "create", "configmap", "c", "-n", NS, f"--token={token}", check=False)
    assert write.returncode == 1
    assert f'configmaps is forbidden: User "{SA}" cannot create resource "configmaps"' in write.stderr


def test_whoami_and_can_i_answer_for_the_account(served: Any, token: str) -> None:
    me = kubectl(served, "auth", "whoami", f"--token={token}", "-o", "json")
    info = json.loads(me.stdout)["status"]["userInfo"]
    assert info["username"] == SA
    assert info["groups"] == ["system:serviceaccounts", f"system:serviceaccounts:{NS}",
                              "system:authenticated"]
    no = kubectl(served, "auth", "can-i", "create", "jobs.batch", "-n", NS, f"--token={token}", check=False)
    assert (no.returncode, no.stdout.strip()) == (1, "no")
    kubectl(served, "create", "rolebinding", "runner-edit", "--clusterrole=edit",
            f"--serviceaccount={NS}:runner", "-n", NS)
    yes = kubectl(served, "auth", "can-i", "create", "jobs.batch", "-n", NS, f"--token={token}")
    assert yes.stdout.strip() == "yes"


def test_the_account_may_not_impersonate_without_the_verb(served: Any, token: str) -> None:
    # kubectl's discovery would be refused the same way (every request impersonates) and print
    # "Forbidden: unknown": read the API groups into its cache first, as any earlier command does
    kubectl(served, "api-resources")
    out = kubectl(served, "get", "pods", "-n", NS, f"--token={token}", "--as=jane", check=False)
    assert out.returncode == 1
    assert (f'pods is forbidden: User "{SA}" cannot impersonate-on:user-info:list resource "pods" in API '
            f'group "" in the namespace "{NS}"') in out.stderr


def test_the_kubeconfig_trusts_the_serving_certificate(served: Any) -> None:
    assert served.url.startswith("https://")
    assert kubectl(served, "get", "namespaces", NS, "-o", "name").stdout.strip() == f"namespace/{NS}"


def test_a_token_that_is_not_ours_is_unauthorized(served: Any) -> None:
    out = kubectl(served, "get", "pods", "--token=not-a-token", check=False)
    assert out.returncode == 1
    assert "error: You must be logged in to the server" in out.stderr


def test_the_kbatch_cli_talks_to_the_https_server_of_its_state(served: Any) -> None:
    """``kbatch --state D --server https://…`` trusts ``D/tls/tls.crt``."""
    out = subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(served.state), "--server",
                          served.url, "get", "namespaces", NS, "-o", "name"],
                         capture_output=True, text=True, timeout=60, env={**os.environ})
    assert (out.returncode, out.stdout.strip()) == (0, f"namespace/{NS}"), out.stderr


def test_a_pod_bound_token_from_kubectl(served: Any, token: str) -> None:
    """``--bound-object-*`` travel in the protobuf BoundObjectReference (its uid field is ``uID`` in
    generated.proto, ``uid`` in JSON)."""
    kubectl(served, "run", "p", "--image=busybox", "-n", NS,
            '--overrides={"spec": {"serviceAccountName": "runner"}}')
    bound = kubectl(served, "create", "token", "runner", "-n", NS, "--bound-object-kind=Pod",
                    "--bound-object-name=p").stdout.strip()
    me = json.loads(kubectl(served, "auth", "whoami", f"--token={bound}", "-o", "json").stdout)
    assert me["status"]["userInfo"]["extra"]["authentication.kubernetes.io/pod-name"] == ["p"]
    stale = kubectl(served, "create", "token", "runner", "-n", NS, "--bound-object-kind=Pod",
                    "--bound-object-name=p", "--bound-object-uid=not-the-uid", check=False)
    assert stale.returncode == 1
    assert ('Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (not-the-uid) '
            "does not match the UID in record. The object might have been deleted and then recreated") \
        in stale.stderr
