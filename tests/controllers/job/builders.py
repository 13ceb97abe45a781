"""Builders for JobInfo values used by the core tests."""

from __future__ import annotations

from kbatch.controllers.job import ExitCodesRule, JobInfo, PodFailurePolicyRule

TEMPLATE = {
    "metadata": {"labels": {"batch.kubernetes.io/job-name": "pi", "job-name": "pi",
                            "batch.kubernetes.io/controller-uid": "job-uid",
                            "controller-uid": "job-uid"}},
    "spec": {"restartPolicy": "Never", "subdomain": "svc",
             "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"]}]},
}


def make_job(**kw) -> JobInfo:
    kw.setdefault("name", "pi")
    kw.setdefault("namespace", "default")
    kw.setdefault("uid", "job-uid")
    kw.setdefault("template", TEMPLATE)
    if kw.get("indexed"):
        kw.setdefault("completion_mode", "Indexed")
    if kw.get("backoff_limit_per_index") is not None:
        kw.setdefault("backoff_limit", 2**31 - 1)
    if "pod_replacement_policy" not in kw:
        kw["pod_replacement_policy"] = "Failed" if kw.get("pod_failure_policy") else "TerminatingOrFailed"
    return JobInfo(**kw)


def exit_rule(action: str, op: str, values, container: str | None = None) -> PodFailurePolicyRule:
    return PodFailurePolicyRule(action, on_exit_codes=ExitCodesRule(op, tuple(values), container))


def cond_rule(action: str, *types: str) -> PodFailurePolicyRule:
    return PodFailurePolicyRule(action, on_pod_conditions=tuple((t, "True") for t in types))


# Seed 003 (KubeCon EU 2023, "Pod failure policy (example)"), verbatim rules.
SEED_003_POLICY = (
    cond_rule("FailJob", "ConfigIssue"),
    cond_rule("Ignore", "DisruptionTarget"),
    exit_rule("FailJob", "In", [1, 2, 126, 127, 128, 139]),
    exit_rule("Ignore", "In", [130, 137, 138, 147]),
)
# Seed 003, the embarrassingly-parallel example: Count disruptions, FailJob on any non-zero code.
SEED_003_COUNT_POLICY = (cond_rule("Count", "DisruptionTarget"), exit_rule("FailJob", "NotIn", [0]))
# Seed 004 (KubeCon NA 2023): FailJob unless the exit code is 40-42, Ignore disruptions.
SEED_004_POLICY = (exit_rule("FailJob", "NotIn", [40, 41, 42]), cond_rule("Ignore", "DisruptionTarget"))
