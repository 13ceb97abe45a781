"""``kbatch create token`` without a server, each command a separate process over one state directory
(kubectl ``pkg/cmd/create/create_token.go``): the token authenticates (a TokenReview in another
process), a bound token names its pod, kubectl's flag checks and the server's errors are one
``error:`` line, and the same commands give the same tokens. The pod's own token, read with
``kbatch logs`` of a script that cats it, is a real token too, kept by the kubelet across commands
until its refresh is due."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kbatch.authz.signing import unverified_claims
from tests.cli.runners import CliProcesses

CREATE_TOKEN = ("create", "token")
ACCOUNT = """apiVersion: v1
kind: ServiceAccount
metadata: {name: runner}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  serviceAccountName: runner
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: [sh, -c, 'cat /var/run/secrets/kubernetes.io/serviceaccount/token; sleep 86400']
"""
REVIEW = """apiVersion: authentication.k8s.io/v1
kind: TokenReview
spec: {token: TOKEN}
"""


@pytest.fixture
def cli(tmp_path: Path) -> CliProcesses:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "a.yaml").write_text(ACCOUNT)
    assert cli.run("nodes", "add", "--count", "1").code == 0
    applied = cli.run("apply", "-f", str(tmp_path / "a.yaml"))
    assert applied.code == 0, applied.err
    assert cli.run("advance", "5s").code == 0
    return cli


def review(cli: CliProcesses, tmp_path: Path, token: str) -> dict:
    (tmp_path / "r.yaml").write_text(REVIEW.replace("TOKEN", token))
    out = cli.run("create", "-f", str(tmp_path / "r.yaml"), "-o", "json")
    assert out.code == 0, out.err
    return json.loads(out.out)["status"]


def test_the_token_authenticates_in_another_process(cli: CliProcesses, tmp_path: Path) -> None:
    made = cli.run(*CREATE_TOKEN, "runner")
    assert made.code == 0, made.err
    assert not made.out.endswith("\n")  # not a terminal: the token alone, as kubectl prints it
    status = review(cli, tmp_path, made.out)
    assert status["authenticated"] is True
    assert status["user"]["username"] == "system:serviceaccount:default:runner"


def test_a_bound_token_names_its_pod_and_node(cli: CliProcesses, tmp_path: Path) -> None:
    made = cli.run(*CREATE_TOKEN, "runner", "--bound-object-kind", "Pod", "--bound-object-name", "p",
                   "--duration", "20m", "--audience", "https://example.test", "-o", "yaml")
    assert made.code == 0, made.err
    request = yaml.safe_load(made.out)
    assert request["spec"]["expirationSeconds"] == 1200
    assert request["spec"]["boundObjectRef"] == {"apiVersion": "v1", "kind": "Pod", "name": "p"}
    claims = unverified_claims(request["status"]["token"]) or {}
    assert claims["aud"] == ["https://example.test"] and claims["exp"] - claims["iat"] == 1200
    assert claims["kubernetes.io"]["pod"]["name"] == "p" and claims["kubernetes.io"]["node"]["name"]


@pytest.mark.parametrize(("args", "message"), [
    (("runner", "--bound-object-name", "p"), "--bound-object-name can only be set if --bound-object-kind "
                                             "is provided"),
    (("runner", "--bound-object-kind", "Job", "--bound-object-name", "j"),
     "supported --bound-object-kind values are Node, Pod, Secret"),
    (("runner", "--bound-object-kind", "Pod"), "--bound-object-name is required if --bound-object-kind is "
                                               "provided"),
    (("runner", "--duration", "90500ms"), "--duration cannot be expressed in units less than seconds"),
    (("runner", "--audience", ""), "--audience must not be an empty string"),
    (("nope",), 'failed to create token: serviceaccounts "nope" not found'),
    (("runner", "--duration", "5m"), "failed to create token: TokenRequest.authentication.k8s.io \"\" is "
                                     "invalid: spec.expirationSeconds: Invalid value: 300: may not specify a "
                                     "duration less than 10 minutes"),
])
def test_bad_requests_are_one_error_line(cli: CliProcesses, args: tuple[str, ...], message: str) -> None:
    out = cli.run(*CREATE_TOKEN, *args)
    assert (out.code, out.err) == (1, f"error: {message}\n")


def test_the_same_commands_give_the_same_token(tmp_path: Path) -> None:
    tokens = []
    for run in ("one", "two"):
        cli = CliProcesses(tmp_path / run)
        (tmp_path / "a.yaml").write_text(ACCOUNT)
        assert cli.run("apply", "-f", str(tmp_path / "a.yaml")).code == 0
        tokens.append(cli.run(*CREATE_TOKEN, "runner").out)
    assert tokens[0] == tokens[1] and tokens[0]


def test_the_pods_token_file_is_kept_across_commands_until_its_refresh(cli: CliProcesses,
                                                                      tmp_path: Path) -> None:
    first = cli.run("logs", "p").out.strip()
    status = review(cli, tmp_path, first)
    assert status["user"]["username"] == "system:serviceaccount:default:runner"
    assert status["user"]["extra"]["authentication.kubernetes.io/pod-name"] == ["p"]
    assert cli.run("advance", "40m").code == 0
    assert cli.run("logs", "p").out.strip() == first
    assert cli.run("advance", "10m").code == 0  # 50 min: past 80 % of 3607 s
    later = cli.run("logs", "p").out.strip()
    assert later != first and review(cli, tmp_path, later)["authenticated"] is True
