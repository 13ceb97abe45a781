"""Legacy token Secrets and TokenReview with the real kubectl against ``kbatch serve --tls``, as the
Kubernetes docs show them ("Manually create a long-lived API token for a ServiceAccount"; "TokenReview"):
a ``kubernetes.io/service-account-token`` Secret is filled by the tokens controller, its token works
with ``kubectl --token``, ``kubectl create -f tokenreview.yaml -o yaml`` reviews a good and a bad token."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import yaml

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
NS = "legacy"
SA = f"system:serviceaccount:{NS}:builder"
SECRET = f"""apiVersion: v1
kind: Secret
metadata:
  name: builder-token
  namespace: {NS}
  annotations:
    kubernetes.io/service-account.name: builder
type: kubernetes.io/service-account-token
"""


def _review(token: str) -> str:
    return f"""apiVersion: authentication.k8s.io/v1
kind: TokenReview
spec:
  token: {token}
"""


@pytest.fixture(scope="module")
def served(served_tls: ServeProcess) -> ServeProcess:
    return served_tls


@pytest.fixture(scope="module")
def token(served: Any) -> str:
    kubectl(served, "create", "namespace", NS)
    kubectl(served, "create", "serviceaccount", "builder", "-n", NS)
    kubectl(served, "apply", "-f", "-", input_=SECRET)
    encoded = kubectl(served, "get", "secret", "builder-token", "-n", NS, "-o",
                      "jsonpath={.data.token}").stdout
    return base64.b64decode(encoded).decode()


def test_the_secret_is_filled_as_the_tokens_controller_does(served: Any, token: str) -> None:
    secret = json.loads(kubectl(served, "get", "secret", "builder-token", "-n", NS, "-o", "json").stdout)
    assert sorted(secret["data"]) == ["ca.crt", "namespace", "token"]
    assert base64.b64decode(secret["data"]["namespace"]).decode() == NS
    account = json.loads(kubectl(served, "get", "sa", "builder", "-n", NS, "-o", "json").stdout)
    uid = account["metadata"]["uid"]
    assert secret["metadata"]["annotations"]["kubernetes.io/service-account.uid"] == uid
    assert token.count(".") == 2
    described = kubectl(served, "describe", "secret", "builder-token", "-n", NS).stdout
    assert "kubernetes.io/service-account-token" in described and token in described


def test_the_token_authenticates_as_the_account(served: Any, token: str) -> None:
    me = json.loads(kubectl(served, "auth", "whoami", f"--token={token}", "-o", "json").stdout)
    assert me["status"]["userInfo"]["username"] == SA
    denied = kubectl(served, "get", "pods", "-n", NS, f"--token={token}", check=False)
    assert denied.returncode == 1
    assert f'User "{SA}" cannot list resource "pods"' in denied.stderr
    labels = kubectl(served, "get", "secret", "builder-token", "-n", NS, "-o",
                     "jsonpath={.metadata.labels}").stdout
    assert "kubernetes.io/legacy-token-last-used" in labels


def test_token_reviews_of_a_good_and_a_bad_token(served: Any, token: str) -> None:
    good = yaml.safe_load(kubectl(served, "create", "-f", "-", "-o", "yaml", input_=_review(token)).stdout)
    assert good["kind"] == "TokenReview"
    assert good["status"]["authenticated"] is True
    assert good["status"]["user"]["username"] == SA
    assert good["status"]["audiences"] == ["https://kubernetes.default.svc.cluster.local"]
    bad = yaml.safe_load(kubectl(served, "create", "-f", "-", "-o", "yaml",
                                 input_=_review(token[:-4] + "AAAA")).stdout)
    assert "authenticated" not in bad["status"]
    assert bad["status"]["error"].startswith("[invalid bearer token, ")


def test_deleting_the_account_deletes_the_secret_and_the_token_stops_working(served: Any, token: str) -> None:
    kubectl(served, "delete", "sa", "builder", "-n", NS)
    gone = kubectl(served, "get", "secret", "builder-token", "-n", NS, check=False)
    assert gone.returncode == 1 and "NotFound" in gone.stderr
    refused = kubectl(served, "get", "pods", "-n", NS, f"--token={token}", check=False)
    assert "error: You must be logged in to the server" in refused.stderr
