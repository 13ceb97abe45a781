"""Upstream's ``TestValidateJob`` table, through kbatch's API server.

Source: kubernetes/kubernetes ``pkg/apis/batch/validation/validation_test.go`` (the stored copy
read for this audit has managedBy, successPolicy and backoffLimitPerIndex and renders bad values
with Go's ``%#v``; kbatch renders them as apimachinery 0.37 does, as JSON, so the expected texts
below use that form). Each case goes to ``APIServer.create`` as a user's Job: defaulting
(``SetDefaults_Job``) and selector generation run first, so cases whose input upstream's table
builds by hand are sent in the shape that reaches the same check (noted per case). Upstream checks
``errs[0]``'s field and that its text contains the case name's message; so do these tests, on the
422's first ``status.details.causes`` entry.

Not translated (no user request reaches them): "metadata.uid: Required value" (the server
assigns the uid), "spec.template.metadata.labels[controller-uid]: Required value" and "do not
allow new batch labels" (``RequirePrefixedLabels`` is false only for Jobs created before 1.27).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.upstream_batch import first_error, job, rejected, server, template

NEVER = template("Never")
MANUAL = {"selector": {"matchLabels": {"a": "b"}}, "manualSelector": True}
INDEXED = {"completionMode": "Indexed"}


def _pfp(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"template": NEVER, "podFailurePolicy": {"rules": list(rules)}}


def _exit(op: str, values: list[int], action: str = "FailJob", **extra: Any) -> dict[str, Any]:
    return {"action": action, "onExitCodes": {"operator": op, "values": values, **extra}}


def _cond(type_: str = "DisruptionTarget", status: str = "True", action: str = "Ignore") -> dict[str, Any]:
    return {"action": action, "onPodConditions": [{"type": type_, "status": status}]}


def _sp(*rules: dict[str, Any], completions: int = 5) -> dict[str, Any]:
    return {**INDEXED, "completions": completions, "template": NEVER, "successPolicy": {"rules": list(rules)}}


SUCCESS: dict[str, dict[str, Any]] = {
    "valid success policy": {**INDEXED, "completions": 10, "template": NEVER, "successPolicy": {"rules": [
        {"succeededCount": 1, "succeededIndexes": "0,2,4"}, {"succeededIndexes": "1,3,5-9"}]}},
    "valid pod failure policy": _pfp(
        _cond(), _cond("CustomConditionType", "False", "FailJob"),
        _exit("In", [1, 2, 3], "Count", containerName="abc"), _exit("In", [4], "Ignore", containerName="def"),
        _exit("NotIn", [5, 6, 7])),
    # upstream sets manualSelector with the generated selector; a user must bring a matching one
    "valid pod failure policy with FailIndex": {
        **INDEXED, "completions": 2, "backoffLimitPerIndex": 1, **MANUAL,
        "template": template("Never", {"a": "b"}), "podFailurePolicy": {"rules": [
            {"action": "FailIndex", "onExitCodes": {"operator": "In", "values": [10]}}]}},
    "valid manual selector": {**MANUAL, "template": template(labels={"a": "b"})},
    "valid generated selector": {},
    "valid pod replacement": {"podReplacementPolicy": "TerminatingOrFailed"},
    "valid pod replacement with failed": {"podReplacementPolicy": "Failed"},
    "valid hostnet": {"template": template(hostNetwork=True, containers=[
        {"name": "abc", "image": "image", "ports": [{"containerPort": 12345, "protocol": "TCP"}]}])},
    "valid NonIndexed completion mode": {"completionMode": "NonIndexed"},
    "valid Indexed completion mode": {**INDEXED, "completions": 2, "parallelism": 100000},
    "valid parallelism and maxFailedIndexes for high completions when backoffLimitPerIndex is used": {
        **INDEXED, "completions": 100_000, "parallelism": 100_000, "maxFailedIndexes": 100_000,
        "backoffLimitPerIndex": 1},
    "valid parallelism and maxFailedIndexes for unlimited completions when backoffLimitPerIndex is used": {
        **INDEXED, "completions": 1_000_000_000, "parallelism": 10_000, "maxFailedIndexes": 10_000,
        "backoffLimitPerIndex": 1},
    "valid job tracking annotation": {},
    "valid batch labels": {},
    "valid managedBy field": {"managedBy": "example.com/foo"},
}


@pytest.mark.parametrize("spec", SUCCESS.values(), ids=SUCCESS.keys())
def test_success_cases_are_created(spec: dict[str, Any]) -> None:
    created = server().create(job(spec))
    assert created.metadata.uid


SP = "spec.successPolicy"
PFP = "spec.podFailurePolicy.rules"
R0 = f"{PFP}[0]"
REPEAT_21 = [{"succeededCount": 5}] * 21

# (upstream case name, spec sent, expected first error as ``field: message`` fragment)
ERRORS: list[tuple[str, dict[str, Any], str]] = [
    ("spec.managedBy: Too long", {"managedBy": "example.com/" + "x" * 60},
     "spec.managedBy: Too long: may not be more than 63 bytes"),
    ("spec.managedBy: Invalid value: must be a domain-prefixed path",
     {"managedBy": "invalid custom controller name"},
     'spec.managedBy: Invalid value: "invalid custom controller name": must be a domain-prefixed path '
     '(such as "acme.io/foo")'),
    ("spec.successPolicy: requires indexed completion mode",
     {"template": NEVER, "successPolicy": {"rules": []}},
     'spec.successPolicy: Invalid value: {"rules":[]}: requires indexed completion mode'),
    ("spec.successPolicy.rules: Required value", {**INDEXED, "completions": 5, "template": NEVER,
                                                  "successPolicy": {}},
     f"{SP}.rules: Required value: at least one rules must be specified when the successPolicy is specified"),
    ("spec.successPolicy.rules[0]: Required value", _sp({}),
     f"{SP}.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified"),
    ("spec.successPolicy.rules[0].succeededIndexes: Invalid value",
     _sp({"succeededIndexes": "invalid-format"}),
     f'{SP}.rules[0].succeededIndexes: Invalid value: "invalid-format": error parsing succeededIndexes: '
     'cannot convert string to integer for index: "invalid"'),
    ("spec.successPolicy.rules[0].succeededIndexes: Too long", _sp({"succeededIndexes": "1" * 65537}),
     f"{SP}.rules[0].succeededIndexes: Too long: may not be more than 65536 bytes"),
    ("spec.successPolicy.rules[0].succeededCount: must be greater than or equal to 0",
     _sp({"succeededCount": -1}),
     f"{SP}.rules[0].succeededCount: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.successPolicy.rules[0].succeededCount: Invalid value: 6", _sp({"succeededCount": 6}),
     f"{SP}.rules[0].succeededCount: Invalid value: 6: must be less than or equal to 5 "
     "(the number of specified completions)"),
    ("spec.successPolicy.rules[0].succeededCount: Invalid value: 4",
     _sp({"succeededCount": 4, "succeededIndexes": "0-2"}),
     f"{SP}.rules[0].succeededCount: Invalid value: 4: must be less than or equal to 3 "
     "(the number of indexes in the specified succeededIndexes field)"),
    ("spec.successPolicy.rules: Too many", _sp(*REPEAT_21),
     f"{SP}.rules: Too many: 21: must have at most 20 items"),
    ("spec.podFailurePolicy.rules[0]: specifying one of OnExitCodes and OnPodConditions is required",
     _pfp({"action": "FailJob"}),
     f"{R0}: Invalid value: specifying one of OnExitCodes and OnPodConditions is required"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 11", _pfp(_exit("In", [11, 11])),
     f"{R0}.onExitCodes.values[1]: Duplicate value: 11"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values: Too many", _pfp(_exit("In", list(range(256)))),
     f"{R0}.onExitCodes.values: Too many: 256: must have at most 255 items"),
    ("spec.podFailurePolicy.rules: Too many", _pfp(*[_exit("In", [i + 1]) for i in range(21)]),
     f"{PFP}: Too many: 21: must have at most 20 items"),
    ("spec.podFailurePolicy.rules[0].onPodConditions: Too many", _pfp(
        {"action": "FailJob", "onPodConditions": [{"type": f"CustomType_{i}", "status": "True"}
                                                  for i in range(21)]}),
     f"{R0}.onPodConditions: Too many: 21: must have at most 20 items"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 13",
     _pfp(_exit("In", [12, 13, 13, 13])), f"{R0}.onExitCodes.values[2]: Duplicate value: 13"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values: must be ordered", _pfp(_exit("In", [19, 11])),
     f"{R0}.onExitCodes.values: Invalid value: [19,11]: must be ordered"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values: at least one value is required",
     _pfp(_exit("In", [])),
     f"{R0}.onExitCodes.values: Invalid value: []: at least one value is required"),
    ("spec.podFailurePolicy.rules[0].action: Required value", _pfp(_exit("In", [1, 2, 3], "")),
     f'{R0}.action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]'),
    ("spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value", _pfp(_exit("", [1, 2, 3])),
     f'{R0}.onExitCodes.operator: Required value: valid values: ["In" "NotIn"]'),
    ("spec.podFailurePolicy.rules[0]: specifying both OnExitCodes and OnPodConditions is not supported",
     _pfp({**_exit("In", [1, 2, 3], containerName="abc"), "onPodConditions": [
         {"type": "DisruptionTarget", "status": "True"}]}),
     f"{R0}: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[1]: must not be 0 for the In operator",
     _pfp(_exit("In", [1, 0, 2], "Ignore")),
     f"{R0}.onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator"),
    ("spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value",
     _pfp(_exit("In", [1, 2, 3], "Ignore", containerName="abc"), _exit("In", [5, 6, 7], containerName="xyz")),
     f'{PFP}[1].onExitCodes.containerName: Invalid value: "xyz": must be one of the container or '
     "initContainer names in the pod template"),
    ("spec.podFailurePolicy.rules[0].action: Unsupported value", _pfp(
        _exit("In", [1, 2, 3], "UnknownAction", containerName="abc")),
     f'{R0}.action: Unsupported value: "UnknownAction": supported values: "Count", "FailIndex", "FailJob", '
     '"Ignore"'),
    ("spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value",
     _pfp(_exit("UnknownOperator", [1, 2, 3], "Ignore")),
     f'{R0}.onExitCodes.operator: Unsupported value: "UnknownOperator": supported values: "In", "NotIn"'),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value",
     _pfp(_cond(status="UnknownStatus")),
     f'{R0}.onPodConditions[0].status: Unsupported value: "UnknownStatus": supported values: "False", '
     '"True", "Unknown"'),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].type: name part must be non-empty",
     _pfp(_cond(type_="")), f'{R0}.onPodConditions[0].type: Invalid value: "": name part must be non-empty'),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].type: name part must consist of",
     _pfp(_cond(type_="Invalid Condition Type")),
     f'{R0}.onPodConditions[0].type: Invalid value: "Invalid Condition Type": name part must consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
     "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("spec.podReplacementPolicy: Unsupported value: TerminatingOrFailed",
     {**_pfp(_cond()), "podReplacementPolicy": "TerminatingOrFailed"},
     'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"'),
    ("spec.podReplacementPolicy: Unsupported value: empty", {"template": NEVER, "podReplacementPolicy": ""},
     'spec.podReplacementPolicy: Unsupported value: "": supported values: "Failed", "TerminatingOrFailed"'),
    ("spec.template.spec.restartPolicy: only Never is supported when podFailurePolicy is specified",
     {"podFailurePolicy": {"rules": []}},
     'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
     "podFailurePolicy is specified"),
    ("spec.parallelism:must be greater than or equal to 0", {"parallelism": -1},
     "spec.parallelism: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.backoffLimit:must be greater than or equal to 0", {"backoffLimit": -1},
     "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.backoffLimitPerIndex: requires indexed completion mode", {"backoffLimitPerIndex": 1},
     "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode"),
    ("spec.backoffLimitPerIndex:must be greater than or equal to 0", {**INDEXED, "backoffLimitPerIndex": -1},
     "spec.backoffLimitPerIndex: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.maxFailedIndexes: must be less than or equal to completions",
     {**INDEXED, "completions": 10, "maxFailedIndexes": 11, "backoffLimitPerIndex": 1},
     "spec.maxFailedIndexes: Invalid value: 11: must be less than or equal to completions"),
    ("spec.maxFailedIndexes: Required value: must be specified when completions is above 100000",
     {**INDEXED, "completions": 100_001, "backoffLimitPerIndex": 1},
     "spec.maxFailedIndexes: Required value: must be specified when completions is above 100000"),
    ("spec.parallelism: Invalid value: 50000",
     {**INDEXED, "completions": 100_001, "parallelism": 50_000, "backoffLimitPerIndex": 1,
      "maxFailedIndexes": 1},
     "spec.parallelism: Invalid value: 50000: must be less than or equal to 10000 when completions are "
     "above 100000 and used with backoff limit per index"),
    ("spec.maxFailedIndexes: Invalid value: 100001",
     {**INDEXED, "completions": 100_001, "backoffLimitPerIndex": 1, "maxFailedIndexes": 100_001},
     "spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000"),
    ("spec.maxFailedIndexes: Invalid value: 50000",
     {**INDEXED, "completions": 100_001, "backoffLimitPerIndex": 1, "maxFailedIndexes": 50_000},
     "spec.maxFailedIndexes: Invalid value: 50000: must be less than or equal to 10000 when completions are "
     "above 100000 and used with backoff limit per index"),
    ("spec.maxFailedIndexes:must be greater than or equal to 0",
     {**INDEXED, "backoffLimitPerIndex": 1, "maxFailedIndexes": -1},
     "spec.maxFailedIndexes: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
     {**INDEXED, "maxFailedIndexes": 1},
     "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"),
    ("spec.completions:must be greater than or equal to 0", {"completions": -1},
     "spec.completions: Invalid value: -1: must be greater than or equal to 0"),
    ("spec.activeDeadlineSeconds:must be greater than or equal to 0", {"activeDeadlineSeconds": -1},
     "spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0"),
    # upstream leaves the selector nil without manualSelector; through the API the server generates
    # one, so only a manual selector can be missing
    ("spec.selector:Required value", {"manualSelector": True, "template": template(labels={"a": "b"})},
     "spec.selector: Required value"),
    ("spec.template.metadata.labels: selector does not match template labels (y=z)",
     {**MANUAL, "template": template(labels={"y": "z"})},
     'spec.template.metadata.labels: Invalid value: {"y":"z"}: `selector` does not match template `labels`'),
    ("spec.template.metadata.labels: selector does not match template labels (controller-uid)",
     {**MANUAL, "template": template(labels={"controller-uid": "4d5e6f"})},
     'spec.template.metadata.labels: Invalid value: {"controller-uid":"4d5e6f"}: `selector` does not match '
     "template `labels`"),
    ("spec.template.spec.restartPolicy: Required value",
     {**MANUAL, "template": template("Always", {"a": "b"})},
     "spec.template.spec.restartPolicy: Required value"),
    ("spec.template.spec.restartPolicy: Unsupported value",
     {**MANUAL, "template": template("Invalid", {"a": "b"})},
     "spec.template.spec.restartPolicy: Unsupported value"),
    ("spec.ttlSecondsAfterFinished: must be greater than or equal to 0", {"ttlSecondsAfterFinished": -1},
     "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0"),
    # SetDefaults_Job would give completions 1 when parallelism is also unset
    ("spec.completions: Required value: when completion mode is Indexed", {**INDEXED, "parallelism": 2},
     "spec.completions: Required value: when completion mode is Indexed"),
    ("spec.parallelism: must be less than or equal to 100000 when completion mode is Indexed",
     {**INDEXED, "completions": 2, "parallelism": 100001},
     "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is "
     "Indexed"),
    # upstream hands ValidateJob a foreign selector; through the API generateSelector adds the
    # controller-uid requirement to the user's selector, which then still does not match
    ("spec.selector: `selector` not auto-generated", {"selector": {"matchLabels": {"a": "b"}}},
     "`selector` not auto-generated"),
]


@pytest.mark.parametrize(("spec", "want"), [(s, w) for _, s, w in ERRORS], ids=[n for n, _, _ in ERRORS])
def test_error_cases_are_rejected_with_the_first_cause(spec: dict[str, Any], want: str) -> None:
    causes = rejected(server().create, job(spec))
    got = first_error(causes)
    field = want.split(": ", 1)[0]
    if want == "`selector` not auto-generated":
        assert any(want in f"{f}: {m}" for f, _, m in causes), causes
        return
    assert got.startswith(field + ":") and want in got, causes


def test_a_pod_condition_pattern_without_status_is_defaulted_not_rejected() -> None:
    """ "spec.podFailurePolicy.rules[0].onPodConditions[0].status: Required value": through the API
    ``SetDefaults_PodFailurePolicyOnPodConditionsPattern`` fills status "True" first."""
    rule = {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}
    created = server().create(job(_pfp(rule)))
    assert created.spec.pod_failure_policy.rules[0].on_pod_conditions[0].status == "True"


# TestValidateIndexesString, through a success policy rule's succeededIndexes (upstream's
# validateIndexesFormat errors reach the user as "error parsing succeededIndexes: <err>")
ORDER = "non-increasing order, previous:"
INDEXES: dict[str, tuple[str, int, str | None]] = {
    "empty is valid": ("", 6, None),
    "single number is valid": ("1", 6, None),
    "single interval is valid": ("1-3", 6, None),
    "mixed intervals valid": ("0,1-3,5,7-10", 12, None),
    "invalid due to extra space": ("0,1-3, 5", 6, 'cannot convert string to integer for index: " 5"'),
    "invalid due to too large index": ("0,1-3,5", 5, 'too large index: "5"'),
    "invalid due to non-increasing order of intervals": ("1-3,0,5", 6, f"{ORDER} 3, current: 0"),
    "invalid due to non-increasing order between intervals": ("0,0,5", 6, f"{ORDER} 0, current: 0"),
    "invalid due to non-increasing order within interval": ("0,1-1,5", 6, f"{ORDER} 1, current: 1"),
    "invalid due to starting with '-'": ("-1,0", 6, 'cannot convert string to integer for index: ""'),
    "invalid due to ending with '-'": ("0,1-", 6, 'cannot convert string to integer for index: ""'),
    "invalid due to repeated '-'": ("0,1--3", 6, 'the fragment "1--3" violates the requirement that an index '
                                    "interval can have at most two parts separated by '-'"),
    "invalid due to repeated ','": ("0,,1,3", 6, 'cannot convert string to integer for index: ""'),
}


@pytest.mark.parametrize(("text", "completions", "want"), INDEXES.values(), ids=INDEXES.keys())
def test_validate_indexes_string(text: str, completions: int, want: str | None) -> None:
    spec = _sp({"succeededIndexes": text}, completions=completions)
    if want is None:
        server().create(job(spec))
        return
    causes = rejected(server().create, job(spec))
    assert first_error(causes) == (f"{SP}.rules[0].succeededIndexes: Invalid value: {text!r}: "
                                   f"error parsing succeededIndexes: {want}").replace(repr(text), f'"{text}"')


def test_an_unknown_restart_policy_is_reported_by_the_pod_rule_and_the_job_rule() -> None:
    """Not a duplicate to fold: 1.37 ``validateJobSpec`` appends ``ValidatePodTemplateSpec``'s errors
    (``ValidatePodSpec`` → ``validateRestartPolicy``: NotSupported, Always/OnFailure/Never) and then
    its own rule (NotSupported, OnFailure/Never) for the same field
    (pkg/apis/batch/validation/validation.go, pkg/apis/core/validation/validation.go)."""
    causes = rejected(server().create, job({**MANUAL, "template": template("Sometimes", {"a": "b"})}))
    path = "spec.template.spec.restartPolicy"
    assert [(f, m) for f, _, m in causes if f == path] == [
        (path, 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'),
        (path, 'Unsupported value: "Sometimes": supported values: "OnFailure", "Never"'),
    ]
