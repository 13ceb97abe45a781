"""``kubectl create -f`` of a review against ``kbatch serve``, and ``kbatch create -f`` of the same
review in local mode (a separate process, no server) and in remote mode (``--server``): all answer
as upstream's POST does (``pkg/registry/authorization/*/rest.go``): the review with its ``status``,
printed with ``-o yaml``,
``<unknown>`` as its name by the name printer (cli-runtime ``pkg/printers/name.go``), validation errors
as kube-apiserver words them. The YAML differs only where kbatch deliberately does not fold long
strings at 80 columns (``kbatch.cli.render.render_yaml``), so the documents are compared parsed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

ROOT = Path(__file__).resolve().parents[2]
BINDING = """\
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: jane-view, namespace: default}
subjects: [{kind: User, name: jane, apiGroup: rbac.authorization.k8s.io}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
"""
REVIEWS = {
    "sar.yaml": "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: jane\n"
                "  resourceAttributes: {namespace: default, verb: get, resource: pods}\n",
    "denied.yaml": "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec:\n  user: jane\n"
                   "  resourceAttributes: {namespace: default, verb: delete, resource: pods}\n",
    "lsar.yaml": "apiVersion: authorization.k8s.io/v1\nkind: LocalSubjectAccessReview\nspec:\n"
                 "  user: system:serviceaccount:kube-system:job-controller\n"
                 "  resourceAttributes: {namespace: ns1, verb: create, resource: pods}\n",
    "tokenreview.yaml": "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {token: nope}\n",
}
BAD = "apiVersion: authorization.k8s.io/v1\nkind: SubjectAccessReview\nspec: {}\n"


def _local(tmp: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("KBATCH_STATE", "KBATCH_SERVER", "KBATCH_FEATURE_GATES"):
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(tmp / "state"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp, timeout=120)
    assert (done.returncode == 0) == ok, f"kbatch {' '.join(args)}: {done.stderr}{done.stdout}"
    return done


def _yaml(text: str) -> Any:
    return YAML(typ="safe").load(text)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("reviews")
    for name, text in {**REVIEWS, "binding.yaml": BINDING, "bad.yaml": BAD}.items():
        (tmp / name).write_text(text)
    _local(tmp, "apply", "-f", str(tmp / "binding.yaml"))
    return tmp


@pytest.mark.parametrize("review", sorted(REVIEWS))
def test_local_create_answers_as_kubectl_against_the_server(served: Any, files: Path, review: str) -> None:
    kubectl(served, "apply", "-f", str(files / "binding.yaml"))
    namespace = ["-n", "ns1"] if review == "lsar.yaml" else []
    remote = kubectl(served, "create", "-f", str(files / review), *namespace, "-o", "yaml").stdout
    local = _local(files, "create", "-f", str(files / review), *namespace, "-o", "yaml").stdout
    assert _yaml(local) == _yaml(remote)
    assert "status" in _yaml(local)
    over_http = _local(files, "--server", served.url, "create", "-f", str(files / review), *namespace,
                       "-o", "yaml").stdout  # kbatch's remote mode: the same POST as kubectl's
    assert _yaml(over_http) == _yaml(remote)


def test_the_answers_decide(files: Path) -> None:
    allowed = _yaml(_local(files, "create", "-f", str(files / "sar.yaml"), "-o", "yaml").stdout)
    assert allowed["status"] == {
        "allowed": True, "reason": 'RBAC: allowed by RoleBinding "jane-view/default" of ClusterRole "view" '
                                   'to User "jane"'}
    denied = _yaml(_local(files, "create", "-f", str(files / "denied.yaml"), "-o", "yaml").stdout)
    assert denied["status"] == {"allowed": False}


def test_the_name_line_and_the_errors_are_kubectls(served: Any, files: Path) -> None:
    line = _local(files, "create", "-f", str(files / "sar.yaml")).stdout
    assert line == kubectl(served, "create", "-f", str(files / "sar.yaml")).stdout
    assert line == "subjectaccessreview.authorization.k8s.io/<unknown> created\n"
    local = _local(files, "create", "-f", str(files / "bad.yaml"), ok=False).stderr
    remote = kubectl(served, "create", "-f", str(files / "bad.yaml"), check=False).stderr
    assert local == remote and "Traceback" not in local
    assert "spec.user: Invalid value: \"\": at least one of user or group must be specified" in local


@pytest.mark.parametrize("resource", ["subjectaccessreviews", "selfsubjectaccessreview",
                                      "tokenreviews.authentication.k8s.io"])
def test_get_of_a_review_is_refused_as_kubectl_is(served: Any, files: Path, resource: str) -> None:
    """A create-only review is in discovery, so kubectl sends the GET and the server answers 405
    (go-restful has only the POST route that ``pkg/endpoints/installer.go`` installs for a
    ``rest.Creater``); kbatch's CLI, local and remote, prints the same line (it said "the server
    doesn't have a resource type")."""
    remote = kubectl(served, "get", resource, check=False)
    assert remote.returncode == 1
    assert remote.stderr == ("Error from server (MethodNotAllowed): the server does not allow this "
                             "method on the requested resource\n")
    assert _local(files, "get", resource, ok=False).stderr == remote.stderr
    assert _local(files, "--server", served.url, "get", resource, ok=False).stderr == remote.stderr


def test_get_of_a_named_review_is_refused_as_kubectl_is(served: Any, files: Path) -> None:
    """A name under a create-only review's path has no route at all: go-restful's 404, which kubectl
    prints as ``Error from server (NotFound): the server could not find the requested resource``."""
    remote = kubectl(served, "get", "subjectaccessreviews", "x", check=False)
    assert remote.returncode == 1
    assert remote.stderr == "Error from server (NotFound): the server could not find the requested resource\n"
    assert _local(files, "get", "subjectaccessreviews", "x", ok=False).stderr == remote.stderr
    assert _local(files, "--server", served.url, "get", "subjectaccessreviews", "x", ok=False).stderr == \
        remote.stderr
