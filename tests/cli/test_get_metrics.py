"""``kbatch get nodes.metrics.k8s.io`` / ``pods.metrics.k8s.io`` as kubectl prints them from a cluster
running metrics-server: metrics-server's own table (sigs.k8s.io/metrics-server ``pkg/api/node.go``,
``pod.go`` ``addNodeMetricsToTable``/``addPodMetricsToTable``: NAME, the usage resources sorted, WINDOW;
a pod's usage summed over its containers). Before, kbatch said ``the server doesn't have a resource
type "nodes"``."""

from __future__ import annotations

import json

from tests.cli.conftest import Kbatch

POD = """
apiVersion: v1
kind: Pod
metadata:
  name: busy
  annotations: {kwok.x-k8s.io/usage-cpu: 250m, kwok.x-k8s.io/usage-memory: 64Mi}
spec:
  containers:
  - {name: a, image: registry.k8s.io/pause:3.10}
  - {name: b, image: registry.k8s.io/pause:3.10}
"""


def test_node_and_pod_metrics_tables(kb: Kbatch) -> None:
    kb.ok("nodes", "add", "--count", "2")
    assert kb.ok("get", "nodes.metrics.k8s.io").splitlines() == [
        "NAME     CPU   MEMORY   WINDOW", "node-0   0     0        15s", "node-1   0     0        15s"]
    empty = kb("get", "pods.metrics.k8s.io")
    assert empty.code == 0 and empty.out == ""
    assert empty.err.strip() == "No resources found in default namespace."
    kb.ok("apply", "-f", "-", input_=POD)
    kb.ok("advance", "2s")
    # the two containers' usage (the annotations give each running container that much), summed
    assert kb.ok("get", "pods.metrics.k8s.io").splitlines() == [
        "NAME   CPU    MEMORY   WINDOW", "busy   500m   128Mi    15s"]
    wide = kb.ok("get", "pods.v1beta1.metrics.k8s.io", "-A").splitlines()
    assert wide[0].split() == ["NAMESPACE", "NAME", "CPU", "MEMORY", "WINDOW"]
    assert wide[1].split()[:2] == ["default", "busy"]
    one = json.loads(kb.ok("get", "nodes.metrics.k8s.io", "node-0", "-o", "json"))
    assert one["kind"] == "NodeMetrics" and one["metadata"]["name"] == "node-0"
    assert kb.ok("get", "pods.metrics.k8s.io", "-o", "name").strip() == "podmetrics.metrics.k8s.io/busy"
    missing = kb("get", "pods.metrics.k8s.io", "nope")
    assert missing.code == 1 and "Traceback" not in missing.err
