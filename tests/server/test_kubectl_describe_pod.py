"""``kbatch describe pod|job|cronjob`` and the real kubectl against one ``kbatch serve``: the same page.

kubectl's ``describePod``/``describeJob``/``describeCronJob`` (k8s.io/kubectl ``pkg/describe/describe.go``)
are the reference. kbatch's own additions are cut first (a Job's Conditions block). The pages
are compared byte for byte but for what cannot match: the events' Age column (kubectl's ages come
from the wall clock, kbatch's from the virtual one), and what kubectl 1.32 on this machine prints
differently from the 1.37 kbatch follows (``#success=``/``#failure=`` in probes, no port names, no
``fieldPath:`` before an event's message, added in kubectl 1.35, no CronJob ``Time Zone`` line, added
in 1.36, and a projected configMap's ``ConfigMapOptional: <nil>`` where 1.33+ prints ``Optional: false``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl
from tests.server.test_kubectl_parity import kbatch

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

RICH_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "name": "rich",
        "labels": {"app": "web", "tier": "a"},
        "annotations": {"note": "hello", "long": "x" * 150},
    },
    "spec": {
        "restartPolicy": "Never",
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [
            {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
            {"operator": "Exists"},
        ],
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}},
            }
        ],
        "volumes": [
            {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}},
            {"name": "conf", "configMap": {"name": "settings", "optional": True}},
            {"name": "host", "hostPath": {"path": "/var/data", "type": "Directory"}},
            {
                "name": "info",
                "downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]},
            },
        ],
        "initContainers": [
            {"name": "init", "image": "busybox", "command": ["sh", "-c", "echo hi\necho bye"]}
        ],
        "containers": [
            {
                "name": "app",
                "image": "nginx",
                "command": ["sleep", "3600"],
                "args": ["--flag"],
                "ports": [{"containerPort": 80, "name": "http"}, {"containerPort": 443}],
                "env": [
                    {"name": "A", "value": "x\ny"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "TIER", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['tier']"}}},
                    {"name": "CPU", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
                    {
                        "name": "MEM",
                        "valueFrom": {"resourceFieldRef": {"resource": "requests.memory", "divisor": "1Mi"}},
                    },
                    {"name": "S", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
                    {
                        "name": "C",
                        "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k", "optional": True}},
                    },
                ],
                "envFrom": [
                    {"configMapRef": {"name": "settings"}, "prefix": "CFG_"},
                    {"secretRef": {"name": "s"}},
                ],
                "resources": {
                    "requests": {"cpu": "100m", "memory": "64Mi"},
                    "limits": {"cpu": "1", "memory": "128Mi"},
                },
                "livenessProbe": {"exec": {"command": ["cat", "/tmp/ok"]}, "periodSeconds": 5},
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                "startupProbe": {"tcpSocket": {"port": 80}},
                "volumeMounts": [
                    {"name": "scratch", "mountPath": "/scratch"},
                    {"name": "conf", "mountPath": "/etc/conf", "readOnly": True, "subPath": "app"},
                ],
            }
        ],
    },
}
CRASHING_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "crash"},
    "spec": {
        "restartPolicy": "Always",
        "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", "sleep 2; exit 1"]}],
    },
}


INDEXED_JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "sweep", "labels": {"team": "ml"}},
    "spec": {
        "completions": 3,
        "parallelism": 3,
        "completionMode": "Indexed",
        "ttlSecondsAfterFinished": 600,
        "activeDeadlineSeconds": 900,
        "template": {
            "metadata": {"annotations": {"note": "trial"}},
            "spec": {
                "restartPolicy": "Never",
                "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "volumes": [{"name": "scratch", "emptyDir": {}}],
                "containers": [
                    {
                        "name": "trial",
                        "image": "busybox",
                        "command": ["sleep", "5"],
                        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
                        "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}],
                    }
                ],
            },
        },
    },
}


@pytest.fixture(scope="module")
def cluster(served: Any) -> Any:
    for args in (["nodes", "add", "--count", "1"],):
        try:
            main(["--server", served.url, *args])
        except SystemExit as exit_:
            assert not exit_.code
    kubectl(
        served,
        "create",
        "-f",
        "-",
        input_=json.dumps({"apiVersion": "v1", "kind": "List", "items": [RICH_POD, CRASHING_POD]}),
    )
    kubectl(served, "create", "job", "pi", "--image=busybox", "--", "sleep", "3600")
    kubectl(served, "create", "-f", "-", input_=json.dumps(INDEXED_JOB))
    kubectl(
        served, "create", "cronjob", "tick", "--image=busybox", "--schedule=*/1 * * * *", "--", "sleep", "5"
    )
    try:
        main(["--server", served.url, "advance", "75s"])
    except SystemExit as exit_:
        assert not exit_.code
    return served


def _comparable(page: str) -> str:
    """The page with the events' Age cells blanked and kubectl 1.32's spellings of 1.37's lines."""
    head, _, events = page.partition("\nEvents:")
    head = head.replace("#success=", "successThreshold=").replace("#failure=", "failureThreshold=")
    head = re.sub(r"^Time Zone:.*\n", "", head, flags=re.M)
    # 1.32 prints a projected configMap's *bool as "ConfigMapOptional: <nil>"; 1.33+ (kubernetes PR
    # 129457) prints "Optional:" and the dereferenced bool, false when unset (the kube-api-access volume)
    head = re.sub(
        r"^(\s+)ConfigMapOptional:(\s+)<nil>$",
        lambda m: m.group(1) + "Optional:" + m.group(2) + " " * 9 + "false",
        head,
        flags=re.M,
    )
    head = re.sub(
        r"^(\s+(?:Host )?Ports?:\s+)(.*)$",
        lambda m: m.group(1) + re.sub(r" \([a-z0-9-]+\)", "", m.group(2)),
        head,
        flags=re.M,
    )
    rows = [re.split(r"\s{2,}", row.strip()) for row in events.splitlines()[3:]]
    rows = [
        [*r[:4], re.sub(r"^spec\.(?:init)?[cC]ontainers\{[^}]*\}: ", "", r[4])] if len(r) > 4 else r
        for r in rows
    ]
    return head + "\nEvents:" + "\n".join("|".join(r[:2] + r[3:]) for r in rows)


