"""``lifecycle.stopSignal`` through kubectl against ``kbatch serve`` (KEP-4960): with
ContainerStopSignals off (the default) the field is dropped on create; with it on, validation wants
``spec.os.name`` and a signal of that OS (:mod:`kbatch.api.strategies.core.stop_signal_validation`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from kbatch.server.process import ServeProcess
from tests.server.test_kubectl import kubectl, pytestmark  # noqa: F401  (skipped without kubectl)


def _pod(name: str, signal: str, os_name: str | None) -> str:
    os_line = f"\n  os: {{name: {os_name}}}" if os_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}}}
spec:{os_line}
  containers:
  - name: c
    image: busybox
    lifecycle: {{stopSignal: {signal}}}
"""


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    server = ServeProcess(tmp_path_factory.mktemp("serve-stop-signals"),
                          "--feature-gates", "ContainerStopSignals=true", globals_after=True).start()
    try:
        yield server
    finally:
        assert server.stop() == 0, "".join(server.output)


def test_gate_off_drops_the_field(served: Any) -> None:
    kubectl(served, "apply", "-f", "-", input_=_pod("dropped", "SIGUSR1", "linux"))
    pod = json.loads(kubectl(served, "get", "pod", "dropped", "-o", "json").stdout)
    assert "lifecycle" not in pod["spec"]["containers"][0]


_AT = 'The Pod "p" is invalid: spec.containers[0].lifecycle.stopSignal: '
CASES = [
    ("linux", "SIGUSR1", None),
    ("linux", "SIGRTMIN+3", None),
    ("windows", "SIGTERM", None),
    (None, "SIGUSR1", _AT + "Forbidden: may not be set for containers with empty `spec.os.name`"),
    ("windows", "SIGUSR1", _AT + 'Unsupported value: "SIGUSR1": supported values: "SIGKILL", "SIGTERM"'),
]


@pytest.mark.parametrize(("os_name", "signal", "error"), CASES)
def test_gate_on_validates_against_the_os(gated: Any, os_name: str | None, signal: str,
                                          error: str | None) -> None:
    out = kubectl(gated, "apply", "-f", "-", input_=_pod("p", signal, os_name), check=False)
    if error is None:
        assert out.returncode == 0, out.stderr
        pod = json.loads(kubectl(gated, "get", "pod", "p", "-o", "json").stdout)
        assert pod["spec"]["containers"][0]["lifecycle"] == {"stopSignal": signal}
        kubectl(gated, "delete", "pod", "p", "--wait=false")
    else:
        assert out.returncode == 1
        assert out.stderr.strip() == error  # kubectl prints an Invalid status as its message
