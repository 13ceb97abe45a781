"""``kbatch delete --wait``: return once the objects are gone, as kubectl delete does by default.

Upstream: kubectl ``pkg/cmd/delete/delete.go`` ``RunDelete``: with ``--wait`` every accepted delete is
then waited for (``cmdwait.IsDeleted``, nothing printed) within one ``--timeout`` (0: a week); a
timeout is kubectl wait's error. kbatch's virtual time only moves when a command moves it, so the
wait jumps it (a running pod's termination grace period passes: 30 s for ``sleep``, which as PID 1
ignores SIGTERM and is killed); without ``--wait`` kbatch returns once the delete is accepted
(kubectl's ``--wait=false``), the default here (docs/cli.md says why).
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def running_pod(kb: Any) -> str:
    kb.ok("nodes", "add", "--count", "1")
    kb.ok("create", "job", "j", "--image=busybox", "--", "sleep", "3600")
    kb.ok("advance", "5s")
    pods = kb.ok("get", "pods", "-o", "name").split()
    assert len(pods) == 1
    return pods[0]


def _now(kb: Any) -> str:
    return kb.ok("advance", "0s").strip().rsplit(" ", 1)[-1]


def test_delete_waits_out_the_grace_period(kb: Any, running_pod: str) -> None:
    res = kb("delete", running_pod, "--wait")
    assert (res.code, res.err) == (0, "")
    assert res.out.strip() == f'pod "{running_pod.split("/")[1]}" deleted'
    assert _now(kb) == "2025-01-01T00:00:35Z"  # 5 s, then the 30 s grace period
    assert running_pod not in kb.ok("get", "pods", "-o", "name").split()


def test_a_short_timeout_is_kubectl_waits_error(kb: Any, running_pod: str) -> None:
    res = kb("delete", running_pod, "--wait", "--timeout", "3s")
    name = running_pod.split("/")[1]
    assert res.code == 1
    assert res.err.strip() == f"error: timed out waiting for the condition on pods/{name}"
    assert _now(kb) == "2025-01-01T00:00:08Z"
    assert "Terminating" in kb.ok("get", "pods")


def test_without_wait_the_delete_returns_at_once(kb: Any, running_pod: str) -> None:
    kb.ok("delete", running_pod)
    assert _now(kb) == "2025-01-01T00:00:05Z"
    assert "Terminating" in kb.ok("get", "pods")


def test_a_dry_run_does_not_wait(kb: Any, running_pod: str) -> None:
    res = kb("delete", running_pod, "--wait", "--dry-run=server")
    assert res.code == 0 and "(server dry run)" in res.out
    assert _now(kb) == "2025-01-01T00:00:05Z"
    assert "Running" in kb.ok("get", "pods")


def test_an_object_without_finalizers_is_gone_at_once(kb: Any) -> None:
    kb.ok("create", "namespace", "team")
    kb.ok("create", "configmap", "c", "-n", "team", "--from-literal=a=b")
    assert kb("delete", "configmap", "c", "-n", "team", "--wait").code == 0
    assert _now(kb) == "2025-01-01T00:00:00Z"
