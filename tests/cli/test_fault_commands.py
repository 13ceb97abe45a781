"""The kubelet and probe fault commands (docs/cli.md, "The simulated cluster and faults")."""

from __future__ import annotations

import json
from typing import Any

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
       "spec": {"restartPolicy": "Always",
                "containers": [{"name": "c", "image": "b", "command": ["sleep", "100000"],
                                "readinessProbe": {"httpGet": {"port": 80}, "periodSeconds": 10}}]}}


def _get(kb: Any, *args: str) -> Any:
    return json.loads(kb.ok("get", *args, "-o", "json"))


def _ready(obj: Any) -> str:
    return next(c["status"] for c in obj["status"]["conditions"] if c["type"] == "Ready")


def test_stop_and_start_kubelet(kb: Any) -> None:
    kb.ok("nodes", "add")
    assert kb.ok("node", "stop-kubelet", "node-0").strip() == "node/node-0 kubelet stopped"
    kb.ok("advance", "1m")  # past node-monitor-grace-period: node lifecycle marks it Unknown
    assert _ready(_get(kb, "node", "node-0")) == "Unknown"
    assert kb.ok("node", "start-kubelet", "node-0").strip() == "node/node-0 kubelet started"
    assert _ready(_get(kb, "node", "node-0")) == "True"


def test_probe_fail_for_a_while_then_clear(kb: Any) -> None:
    kb.ok("nodes", "add")
    kb.ok("create", "-f", "-", input_=json.dumps(POD))
    kb.ok("advance", "5s")
    assert _ready(_get(kb, "pod", "web")) == "True"
    out = kb.ok("probe", "fail", "web", "--probe", "readiness", "--after", "1s", "--for", "1m")
    assert out.strip() == "pod/web readiness probe failing"
    kb.ok("advance", "40s")  # failures at 10, 20, 30 s: not ready
    assert _ready(_get(kb, "pod", "web")) == "False"
    events = _get(kb, "events")["items"]
    assert any(e["reason"] == "Unhealthy" and e["message"] == "Readiness probe failed: " for e in events)
    assert kb.ok("probe", "clear", "web").strip() == "pod/web probe faults cleared"
    kb.ok("advance", "10s")
    assert _ready(_get(kb, "pod", "web")) == "True"


def test_probe_fail_rejects_an_unknown_probe(kb: Any) -> None:
    res = kb("probe", "fail", "web", "--probe", "sideways")
    assert res.code == 1 and "--probe must be liveness, readiness or startup" in res.err
