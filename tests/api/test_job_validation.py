"""Job validation on create and update, with upstream's exact messages and field paths
(pkg/apis/batch/validation/validation.go; cases modelled on its validation_test.go)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from kbatch.api.batch_v1 import Job
from kbatch.api.strategies.batch import JobStrategy

UID = "1a2b3c4d-0000-4000-8000-000000000001"
STRATEGY = JobStrategy()
MANIFESTS = Path(__file__).parent / "manifests" / "batch"


def base_spec(**over: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox"}]}}
    }
    spec.update(over)
    return spec


def created(spec: dict[str, Any] | None = None, name: str = "myjob") -> Job:
    """A Job as the API server would validate it: defaulted, uid set, selector generated."""
    job = Job.from_dict(
        {"metadata": {"name": name, "namespace": "default", "uid": UID}, "spec": spec or base_spec()}
    )
    STRATEGY.default(job)
    STRATEGY.prepare_for_create(job)
    return job


def errors(job: Job) -> list[str]:
    return [str(e) for e in STRATEGY.validate(job)]


def indexed(**over: Any) -> dict[str, Any]:
    return base_spec(**{"completionMode": "Indexed", "completions": 3, "parallelism": 3, **over})


def pfp(*rules: dict[str, Any], **over: Any) -> dict[str, Any]:
    return base_spec(podFailurePolicy={"rules": list(rules)}, **over)


EXIT_42 = {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}
R0 = "spec.podFailurePolicy.rules[0]"


@pytest.mark.parametrize(
    "name",
    [
        "pi.yaml",
        "seed_indexed_sample_job.yaml",
        "seed_pod_failure_policy_tfjob.yaml",
        "seed_pod_failure_policy_notin.yaml",
        "pod_failure_policy_example.yaml",
        "backoff_limit_per_index.yaml",
        "success_policy.yaml",
    ],
)
def test_upstream_examples_are_valid(name: str) -> None:
    data = YAML(typ="safe").load((MANIFESTS / name).read_text())
    assert errors(created(data["spec"], data["metadata"]["name"])) == []


def test_seed_pi_slide_is_invalid_because_restart_policy_sits_in_the_container() -> None:
    data = YAML(typ="safe").load((MANIFESTS / "invalid_seed_pi_slide.yaml").read_text())
    got = errors(created(data["spec"], "pi"))
    assert 'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"' in got


CASES: list[tuple[str, dict[str, Any], str]] = [
    # --- counts ---------------------------------------------------------------------------------
    (
        "parallelism",
        base_spec(parallelism=-1),
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "completions",
        base_spec(completions=-1),
        "spec.completions: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "activeDeadlineSeconds",
        base_spec(activeDeadlineSeconds=-1),
        "spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "backoffLimit",
        base_spec(backoffLimit=-1),
        "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "ttl",
        base_spec(ttlSecondsAfterFinished=-1),
        "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0",
    ),
    (
        "backoffLimitPerIndex negative",
        indexed(backoffLimitPerIndex=-1),
        "spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0",
    ),
    # --- completion mode, per-index limits ------------------------------------------------------
    (
        "completionMode",
        base_spec(completionMode="Sometimes"),
        'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
    ),
    (
        "indexed needs completions",
        base_spec(completionMode="Indexed", parallelism=2),
        "spec.completions: Required value: when completion mode is Indexed",
    ),
    (
        "indexed parallelism",
        base_spec(completionMode="Indexed", completions=5, parallelism=100001),
        "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion "
        "mode is Indexed",
    ),
    (
        "bli needs indexed",
        base_spec(backoffLimitPerIndex=1),
        "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
    ),
    (
        "mfi needs indexed",
        base_spec(backoffLimitPerIndex=1, maxFailedIndexes=1),
        "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode",
    ),
    (
        "mfi needs bli",
        indexed(maxFailedIndexes=1),
        "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
    ),
    (
        "mfi above completions",
        indexed(backoffLimitPerIndex=1, maxFailedIndexes=4),
        "spec.maxFailedIndexes: Invalid value: 4: must be less than or equal to completions",
    ),
    (
        "mfi above limit",
        base_spec(
            completionMode="Indexed",
            completions=200000,
            parallelism=1,
            backoffLimitPerIndex=1,
            maxFailedIndexes=100001,
        ),
        "spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000",
    ),
    (
        "high completions need mfi",
        base_spec(completionMode="Indexed", completions=100001, parallelism=1, backoffLimitPerIndex=1),
        "spec.maxFailedIndexes: Required value: must be specified when completions is above 100000",
    ),
    (
        "high completions cap parallelism",
        base_spec(
            completionMode="Indexed",
            completions=100001,
            parallelism=10001,
            backoffLimitPerIndex=1,
            maxFailedIndexes=1,
        ),
        "spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when completions "
        "are above "
        "100000 and used with backoff limit per index",
    ),
    (
        "high completions cap mfi",
        base_spec(
            completionMode="Indexed",
            completions=100001,
            parallelism=1,
            backoffLimitPerIndex=1,
            maxFailedIndexes=10001,
        ),
        "spec.maxFailedIndexes: Invalid value: 10001: must be less than or equal to 10000 when "
        "completions are above "
        "100000 and used with backoff limit per index",
    ),
    # --- restart policy, replacement policy, managedBy -----------------------------------------
    (
        "restartPolicy Always",
        base_spec(
            template={"spec": {"restartPolicy": "Always", "containers": [{"name": "main", "image": "i"}]}}
        ),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ),
    (
        "restartPolicy unset",
        base_spec(template={"spec": {"containers": [{"name": "main", "image": "i"}]}}),
        'spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ),
    (
        "restartPolicy unknown",
        base_spec(
            template={"spec": {"restartPolicy": "Sometimes", "containers": [{"name": "main", "image": "i"}]}}
        ),
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: '
        '"OnFailure", "Never"',
    ),
    (
        "restartPolicy with pfp",
        pfp(
            EXIT_42,
            template={"spec": {"restartPolicy": "OnFailure", "containers": [{"name": "main", "image": "i"}]}},
        ),
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
        "podFailurePolicy is specified",
    ),
    (
        "podReplacementPolicy",
        base_spec(podReplacementPolicy="Sometimes"),
        'spec.podReplacementPolicy: Unsupported value: "Sometimes": supported values: "Failed", '
        '"TerminatingOrFailed"',
    ),
    (
        "podReplacementPolicy with pfp",
        pfp(EXIT_42, podReplacementPolicy="TerminatingOrFailed"),
        'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
    ),
    (
        "managedBy not a path",
        base_spec(managedBy="controller"),
        'spec.managedBy: Invalid value: "controller": must be a domain-prefixed path (such as "acme.io/foo")',
    ),
    (
        "managedBy too long",
        base_spec(managedBy="acme.io/" + "x" * 56),
        "spec.managedBy: Too long: may not be more than 63 bytes",
    ),
    # --- podFailurePolicy -----------------------------------------------------------------------
    (
        "too many rules",
        pfp(*[EXIT_42] * 21),
        "spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items",
    ),
    (
        "action required",
        pfp({"onExitCodes": {"operator": "In", "values": [1]}}),
        f'{R0}.action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
    ),
    (
        "action unknown",
        pfp({"action": "Retry", "onExitCodes": {"operator": "In", "values": [1]}}),
        f'{R0}.action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", '
        '"Ignore"',
    ),
    (
        "FailIndex needs bli",
        pfp({"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [1]}}),
        f'{R0}.action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
    ),
    (
        "both requirements",
        pfp(
            {
                "action": "Ignore",
                "onExitCodes": {"operator": "In", "values": [1]},
                "onPodConditions": [{"type": "A"}],
            }
        ),
        f"{R0}: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
    ),
    (
        "no requirement",
        pfp({"action": "Ignore"}),
        f"{R0}: Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
    ),
    (
        "operator required",
        pfp({"action": "Ignore", "onExitCodes": {"values": [1]}}),
        f'{R0}.onExitCodes.operator: Required value: valid values: ["In" "NotIn"]',
    ),
    (
        "operator unknown",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "Gt", "values": [1]}}),
        f'{R0}.onExitCodes.operator: Unsupported value: "Gt": supported values: "In", "NotIn"',
    ),
    (
        "container name",
        pfp(
            {"action": "Ignore", "onExitCodes": {"containerName": "sidecar", "operator": "In", "values": [1]}}
        ),
        f'{R0}.onExitCodes.containerName: Invalid value: "sidecar": must be one of the container or '
        'initContainer '
        "names in the pod template",
    ),
    (
        "values required",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "In", "values": []}}),
        f"{R0}.onExitCodes.values: Invalid value: []: at least one value is required",
    ),
    (
        "too many values",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": list(range(256))}}),
        f"{R0}.onExitCodes.values: Too many: 256: must have at most 255 items",
    ),
    (
        "zero with In",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "In", "values": [0, 1]}}),
        f"{R0}.onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator",
    ),
    (
        "duplicate value",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "In", "values": [1, 1]}}),
        f"{R0}.onExitCodes.values[1]: Duplicate value: 1",
    ),
    (
        "unordered values",
        pfp({"action": "Ignore", "onExitCodes": {"operator": "In", "values": [2, 1]}}),
        f"{R0}.onExitCodes.values: Invalid value: [2,1]: must be ordered",
    ),
    (
        "condition status",
        pfp({"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "Maybe"}]}),
        f'{R0}.onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", '
        '"Unknown"',
    ),
    (
        "too many patterns",
        pfp({"action": "Ignore", "onPodConditions": [{"type": "A"}] * 21}),
        f"{R0}.onPodConditions: Too many: 21: must have at most 20 items",
    ),
    # --- successPolicy --------------------------------------------------------------------------
    (
        "success policy needs indexed",
        base_spec(successPolicy={"rules": [{"succeededCount": 1}]}),
        'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed '
        'completion mode',
    ),
    (
        "success rules required",
        indexed(successPolicy={"rules": []}),
        "spec.successPolicy.rules: Required value: at least one rules must be specified when the "
        "successPolicy is specified",
    ),
    (
        "too many success rules",
        indexed(successPolicy={"rules": [{"succeededCount": 1}] * 21}),
        "spec.successPolicy.rules: Too many: 21: must have at most 20 items",
    ),
    (
        "empty success rule",
        indexed(successPolicy={"rules": [{}]}),
        "spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes "
        "must be specified",
    ),
    (
        "succeededIndexes order",
        indexed(successPolicy={"rules": [{"succeededIndexes": "1-0"}]}),
        'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1-0": error parsing succeededIndexes: '
        "non-increasing order, previous: 1, current: 0",
    ),
    (
        "succeededIndexes range",
        indexed(successPolicy={"rules": [{"succeededIndexes": "0,3"}]}),
        'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "0,3": error parsing succeededIndexes: '
        'too large index: "3"',
    ),
    (
        "succeededCount above completions",
        indexed(successPolicy={"rules": [{"succeededCount": 4}]}),
        "spec.successPolicy.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 "
        "(the number of specified completions)",
    ),
    (
        "succeededCount above indexes",
        indexed(successPolicy={"rules": [{"succeededIndexes": "0,1", "succeededCount": 3}]}),
        "spec.successPolicy.rules[0].succeededCount: Invalid value: 3: must be less than or equal to 2 "
        "(the number of indexes in the specified succeededIndexes field)",
    ),
    (
        "succeededCount negative",
        indexed(successPolicy={"rules": [{"succeededCount": -1}]}),
        "spec.successPolicy.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0",
    ),
    # --- selector -------------------------------------------------------------------------------
    ("manual selector required", base_spec(manualSelector=True), "spec.selector: Required value"),
    (
        "manual selector must match",
        base_spec(manualSelector=True, selector={"matchLabels": {"app": "a"}}),
        "spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`",
    ),
    (
        "selector operator",
        base_spec(manualSelector=True, selector={"matchExpressions": [{"key": "app", "operator": "Near"}]}),
        'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    ),
]


@pytest.mark.parametrize(("spec", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_spec(spec: dict[str, Any], want: str) -> None:
    got = errors(created(copy.deepcopy(spec)))
    assert want in got, got


def test_all_errors_are_reported_at_once() -> None:
    spec = base_spec(parallelism=-1, completions=-2, backoffLimit=-3, completionMode="Bad")
    got = errors(created(spec))
    assert got[:4] == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.completions: Invalid value: -2: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -3: must be greater than or equal to 0",
        'spec.completionMode: Unsupported value: "Bad": supported values: "NonIndexed", "Indexed"',
    ]


def test_generated_selector_checks() -> None:
    job = created()
    job.spec.template.metadata.labels["controller-uid"] = "other"  # type: ignore[union-attr,index]
    job.spec.selector.match_labels = {"batch.kubernetes.io/controller-uid": "other"}  # type: ignore[union-attr]
    got = errors(job)
    assert "spec.template.metadata.labels[controller-uid]: Invalid value: " in got[0] and got[0].endswith(
        f"must be '{UID}'"
    )
    assert any(
        e.startswith("spec.selector: Invalid value: ") and e.endswith("`selector` not auto-generated")
        for e in got
    )
    job.spec.template.metadata.labels.pop("batch.kubernetes.io/job-name")  # type: ignore[union-attr]
    assert (
        "spec.template.metadata.labels[batch.kubernetes.io/job-name]: Required value: must be 'myjob'"
        in errors(job)
    )
    job.metadata.uid = None
    assert "metadata.uid: Required value" in errors(job)


def test_indexed_hostnames_must_be_dns_labels() -> None:
    name = "a" * 62
    got = errors(created(indexed(completions=10, parallelism=1), name=name))
    assert (
        f'metadata.name: Invalid value: "{name}": will not able to create pod with invalid DNS label: '
        f'{name}-9'
        in got
    )
    assert errors(created(indexed(completions=10, parallelism=1), name="a" * 61)) == []


# --- update ---------------------------------------------------------------------------------------


def update(old: Job, **spec_changes: Any) -> list[str]:
    new = old.clone()
    for key, value in spec_changes.items():
        setattr(new.spec, key, value)
    return [str(e) for e in STRATEGY.validate_update(new, old)]


def test_mutable_fields() -> None:
    old = created(indexed(backoffLimitPerIndex=1, maxFailedIndexes=1))
    assert (
        update(
            old,
            parallelism=1,
            suspend=True,
            active_deadline_seconds=10,
            backoff_limit=1,
            max_failed_indexes=2,
            ttl_seconds_after_finished=5,
            pod_replacement_policy="Failed",
        )
        == []
    )


@pytest.mark.parametrize(
    ("field", "value", "want"),
    [
        ("completions", 5, "spec.completions: Invalid value: 5: field is immutable"),
        ("completion_mode", "Indexed", 'spec.completionMode: Invalid value: "Indexed": field is immutable'),
        ("managed_by", "acme.io/x", 'spec.managedBy: Invalid value: "acme.io/x": field is immutable'),
    ],
)
def test_immutable_fields(field: str, value: Any, want: str) -> None:
    assert want in update(created(), **{field: value})


def test_immutable_policies_and_selector() -> None:
    old = created(
        indexed(
            backoffLimitPerIndex=1,
            podFailurePolicy={"rules": [EXIT_42]},
            successPolicy={"rules": [{"succeededCount": 1}]},
        )
    )
    new = old.clone()
    new.spec.pod_failure_policy.rules[0].on_exit_codes.values = [43]  # type: ignore[union-attr]
    new.spec.success_policy.rules[0].succeeded_count = 2  # type: ignore[union-attr]
    new.spec.backoff_limit_per_index = 2
    new.spec.selector.match_labels["extra"] = "x"  # type: ignore[union-attr,index]
    got = [str(e) for e in STRATEGY.validate_update(new, old)]
    for field in ("podFailurePolicy", "successPolicy", "backoffLimitPerIndex", "selector"):
        assert any(
            e.startswith(f"spec.{field}: Invalid value: ") and e.endswith("field is immutable") for e in got
        ), field


def test_elastic_indexed_jobs() -> None:
    old = created(indexed())
    assert update(old, completions=5, parallelism=5) == []
    assert update(old, completions=1, parallelism=1) == []
    assert update(old, completions=5) == [
        "spec.completions: Invalid value: 5: can only be modified in tandem with spec.parallelism"
    ]


def test_template_is_immutable() -> None:
    old = created()
    new = old.clone()
    new.spec.template.spec.containers[0].image = "busybox:2"
    got = [str(e) for e in STRATEGY.validate_update(new, old)]
    assert (
        len(got) == 1
        and got[0].startswith("spec.template: Invalid value: ")
        and got[0].endswith("field is immutable")
    )


def _scheduling_update(old: Job) -> Job:
    new = old.clone()
    pod = new.spec.template.spec
    pod.node_selector = {"zone": "a"}
    new.spec.template.metadata.labels["queue"] = "q"  # type: ignore[union-attr,index]
    new.spec.template.metadata.annotations = {"note": "x"}  # type: ignore[union-attr]
    data = new.to_dict()
    data["spec"]["template"]["spec"]["tolerations"] = [{"key": "gpu", "operator": "Exists"}]
    data["spec"]["template"]["spec"]["schedulingGates"] = [{"name": "example.com/gate"}]
    data["spec"]["template"]["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}
                ]
            }
        }
    }
    return Job.from_dict(data)


def test_scheduling_directives_mutable_while_suspended_and_never_started() -> None:
    old = created(base_spec(suspend=True))
    assert STRATEGY.validate_update(_scheduling_update(old), old) == []
    changed_image = _scheduling_update(old)
    changed_image.spec.template.spec.containers[0].image = "other"
    assert [e.field for e in STRATEGY.validate_update(changed_image, old)] == ["spec.template"]


@pytest.mark.parametrize("started", [False, True])
def test_scheduling_directives_immutable_otherwise(started: bool) -> None:
    old = created(base_spec(suspend=started))
    if started:
        from kbatch.api.batch_v1 import JobStatus

        old.status = JobStatus(start_time="2024-01-01T00:00:00Z")
    assert [e.field for e in STRATEGY.validate_update(_scheduling_update(old), old)] == ["spec.template"]


def test_jobs_created_before_prefixed_labels_stay_updatable() -> None:
    old = created()
    for key in ("batch.kubernetes.io/job-name", "batch.kubernetes.io/controller-uid"):
        old.spec.template.metadata.labels.pop(key)  # type: ignore[union-attr]
    old.spec.selector.match_labels = {"controller-uid": UID}  # type: ignore[union-attr]
    assert update(old, parallelism=2) == []
    assert errors(old) != []  # a new Job must carry them


def test_spec_errors_are_not_repeated_on_update() -> None:
    got = update(created(), parallelism=-1)
    assert got == ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0"]
