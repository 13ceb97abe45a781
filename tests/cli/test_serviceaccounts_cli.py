"""ServiceAccounts through the CLI, each command a separate process over one state directory
(tests/cli/runners.py ``CliProcesses``): a new namespace gets its ``default`` account and
``kube-root-ca.crt`` (upstream serviceaccounts_controller.go, rootcacertpublisher/publisher.go), a
pod created in the command after the Namespace's, or in the same ``apply -f`` as its Namespace, is
admitted with the projected API volume (plugin/pkg/admission/serviceaccount/admission.go); with the
controller off a pod in a new namespace is refused with upstream's text; ``get sa`` and ``describe sa``
are kubectl's."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.cli.runners import CliProcesses

BUNDLE = """apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: team}
imagePullSecrets: [{name: registry}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: build, namespace: team}
spec:
  template:
    spec:
      serviceAccountName: builder
      restartPolicy: Never
      containers: [{name: c, image: busybox}]
"""
NAMESPACE = "apiVersion: v1\nkind: Namespace\nmetadata: {name: fresh}\n"
POD = """apiVersion: v1
kind: Pod
metadata: {name: p, namespace: NS}
spec:
  containers: [{name: c, image: busybox}]
"""


def _pod(cli: CliProcesses, namespace: str, name: str = "p") -> dict:
    got = cli.run("get", "pod", name, "-n", namespace, "-o", "yaml")
    assert got.code == 0, got.err
    return yaml.safe_load(got.out)


def test_a_bundle_with_its_namespace_and_account_applies_in_one_command(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "b.yaml").write_text(BUNDLE)
    applied = cli.run("apply", "-f", str(tmp_path / "b.yaml"))
    assert applied.code == 0, applied.err
    assert "serviceaccount/builder created" in applied.out
    listed = cli.run("get", "sa", "-n", "team")
    assert [line.split()[:2] for line in listed.out.splitlines()] == [["NAME", "SECRETS"], ["builder", "0"],
                                                                      ["default", "0"]]
    pods = cli.run("get", "pods", "-n", "team", "-o", "yaml")
    [pod] = yaml.safe_load(pods.out)["items"]
    assert pod["spec"]["serviceAccountName"] == "builder"
    assert pod["spec"]["imagePullSecrets"] == [{"name": "registry"}]
    [volume] = pod["spec"]["volumes"]
    assert volume["name"].startswith("kube-api-access-")
    assert cli.run("get", "configmap", "kube-root-ca.crt", "-n", "team").code == 0


def test_a_pod_in_the_command_after_create_namespace(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "ns.yaml").write_text(NAMESPACE)  # kbatch has no `create namespace NAME`
    assert cli.run("create", "-f", str(tmp_path / "ns.yaml")).code == 0
    (tmp_path / "p.yaml").write_text(POD.replace("NS", "fresh"))
    created = cli.run("create", "-f", str(tmp_path / "p.yaml"))
    assert created.code == 0, created.err
    spec = _pod(cli, "fresh")["spec"]
    mounts = spec["containers"][0]["volumeMounts"]
    assert mounts == [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                       "name": spec["volumes"][0]["name"], "readOnly": True}]
    assert spec["volumes"][0]["projected"]["defaultMode"] == 420


def test_without_the_controller_a_new_namespace_refuses_pods(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    off = ("--controllers", "*,-serviceaccount")
    (tmp_path / "ns.yaml").write_text(NAMESPACE)
    assert cli.run(*off, "create", "-f", str(tmp_path / "ns.yaml")).code == 0
    (tmp_path / "p.yaml").write_text(POD.replace("NS", "fresh"))
    refused = cli.run(*off, "create", "-f", str(tmp_path / "p.yaml"))
    assert refused.code != 0
    assert ('pods "p" is forbidden: error looking up service account fresh/default: serviceaccount '
            '"default" not found') in refused.err
    assert "Traceback" not in refused.err
    (tmp_path / "d.yaml").write_text(POD.replace("NS", "default"))  # bootstrap namespaces have theirs
    assert cli.run(*off, "create", "-f", str(tmp_path / "d.yaml")).code == 0


def test_describe_service_account_is_kubectls_page(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    (tmp_path / "sa.yaml").write_text("""apiVersion: v1
kind: ServiceAccount
metadata: {name: bot, namespace: default}
secrets: [{name: s1}, {name: s2}]
""")
    assert cli.run("apply", "-f", str(tmp_path / "sa.yaml")).code == 0
    page = cli.run("describe", "sa", "bot").out
    assert page.splitlines() == [
        "Name:                bot",
        "Namespace:           default",
        "Labels:              <none>",
        "Annotations:         <none>",
        "Image pull secrets:  <none>",
        "Mountable secrets:   s1",
        "                     s2",
        "Tokens:              <none>",
        "Events:              <none>",
    ]