def _pod_named(served: Any, prefix: str) -> str:
    names = kubectl(served, "get", "pods", "-o", "jsonpath={.items[*].metadata.name}").stdout.split()
    return next(n for n in names if n.startswith(prefix))


@pytest.mark.parametrize("which", ["rich", "crash", "pi-"])
def test_describe_pod_prints_kubectl_page(
    cluster: Any, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    name = _pod_named(cluster, which)
    ours = kbatch(cluster, capsys, "describe", "pod", name)
    theirs = kubectl(cluster, "describe", "pod", name).stdout
    assert _comparable(ours.rstrip("\n")) == _comparable(theirs.rstrip("\n"))


def test_describe_pod_shows_a_crash_loop(cluster: Any, capsys: pytest.CaptureFixture[str]) -> None:
    page = kbatch(cluster, capsys, "describe", "pod", "crash")
    assert re.search(r"^    State:\s+Waiting\n      Reason:\s+CrashLoopBackOff$", page, re.M)
    assert re.search(
        r"^    Last State:\s+Terminated\n      Reason:\s+Error\n      Exit Code:\s+1$", page, re.M
    )
    assert re.search(r"^    Restart Count:\s+3$", page, re.M)  # restarts at 2, 14, 36 s
    assert "spec.containers{main}: Back-off restarting failed container main in pod crash_default(" in page


def test_describe_job_pod_names_its_controller_and_resolves_env(
    cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    page = kbatch(cluster, capsys, "describe", "pod", _pod_named(cluster, "pi-"))
    assert re.search(r"^Controlled By:\s+Job/pi$", page, re.M)
    rich = kbatch(cluster, capsys, "describe", "pod", "rich")
    for line in (
        r"      POD:\s+rich \(v1:metadata.name\)",
        r"      TIER:\s+\(v1:metadata.labels\['tier'\]\)",
        r"      CPU:\s+1 \(limits.cpu\)",
        r"      MEM:\s+64 \(requests.memory\)",
        r"      /etc/conf from conf \(ro,path=\"app\"\)",
    ):
        assert re.search(f"^{line}$", rich, re.M), line


def _without_conditions(page: str) -> str:
    """kbatch's Conditions block (its addition to kubectl's Job page) cut."""
    return re.sub(r"\nConditions:\n(?:  .*\n)*", "\n", page)


@pytest.mark.parametrize(("kind", "name"), [("job", "pi"), ("job", "sweep"), ("cronjob", "tick")])
def test_describe_job_and_cronjob_print_kubectl_pages(
    cluster: Any, capsys: pytest.CaptureFixture[str], kind: str, name: str
) -> None:
    ours = _without_conditions(kbatch(cluster, capsys, "describe", kind, name))
    theirs = kubectl(cluster, "describe", kind, name).stdout
    assert _comparable(ours.rstrip("\n")) == _comparable(theirs.rstrip("\n"))
