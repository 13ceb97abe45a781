"""``--controllers`` / ``KBATCH_CONTROLLERS`` at the command line: every form of the selection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kbatch.families import BUILTIN_FAMILIES

from .processes import kbatch_ok

# core and batch: kube-controller-manager's defaults that kbatch has, kube-scheduler and the kubelet
CORE = {"garbage-collector", "ttl-after-finished", "job", "cronjob", "podgc", "node-lifecycle",
        "taint-eviction-controller", "scheduler", "kubelet", "disruption", "resourcequota", "namespace",
        "ephemeral-volume", "serviceaccount", "root-ca-cert-publisher", "serviceaccount-token",
        "endpointslice", "endpoint", "endpointslicemirroring"}
# every further family's controllers that are on by default (resourceclaim, ...)
ALL = CORE | {spec.name for family in BUILTIN_FAMILIES if family.name not in ("core", "batch")
              for spec in family.controllers if spec.enabled_by_default}


def _enabled(kb: Any, *selection: str) -> set[str]:
    lines = kb.ok(*selection, "controllers").splitlines()
    # the gates in force, then Kueue's configuration, close the list
    assert lines[-2].startswith("feature gates: ") and lines[-1].startswith("kueue configuration: ")
    rows = [line.split() for line in lines[1:-2]]
    return {row[0] for row in rows if row[2] == "yes"}


@pytest.mark.parametrize(("selection", "expected"), [
    ("*", ALL),
    ("job", {"job"}),
    ("-job", set()),  # upstream: without '*', disabling one enables nothing else
    ("*,-podgc", ALL - {"podgc"}),
    ("-podgc,*", ALL - {"podgc"}),  # '-name' wins wherever it appears
    ("job,garbage-collector", {"job", "garbage-collector"}),
    ("job-controller", {"job"}),  # upstream's canonical name
    ("*,-pod-garbage-collector-controller", ALL - {"podgc"}),
    (" job , scheduler ", {"job", "scheduler"}),
])
def test_each_selection_form(kb: Any, monkeypatch: pytest.MonkeyPatch, selection: str, expected: set[str]
                             ) -> None:
    assert _enabled(kb, "--controllers", selection) == expected
    monkeypatch.setenv("KBATCH_CONTROLLERS", selection)
    assert _enabled(kb) == expected


def test_default_selection_is_star(kb: Any) -> None:
    assert _enabled(kb) == ALL


@pytest.mark.parametrize("how", ["flag", "env"])
def test_unknown_controller_is_one_line_listing_the_known_ones(kb: Any, monkeypatch: pytest.MonkeyPatch,
                                                              how: str) -> None:
    if how == "env":
        monkeypatch.setenv("KBATCH_CONTROLLERS", "*,-nonsense")
        res = kb("get", "pods")
    else:
        res = kb("--controllers", "job,nonsense", "get", "pods")
    assert res.code == 1 and res.out == ""
    lines = res.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.err
    assert "'nonsense'" in lines[0] and "known controllers:" in lines[0]
    assert all(name in lines[0] for name in ALL)
    assert not kb.state.exists()  # refused before anything was loaded or saved


def _orphan_pod_after(kb: Any, selection: str) -> bool:
    """A running pod whose node is deleted: does it still exist two virtual minutes later?"""
    kb.ok("--controllers", selection, "nodes", "add")
    kb.ok("--controllers", selection, "create", "-f", "-", input_=json.dumps({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "9999"]}]}}))
    kb.ok("--controllers", selection, "delete", "node", "node-0")
    kb.ok("--controllers", selection, "advance", "2m")
    return kb("--controllers", selection, "get", "pod", "p").code == 0


def test_disabling_podgc_keeps_orphaned_pods(kb: Any) -> None:
    assert _orphan_pod_after(kb, "*,-podgc")


def test_podgc_on_by_default_deletes_orphaned_pods(kb: Any) -> None:
    assert not _orphan_pod_after(kb, "*")


def test_canonical_name_runs_that_controller_alone(kb: Any) -> None:
    kb.ok("--controllers", "job-controller", "nodes", "add")
    kb.ok("--controllers", "job-controller", "create", "-f", "-", input_=json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
                                       "containers": [{"name": "c", "image": "i"}]}}}}))
    pods = json.loads(kb.ok("--controllers", "job-controller", "get", "pods", "-o", "json"))["items"]
    assert len(pods) == 1 and not pods[0]["spec"].get("nodeName")  # created by job, never scheduled


def test_an_empty_selection_runs_no_controller(tmp_path: Path) -> None:
    """``--controllers ''``, through separate processes: pflag reads it as an empty list, which
    kube-controller-manager accepts and under which ``IsControllerEnabled`` enables nothing (no
    ``*``). The selection is recorded like any other; ``KBATCH_CONTROLLERS=''`` is unset (click)."""
    state = tmp_path / "state"
    listing = kbatch_ok(state, "--controllers", "", "controllers").splitlines()
    assert {row.split()[2] for row in listing[1:-2]} == {"no"}
    kbatch_ok(state, "--controllers", "", "nodes", "add")
    kbatch_ok(state, "--controllers", "", "create", "job", "j", "--image", "busybox", "--", "sleep", "5")
    kbatch_ok(state, "advance", "1m")  # the recorded selection goes on: no Job controller, no pod
    assert kbatch_ok(state, "get", "pods", "-o", "name") == ""
    unset = subprocess.run([sys.executable, "-m", "kbatch", "--state", str(state), "controllers"],
                           capture_output=True, text=True, timeout=180,
                           env={**os.environ, "KBATCH_CONTROLLERS": ""})
    assert unset.returncode == 0 and {row.split()[2] for row in unset.stdout.splitlines()[1:-2]} >= {"yes"}
