"""Property tests: random valid Job specs are accepted and round-trip; one random invalid change is
rejected at the right field path; changes to mutable fields are always allowed."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_indexes import format_indexes
from kbatch.api.batch_v1 import Job
from kbatch.api.strategies.batch import JobStrategy

STRATEGY = JobStrategy()
UID = "5e5e5e5e-0000-4000-8000-000000000005"


def _sorted_unique(low: int, high: int) -> st.SearchStrategy[list[int]]:
    return st.sets(st.integers(low, high), min_size=1, max_size=6).map(sorted)


@st.composite
def pfp_rule(draw: st.DrawFn, per_index: bool) -> dict[str, Any]:
    actions = ["Count", "FailJob", "Ignore"] + (["FailIndex"] if per_index else [])
    rule: dict[str, Any] = {"action": draw(st.sampled_from(actions))}
    if draw(st.booleans()):
        operator = draw(st.sampled_from(["In", "NotIn"]))
        values = draw(_sorted_unique(1 if operator == "In" else 0, 255))
        req: dict[str, Any] = {"operator": operator, "values": values}
        if draw(st.booleans()):
            req["containerName"] = "main"
        rule["onExitCodes"] = req
    else:
        types = st.sampled_from(["DisruptionTarget", "ConfigIssue", "example.com/Custom"])
        statuses = st.sampled_from(["True", "False", "Unknown", None])
        patterns = draw(st.lists(st.tuples(types, statuses), min_size=1, max_size=3))
        rule["onPodConditions"] = [{"type": t, **({"status": s} if s else {})} for t, s in patterns]
    return rule


@st.composite
def success_policy(draw: st.DrawFn, completions: int) -> dict[str, Any]:
    rules = []
    for _ in range(draw(st.integers(1, 3))):
        rule: dict[str, Any] = {}
        total = completions
        if draw(st.booleans()):
            indexes = draw(st.sets(st.integers(0, completions - 1), min_size=1))
            rule["succeededIndexes"] = format_indexes(indexes)
            total = len(indexes)
        if not rule or draw(st.booleans()):
            rule["succeededCount"] = draw(st.integers(0, total))
        rules.append(rule)
    return {"rules": rules}


@st.composite
def valid_spec(draw: st.DrawFn) -> dict[str, Any]:
    indexed = draw(st.booleans())
    spec: dict[str, Any] = {"parallelism": draw(st.integers(0, 40))}
    if indexed:
        spec["completionMode"] = "Indexed"
        spec["completions"] = draw(st.integers(0, 40))
    elif draw(st.booleans()):
        spec["completions"] = draw(st.integers(0, 40))
    per_index = indexed and draw(st.booleans())
    if per_index:
        spec["backoffLimitPerIndex"] = draw(st.integers(0, 5))
        if draw(st.booleans()):
            spec["maxFailedIndexes"] = draw(st.integers(0, spec["completions"]))
    for key, top in (
        ("backoffLimit", 10),
        ("activeDeadlineSeconds", 10**6),
        ("ttlSecondsAfterFinished", 10**5),
    ):
        if draw(st.booleans()):
            spec[key] = draw(st.integers(0, top))
    with_pfp = draw(st.booleans())
    if with_pfp:
        spec["podFailurePolicy"] = {"rules": draw(st.lists(pfp_rule(per_index), min_size=1, max_size=4))}
        spec["podReplacementPolicy"] = draw(st.sampled_from([None, "Failed"]))
    else:
        spec["podReplacementPolicy"] = draw(st.sampled_from([None, "Failed", "TerminatingOrFailed"]))
    if indexed and spec["completions"] > 0 and draw(st.booleans()):
        spec["successPolicy"] = draw(success_policy(spec["completions"]))
    spec["suspend"] = draw(st.sampled_from([None, True, False]))
    spec["managedBy"] = draw(st.sampled_from([None, "kubernetes.io/job-controller", "acme.io/batch"]))
    restart = "Never" if with_pfp else draw(st.sampled_from(["Never", "OnFailure"]))
    containers = [{"name": "main", "image": "busybox"}]
    spec["template"] = {"spec": {"restartPolicy": restart, "containers": containers}}
    return {k: v for k, v in spec.items() if v is not None}


def created(spec: dict[str, Any]) -> Job:
    job = Job.from_dict({"metadata": {"name": "prop", "uid": UID}, "spec": copy.deepcopy(spec)})
    STRATEGY.default(job)
    STRATEGY.prepare_for_create(job)
    return job


@settings(max_examples=150)
@given(valid_spec())
def test_valid_specs_are_accepted_and_round_trip(spec: dict[str, Any]) -> None:
    raw = Job.from_dict({"metadata": {"name": "prop"}, "spec": spec})
    assert raw.to_dict()["spec"] == spec
    job = created(spec)
    assert [str(e) for e in STRATEGY.validate(job)] == []
    assert Job.from_json(job.to_json()) == job


def _set(path: tuple[Any, ...], value: Any) -> Any:
    def apply(spec: dict[str, Any]) -> None:
        target = spec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return apply


MUTATIONS: list[tuple[str, Any, str]] = [
    ("negative parallelism", _set(("parallelism",), -3), "spec.parallelism"),
    ("negative backoffLimit", _set(("backoffLimit",), -1), "spec.backoffLimit"),
    ("negative deadline", _set(("activeDeadlineSeconds",), -5), "spec.activeDeadlineSeconds"),
    ("negative ttl", _set(("ttlSecondsAfterFinished",), -1), "spec.ttlSecondsAfterFinished"),
    ("bad completionMode", _set(("completionMode",), "Sometimes"), "spec.completionMode"),
    ("bad replacement", _set(("podReplacementPolicy",), "Never"), "spec.podReplacementPolicy"),
    ("bad managedBy", _set(("managedBy",), "nodomain"), "spec.managedBy"),
    (
        "restart Always",
        _set(("template", "spec", "restartPolicy"), "Always"),
        "spec.template.spec.restartPolicy",
    ),
    (
        "rule without requirement",
        _set(("podFailurePolicy",), {"rules": [{"action": "Ignore"}]}),
        "spec.podFailurePolicy.rules[0]",
    ),
    (
        "zero exit code with In",
        _set(
            ("podFailurePolicy",),
            {"rules": [{"action": "Count", "onExitCodes": {"operator": "In", "values": [0]}}]},
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.values[0]",
    ),
]


@settings(max_examples=150)
@given(valid_spec(), st.sampled_from(MUTATIONS))
def test_one_invalid_change_is_rejected_at_its_path(
    spec: dict[str, Any], mutation: tuple[str, Any, str]
) -> None:
    _, mutate, path = mutation
    mutate(spec)
    if path.startswith("spec.podFailurePolicy"):
        spec["template"]["spec"]["restartPolicy"] = "Never"
        spec.pop("podReplacementPolicy", None)
    fields = [e.field for e in STRATEGY.validate(created(spec))]
    assert path in fields


@settings(max_examples=100)
@given(
    valid_spec(),
    st.fixed_dictionaries(
        {},
        optional={
            "parallelism": st.integers(0, 50),
            "suspend": st.booleans(),
            "active_deadline_seconds": st.integers(1, 1000),
            "backoff_limit": st.integers(0, 20),
            "ttl_seconds_after_finished": st.integers(0, 100),
        },
    ),
)
def test_mutable_fields_can_always_change(spec: dict[str, Any], changes: dict[str, Any]) -> None:
    old = created(spec)
    new = old.clone()
    for key, value in changes.items():
        setattr(new.spec, key, value)
    assert [str(e) for e in STRATEGY.validate_update(new, old)] == []
