"""KWOK-style stage rules (docs/simulation.md, "Stage rules")."""

from __future__ import annotations

import random

import pytest

from kbatch.sim.stages import evaluate, load_stages, pick_stage

POD = {
    "metadata": {"name": "p", "labels": {"app": "flaky"}, "annotations": {"delay": "90s"}},
    "spec": {"containers": [{"name": "main", "image": "busybox", "args": ["sleep", "60"]}]},
}

STAGES = """
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: from-args}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchLabels: {app: flaky}
    matchExpressions:
    - {key: '.spec.containers[0].image', operator: In, values: [busybox]}
  delay:
    durationFrom: {expressionFrom: '.spec.containers[0].args[1]'}
  next: {phase: Failed}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata: {name: jitter}
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchAnnotations: {tier: batch}
  delay: {durationMilliseconds: 10000, jitterDurationMilliseconds: 15000}
  next: {exitCode: 0}
"""


def test_expressions_read_fields_indexes_and_keys() -> None:
    assert evaluate(".spec.containers[0].args[1]", POD) == "60"
    assert evaluate('.metadata.annotations["delay"]', POD) == "90s"
    assert evaluate(".spec.containers[3].name", POD) is None
    with pytest.raises(ValueError, match="unsupported expression"):
        evaluate(".spec | select(.x)", POD)


def test_duration_from_a_field_and_next_phase() -> None:
    rules = load_stages(STAGES)
    rule = pick_stage(rules, POD, random.Random(0))
    assert rule is not None and rule.name == "from-args"
    run = rule.run(POD, random.Random(0))
    assert (run.duration, run.exit_code) == (60.0, 1)


def test_jitter_is_uniform_between_duration_and_jitter_and_seeded() -> None:
    rule = load_stages(STAGES)[1]
    pod = {"metadata": {"annotations": {"tier": "batch"}}}
    assert rule.matches(pod) and not load_stages(STAGES)[0].matches(pod)
    draws = [rule.run(pod, random.Random(seed)).duration for seed in range(20)]
    assert all(10.0 <= d <= 15.0 for d in draws) and len(set(draws)) > 1
    assert rule.run(pod, random.Random(3)) == rule.run(pod, random.Random(3))


def test_only_pod_stages_are_accepted() -> None:
    with pytest.raises(ValueError, match="apply to Pods"):
        load_stages("kind: Stage\nspec: {resourceRef: {kind: Node}}\n")
