"""DRA through the CLI, as separate commands over one state directory (the control plane is saved and
loaded between them): ``nodes add --gpu-driver`` publishes slices, a pod with a claim template runs,
``get``/``describe`` show claims, a bad driver template is a one-line error."""

from __future__ import annotations

from tests.cli.conftest import EXAMPLES, Kbatch


def test_gpu_driver_nodes_and_a_claim(kb: Kbatch) -> None:
    assert kb.ok(
        "nodes",
        "add",
        "--count",
        "2",
        "--gpu",
        "4",
        "--gpu-driver",
        "gpu.example.com",
        "--gpu-partitions",
        "1",
    ).splitlines() == ["node/node-0 created", "node/node-1 created"]
    slices = kb.ok("get", "resourceslices").splitlines()
    assert slices[0].split() == ["NAME", "NODE", "DRIVER", "POOL", "AGE"]
    assert [line.split()[0] for line in slices[1:]] == [
        "node-0-gpu-example-com",
        "node-0-gpu-example-com-counters",
        "node-1-gpu-example-com",
        "node-1-gpu-example-com-counters",
    ]
    kb.ok("apply", "-f", str(EXAMPLES / "dra" / "gpu-pod.yaml"))
    kb.ok("advance", "2s")
    claims = kb.ok("get", "resourceclaims").splitlines()
    assert claims[0].split() == ["NAME", "STATE", "AGE"]
    assert claims[1].split()[1] == "allocated,reserved" and claims[1].startswith("trainer-gpu-")
    assert "Running" in kb.ok("get", "pods")
    described = kb.ok("describe", "pod", "trainer")
    assert "Resource Claims:" in described and "template one-gpu -> trainer-gpu-" in described
    claim = kb.ok("describe", "resourceclaims")
    # kubectl's generic page (no describer for the kind): the allocation and reservation as fields
    assert "  Allocation:\n    Devices:\n      Results:\n" in claim
    assert "        Driver:   gpu.example.com\n" in claim
    assert "  Reserved For:\n    Name:      trainer\n    Resource:  pods\n" in claim


def test_a_bad_device_template_is_a_one_line_error(kb: Kbatch) -> None:
    res = kb("nodes", "add", "--gpu", "100", "--gpu-driver", "gpu.example.com")
    assert res.code != 0 and "--gpu must be 1..64" in res.err
    assert "Traceback" not in res.err
