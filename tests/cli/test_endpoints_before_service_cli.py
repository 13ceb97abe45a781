"""Endpoints written by hand before their Service, as separate ``kbatch`` commands on one state
directory: the endpoint controller reacts to Endpoints deletes only and checks leftovers once, at its
start (kubernetes ``pkg/controller/endpoint/endpoints_controller.go`` ``onEndpointsDelete``,
``checkLeftoverEndpoints``), and each command continues the running control plane, so the Endpoints
survive every command until their selector-less Service comes; the endpointslice-mirroring
controller then mirrors them. docs/endpoints.md "The controllers"."""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok, kbatch_process

ENDPOINTS = """\
apiVersion: v1
kind: Endpoints
metadata: {name: ext}
subsets:
- addresses: [{ip: 192.0.2.10}]
  ports: [{name: http, port: 8080, protocol: TCP}]
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata: {name: ext}
spec:
  ports: [{name: http, port: 80, targetPort: 8080}]
"""


def _endpoints_row(state: Path) -> list[str]:
    got = kbatch_process(state, "get", "endpoints", "ext")
    assert got.returncode == 0, got.stderr
    return got.stdout.splitlines()[1].split()[:2]


def test_endpoints_applied_before_their_service_survive(tmp_path: Path) -> None:
    (tmp_path / "ep.yaml").write_text(ENDPOINTS)
    (tmp_path / "svc.yaml").write_text(SERVICE)
    kbatch_ok(tmp_path, "apply", "-f", str(tmp_path / "ep.yaml"))
    kbatch_ok(tmp_path, "advance", "1m")
    assert _endpoints_row(tmp_path) == ["ext", "192.0.2.10:8080"]
    kbatch_ok(tmp_path, "apply", "-f", str(tmp_path / "svc.yaml"))
    kbatch_ok(tmp_path, "advance", "5s")
    assert _endpoints_row(tmp_path) == ["ext", "192.0.2.10:8080"]
    slices = kbatch_ok(tmp_path, "get", "endpointslices", "-l", "kubernetes.io/service-name=ext")
    assert slices.splitlines()[1].split()[1:4] == ["IPv4", "8080", "192.0.2.10"]  # mirrored
    kbatch_ok(tmp_path, "delete", "service", "ext")  # syncService: the Service gone takes them
    kbatch_ok(tmp_path, "advance", "5s")
    assert kbatch_process(tmp_path, "get", "endpoints", "ext").returncode != 0


def test_a_restore_of_objects_only_starts_the_controller_afresh(tmp_path: Path) -> None:
    """An ``--objects-only`` snapshot restores objects, not the running controllers: they start over
    them, and ``checkLeftoverEndpoints`` deletes the Endpoints that still have no Service."""
    (tmp_path / "ep.yaml").write_text(ENDPOINTS)
    state, snapshot = tmp_path / "state", tmp_path / "objects.snap"
    kbatch_ok(state, "apply", "-f", str(tmp_path / "ep.yaml"))
    kbatch_ok(state, "snapshot", "save", str(snapshot), "--objects-only")
    assert _endpoints_row(state) == ["ext", "192.0.2.10:8080"]
    kbatch_ok(state, "snapshot", "restore", str(snapshot))  # the controllers start, and settle
    assert kbatch_process(state, "get", "endpoints", "ext").returncode != 0
