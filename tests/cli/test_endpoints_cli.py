"""``kbatch get endpointslices`` and ``kbatch get endpoints`` as a user types them, each command its own
process on one state directory: an Indexed Job's pods behind the headless Service of
``examples/indexed-job-with-service.yaml`` (no ports: the slice shows ``<unset>``, the Endpoints bare
addresses), the API server's own ``kubernetes`` endpoints, the deprecation warning kubectl prints for
v1 Endpoints, and what is left when the workers finish (kubectl's ``printEndpointSlice``,
``printEndpoints``; docs/simulation.md "Endpoints and EndpointSlices")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.processes import kbatch_ok, kbatch_process

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "indexed-job-with-service.yaml"
WARNING = "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n"


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


def test_a_jobs_pods_behind_a_headless_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KBATCH_CONTROLLERS", "*,node-ipam-controller")  # pod addresses are off by default
    kbatch_ok(tmp_path, "nodes", "add", "--count", "2")
    kbatch_ok(tmp_path, "apply", "-f", str(EXAMPLE))
    kbatch_ok(tmp_path, "advance", "5s")
    slices = _rows(kbatch_ok(tmp_path, "get", "endpointslices"))
    assert slices[0] == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert slices[1] == ["kubernetes", "IPv4", "6443", "172.18.0.1", "5s"]
    assert slices[2][0].startswith("mysvc-") and len(slices[2][0]) == len("mysvc-") + 5
    assert slices[2][1:] == ["IPv4", "<unset>", "10.244.0.2,10.244.1.2,10.244.1.3", "5s"]
    got = kbatch_process(tmp_path, "get", "endpoints")
    assert got.returncode == 0 and got.stderr == WARNING
    assert _rows(got.stdout) == [["NAME", "ENDPOINTS", "AGE"], ["kubernetes", "172.18.0.1:6443", "5s"],
                                 ["mysvc", "10.244.0.2,10.244.1.2,10.244.1.3", "5s"]]
    selected = _rows(kbatch_ok(tmp_path, "get", "endpointslices", "-l", "kubernetes.io/service-name=mysvc",
                               "-o", "name"))
    assert selected == [[f"endpointslice.discovery.k8s.io/{slices[2][0]}"]]
    page = kbatch_ok(tmp_path, "describe", "endpointslice", slices[2][0])
    assert ("Ports: <unset>\nEndpoints:\n  - Addresses:  10.244.0.2\n    Conditions:\n"
            "      Ready:    true\n") in page
    assert "    Hostname:   myjob-0\n    TargetRef:  Pod/myjob-0-" in page
    kbatch_ok(tmp_path, "advance", "30s")  # the workers finish: their addresses leave
    done = _rows(kbatch_ok(tmp_path, "get", "endpointslices", "-l", "kubernetes.io/service-name=mysvc"))
    assert done[1][1:4] == ["IPv4", "<unset>", "<unset>"]
    emptied = json.loads(kbatch_ok(tmp_path, "get", "endpointslice", done[1][0], "-o", "json"))
    assert (emptied["endpoints"], emptied["ports"]) == (None, None)  # Go's nil slices, as kubectl shows them
    assert _rows(kbatch_process(tmp_path, "get", "endpoints", "mysvc").stdout)[1][:2] == ["mysvc", "<none>"]
