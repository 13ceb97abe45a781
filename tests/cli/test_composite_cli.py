"""A CompositePodGroup through the CLI as a user runs it (docs/gang.md "CompositePodGroup"): each
command a separate ``python -m kbatch --state DIR`` process with the CompositePodGroup gate; a
composite of two PodGroups that fits binds whole, one that does not binds nothing, and ``get`` and
``describe`` read the composite's condition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cli.processes import kbatch_ok, kbatch_process

GATES = ("--feature-gates", "GenericWorkload=true,CompositePodGroup=true")


def _tree(root: str, groups: dict[str, int]) -> str:
    """A CompositePodGroup ``root`` (gang: every child) and, per child, a PodGroup of two pods
    asking for that many GPUs each."""
    docs = [f"""apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {{name: {root}}}
spec:
  workloadRef: {{workloadName: w, templateName: {root}}}
  schedulingPolicy: {{gang: {{minGroupCount: {len(groups)}}}}}
"""]
    for group, gpus in groups.items():
        docs.append(f"""apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {{name: {group}}}
spec:
  parentCompositePodGroupName: {root}
  workloadRef: {{workloadName: w, templateName: {group}}}
  schedulingPolicy: {{gang: {{minCount: 2}}}}
""")
        for i in range(2):
            docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: {group}-{i}}}
spec:
  restartPolicy: Never
  schedulingGroup: {{podGroupName: {group}}}
  containers: [{{name: c, image: busybox, command: [sh, -c, 'sleep 300'],
                resources: {{limits: {{nvidia.com/gpu: '{gpus}'}}}}}}]
""")
    return "---\n".join(docs)


def _nodes(state: Path) -> dict[str, str]:
    out = json.loads(kbatch_ok(state, *GATES, "get", "pods", "-o", "json"))
    return {p["metadata"]["name"]: p["spec"].get("nodeName", "") for p in out["items"]}


def test_a_composite_that_fits_and_one_that_does_not(tmp_path: Path) -> None:
    state = tmp_path / "state"
    kbatch_ok(state, *GATES, "nodes", "add", "--count", "2", "--gpu", "8")
    fits, too_big = tmp_path / "fits.yaml", tmp_path / "too-big.yaml"
    fits.write_text(_tree("train", {"workers": 4, "servers": 4}))
    too_big.write_text(_tree("huge", {"left": 4, "right": 16}))
    kbatch_ok(state, *GATES, "apply", "-f", str(fits))
    kbatch_ok(state, *GATES, "advance", "5s")
    nodes = _nodes(state)
    assert all(nodes[f"{g}-{i}"] for g in ("workers", "servers") for i in range(2)), nodes
    listed = kbatch_ok(state, *GATES, "get", "compositepodgroups")
    assert listed.split()[:4] == ["NAME", "AGE", "train", "5s"], listed
    kbatch_ok(state, *GATES, "advance", "400s")  # the first tree's pods finish and free the GPUs
    kbatch_ok(state, *GATES, "apply", "-f", str(too_big))
    kbatch_ok(state, *GATES, "advance", "5s")
    nodes = _nodes(state)
    assert [n for n in ("left-0", "left-1", "right-0", "right-1") if nodes[n]] == []
    page = kbatch_ok(state, *GATES, "describe", "compositepodgroup", "huge")
    assert "CompositePodGroupInitiallyScheduled" in page and "Unschedulable" in page, page
    got = json.loads(kbatch_ok(state, *GATES, "get", "compositepodgroup", "huge", "-o", "json"))
    condition = got["status"]["conditions"][0]
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == ("pod group is unschedulable, minCount (2) cannot be satisfied: "
                                    "1 scheduled, 0 remaining")


def test_without_the_gate_the_kind_is_not_served(tmp_path: Path) -> None:
    state = tmp_path / "state"
    manifest = tmp_path / "tree.yaml"
    manifest.write_text(_tree("train", {"workers": 1}).split("---\n")[0])
    out = kbatch_process(state, "--feature-gates", "GenericWorkload=true", "apply", "-f", str(manifest))
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert 'no matches for kind "CompositePodGroup" in version "scheduling.k8s.io/v1alpha3"' in out.stderr


DEPENDENCY = ("error: --feature-gates: CompositePodGroup is enabled, but depends on features that are "
              "disabled: [GenericWorkload]")


def _refused(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.strip().splitlines() == [DEPENDENCY], out.stderr


def test_the_gate_without_generic_workload_is_refused_on_every_path(tmp_path: Path) -> None:
    """component-base's dependency check (docs/gang.md "Feature gates"): the global flag, the
    environment variable and ``kbatch serve`` refuse it alike, before touching the state; a state
    that runs with both gates keeps running when a later command gives the incomplete set."""
    state = tmp_path / "state"
    _refused(kbatch_process(state, "--feature-gates", "CompositePodGroup=true", "get", "pods"))
    assert not state.exists() or not any(state.iterdir())
    env = {**os.environ, "KBATCH_FEATURE_GATES": "CompositePodGroup=true"}
    _refused(subprocess.run([sys.executable, "-m", "kbatch", "--state", str(state), "get", "pods"],
                            capture_output=True, text=True, timeout=60, env=env))
    _refused(subprocess.run([sys.executable, "-m", "kbatch", "serve", "--port", "0",
                             "--feature-gates", "GenericWorkload=false,CompositePodGroup=true"],
                            capture_output=True, text=True, timeout=60, env=dict(os.environ)))
    kbatch_ok(state, *GATES, "nodes", "add", "--count", "1", "--gpu", "8")
    _refused(kbatch_process(state, "--feature-gates", "CompositePodGroup=true", "get", "nodes"))
    assert "node-0" in kbatch_ok(state, *GATES, "get", "nodes")
