"""The strategic-merge list table generated from the Go types' ``patchStrategy``/``patchMergeKey``
tags (``tools/gen_strategic_keys.py``), and its use per kind: a list is merged on its key only where
the kind's own type tags it (k8s.io/api ``admissionregistration/v1/types.go``: a
ValidatingAdmissionPolicy's ``spec.variables`` merge on ``name``, a MutatingAdmissionPolicy's are
replaced; a policy's ``status.conditions`` carry no tag, a Pod's merge on ``type``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kbatch.api.admissionregistration_v1 import MutatingAdmissionPolicy, ValidatingAdmissionPolicy
from kbatch.api.base import ApiInfo
from kbatch.apiserver.strategic import MERGE_KEYS, MERGE_PRIMITIVES, apply_strategic_patch, roots

ROOT = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror")
VAP = ValidatingAdmissionPolicy.api_info
MAP = MutatingAdmissionPolicy.api_info


def _patch(info: ApiInfo, original: dict, patch: dict) -> dict:
    return apply_strategic_patch(original, patch, rooted=roots(info.api_version, info.kind))


def test_generated_table_matches_the_hand_checked_pairs() -> None:
    assert MERGE_KEYS[("containers", "env")] == "name"
    assert MERGE_KEYS[("spec", "ports")] == "port"            # Service: the only spec.ports
    assert MERGE_KEYS[("containers", "ports")] == "containerPort"
    assert MERGE_KEYS[("spec", "matchConditions")] == "name"  # admission policies
    assert MERGE_KEYS[("", "secrets")] == "name"              # ServiceAccount
    assert ("spec", "containerStatuses") not in MERGE_KEYS   # untagged: replaced
    assert {"finalizers", "podCIDRs"} <= MERGE_PRIMITIVES


def test_policy_conditions_are_replaced_pod_conditions_merged() -> None:
    live = {"status": {"conditions": [{"type": "A", "status": "True"}]}}
    patch = {"status": {"conditions": [{"type": "B", "status": "True"}]}}
    assert _patch(VAP, live, patch)["status"]["conditions"] == [{"type": "B", "status": "True"}]
    merged = apply_strategic_patch(live, patch)
    assert [c["type"] for c in merged["status"]["conditions"]] == ["B", "A"]


def test_variables_merge_for_validating_replace_for_mutating() -> None:
    live = {"spec": {"variables": [{"name": "a", "expression": "1"}]}}
    patch = {"spec": {"variables": [{"name": "b", "expression": "2"}]}}
    assert [v["name"] for v in _patch(VAP, live, patch)["spec"]["variables"]] == ["b", "a"]
    assert [v["name"] for v in _patch(MAP, live, patch)["spec"]["variables"]] == ["b"]


@pytest.mark.skipif(not all((MIRROR / name / "repo").exists()
                            for name in ("kubernetes+api", "kubernetes+apimachinery")),
                    reason="no k8s.io/api and k8s.io/apimachinery mirrors")
def test_generated_file_is_current() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_strategic_keys import OUT, generate
    finally:
        sys.path.pop(0)
    fresh = generate(MIRROR / "kubernetes+api" / "repo", MIRROR / "kubernetes+apimachinery" / "repo")
    stored = json.loads(OUT.read_text())
    if fresh["source"] != stored["source"]:
        pytest.skip("the mirror moved since the table was generated")
    assert fresh == stored
