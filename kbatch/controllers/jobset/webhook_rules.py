"""The JobSet webhook's defaulting and validation as pure functions (kubernetes-sigs/jobset v0.12.0
``pkg/webhooks/jobset_webhook.go``: ``Default``, ``ValidateCreate``, ``ValidateUpdate``).

Defaults (on create): ``successPolicy {operator: All}``, ``startupPolicy {startupPolicyOrder:
AnyOrder}``, each Job template ``completionMode: Indexed`` and pod ``restartPolicy: OnFailure``,
``network.enableDNSHostnames`` and ``network.publishNotReadyAddresses`` true, failure policy rules
named ``failurePolicyRule<i>``, ``retentionPolicy {whenDeleted: Delete}``.

Create checks, in upstream's order, with its messages: the InPlaceRestart strategy needs its gate;
no ``dependsOn`` on the first replicated job; the subdomain a DNS-1123 subdomain and DNS-1035 label;
``managedBy`` a domain-prefixed path of at most 63 characters; per replicated job: replicas x
parallelism within int32, the group name a DNS-1035 label, the longest Job name and (Indexed, with
completions) the longest pod name ``<jobset>-<rj>-<maxJob>-<maxPod>-abcde`` DNS-1035 labels,
``dependsOn`` naming an earlier replicated job, the in-place restart requirements; success policy
targets; the failure policy (RestartJob actions need their gate and replicas <= 1024, rule names 1-128
characters matching ``^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`` and unique, targets, Job failure
reasons); the coordinator (an existing replicated job, job and pod index in range, Indexed with
completions; its endpoint a valid label value); the volume claim policies (unique DNS-1123 names, the
claim name at most 63 characters, a matching volume mount and no conflicting volume, an existing
claim of that name only with the same spec and ``Retain``).

Update: ``replicatedJobs`` and ``managedBy`` immutable, except the pod templates' labels,
annotations, node selector, tolerations and scheduling gates while the JobSet is (or is being)
suspended, and (ElasticJobSet) parallelism and completions of Indexed templates.

Upstream reports its plain errors as ``field.InternalError(nil, err)``: ``<nil>: Internal error:
<message>``. Values Go prints with ``%#v`` (whole replicated jobs, a claim spec) are printed as JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from kbatch.api import jobset_constants as c
from kbatch.api.batch_v1 import JobTemplateSpec
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.errors import FieldError, FieldErrorType
from kbatch.api.jobset_v1alpha2 import (
    FailurePolicy,
    JobSet,
    Network,
    ReplicatedJob,
    StartupPolicy,
    SuccessPolicy,
    VolumeRetentionPolicy,
)
from kbatch.api.validation import (
    child,
    index,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    validate_domain_prefixed_path,
)
from kbatch.controllers.jobset.names import coordinator_endpoint, job_name, pod_name, pvc_name
from kbatch.controllers.jobset.views import Gates

__all__ = ["default_jobset_webhook", "internal", "validate_create", "validate_update"]

Errors = list[FieldError]
ClaimLookup = Callable[[str, str], PersistentVolumeClaim | None]  # (namespace, name) -> the claim

_TOO_LONG = "must be no more than 63 characters"
GROUP_NAME_TOO_LONG = ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"
JOB_NAME_TOO_LONG = "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
POD_NAME_TOO_LONG = "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
SUBDOMAIN_TOO_LONG = ".spec.network.subdomain is too long, must be less than 63 characters"
_RULE_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")


def _go(value: Any) -> Any:
    """A pointer value as Go's field errors print it: a nil one is the quoted string ``"null"``."""
    return "null" if value is None else value


def internal(message: str) -> FieldError:
    """``field.InternalError(nil, err)``: upstream's wrapping of its plain errors."""
    return FieldError(FieldErrorType.INTERNAL, "<nil>", message)


# --- defaulting ----------------------------------------------------------------------------------------
def _default_template(rjob: ReplicatedJob) -> None:
    template = rjob.template if rjob.template is not None else JobTemplateSpec()
    job_spec = template.spec
    if job_spec.completion_mode is None:
        job_spec.completion_mode = "Indexed"
    pod = job_spec.template
    if not pod.spec.restart_policy:
        pod.spec.restart_policy = "OnFailure"
    # Assigned back so that the nested objects count as written (Go's webhook patches them in).
    pod.spec = pod.spec
    job_spec.template = pod
    template.spec = job_spec
    rjob.template = template


def default_jobset_webhook(js: JobSet) -> None:
    """``Default``, in place."""
    spec = js.spec
    if spec.success_policy is None:
        spec.success_policy = SuccessPolicy(operator=c.OPERATOR_ALL)
    if spec.startup_policy is None:
        spec.startup_policy = StartupPolicy(startup_policy_order=c.ANY_ORDER)
    for rjob in spec.replicated_jobs or ():
        _default_template(rjob)
    if spec.network is None:
        spec.network = Network()
    if spec.network.enable_dns_hostnames is None:
        spec.network.enable_dns_hostnames = True
    if spec.network.publish_not_ready_addresses is None:
        spec.network.publish_not_ready_addresses = True
    for i, rule in enumerate(spec.failure_policy.rules or () if spec.failure_policy else ()):
        if not rule.name:
            rule.name = f"failurePolicyRule{i}"
    for policy in spec.volume_claim_policies or ():
        if policy.retention_policy is None:
            policy.retention_policy = VolumeRetentionPolicy(when_deleted=c.RETAIN_DELETE)


# --- create --------------------------------------------------------------------------------------------
def _dns1035(value: str, path: str, too_long: str, shown: str | None = None) -> Errors:
    return [FieldError.invalid(path, value if shown is None else shown, too_long if _TOO_LONG in m else m)
            for m in is_dns1035_label(value)]


def _in_place(rjob: ReplicatedJob, path: str) -> Errors:
    spec = rjob.template.spec if rjob.template else JobTemplateSpec().spec
    tpl = child(child(path, "template"), "spec")
    errs: Errors = []
    if spec.backoff_limit != c.MAX_INT32:
        errs.append(FieldError.invalid(child(tpl, "backoffLimit"), _go(spec.backoff_limit),
                                       f"replicatedJob {rjob.name}: must be set to {c.MAX_INT32} (MaxInt32) "
                                       "when in-place restart is enabled"))
    if spec.pod_replacement_policy != "Failed":
        errs.append(FieldError.invalid(child(tpl, "podReplacementPolicy"), _go(spec.pod_replacement_policy),
                                       f"replicatedJob {rjob.name}: must be set to Failed when in-place "
                                       "restart is enabled"))
    if spec.completions is None or spec.parallelism is None or spec.completions != spec.parallelism:
        errs.append(FieldError.invalid(child(tpl, "completions"), _go(spec.completions),
                                       f"replicatedJob {rjob.name}: completions and parallelism must be set "
                                       "and equal to each other when in-place restart is enabled"))
    return errs


def _replicated_job(js: JobSet, i: int, rjob: ReplicatedJob, names: set[str], gates: Gates) -> Errors:
    path = index("spec.replicatedJobs", i)
    spec = rjob.template.spec if rjob.template else JobTemplateSpec().spec
    replicas = rjob.replicas if rjob.replicas is not None else 1
    name = rjob.name or ""
    errs: Errors = []
    parallelism = spec.parallelism if spec.parallelism is not None else 1
    if parallelism * replicas > c.MAX_INT32:
        errs.append(internal(f"the product of replicas and parallelism must not exceed {c.MAX_INT32} for "
                             f"replicatedJob '{name}'"))
    errs += _dns1035(rjob.group_name or "", child(path, "groupName"), GROUP_NAME_TOO_LONG)
    longest_job = job_name(js.name, name, replicas - 1)
    errs += _dns1035(longest_job, child(path, "name"), JOB_NAME_TOO_LONG)
    if spec.completion_mode == "Indexed" and spec.completions is not None:
        longest_pod = pod_name(js.name, name, str(replicas - 1), str(spec.completions - 1)) + "-abcde"
        errs += _dns1035(longest_pod, child(path, "name"), POD_NAME_TOO_LONG, shown=longest_job)
    for dep in rjob.depends_on or ():
        if dep.name not in names:
            errs.append(internal(f"replicatedJob: {name} cannot depend on replicatedJob: {dep.name}"))
    fp = js.spec.failure_policy
    if gates.in_place_restart and fp is not None and fp.restart_strategy == c.IN_PLACE_RESTART:
        errs += _in_place(rjob, path)
    return errs


def _failure_policy(js: JobSet, fp: FailurePolicy, names: set[str], gates: Gates) -> Errors:
    rules = fp.rules or []
    errs: Errors = []
    if any(r.action in (c.RESTART_JOB, c.RESTART_JOB_IGNORE_MAX) for r in rules):
        if not gates.restart_job:
            return [internal("RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not "
                             "allowed when RestartJob feature gate is disabled")]
        if any((r.replicas if r.replicas is not None else 1) > c.MAX_REPLICAS_PER_REPLICATED_JOB
               for r in js.spec.replicated_jobs or ()):
            errs.append(internal("JobSet cannot have a failure policy rule with RestartJob or "
                                 "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > "
                                 f"{c.MAX_REPLICAS_PER_REPLICATED_JOB}"))
    by_name: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        rule_name = rule.name or ""
        size = len(rule_name.encode())  # Go's len: bytes
        if not 1 <= size <= 128:
            errs.append(internal(f"invalid failure policy rule name of length {size}, the rule "
                                 "name must be at least 1 characters long and at most 128 characters long"))
        by_name.setdefault(rule_name, []).append(i)
        if not _RULE_NAME.fullmatch(rule_name):  # Go's ``$``: the end of the text, never before a "\n"
            errs.append(internal(f"invalid failure policy rule name '{rule_name}', a failure policy rule "
                                 "name must start with an alphabetic character, optionally followed by a "
                                 "string of alphanumeric characters or '_,:', and must end with an "
                                 "alphanumeric character or '_'"))
        for target in rule.target_replicated_jobs or ():
            if target not in names:
                errs.append(internal(f"invalid replicatedJob name '{target}' in failure policy does not "
                                     "appear in .spec.ReplicatedJobs"))
        for reason in rule.on_job_failure_reasons or ():
            if reason not in c.JOB_FAILURE_REASONS:
                errs.append(internal(f"invalid job failure reason '{reason}' in failure policy is not a "
                                     "recognized job failure reason"))
    for rule_name, indices in sorted(by_name.items()):  # upstream walks a Go map: order unspecified
        if len(indices) > 1:
            errs.append(internal(f"rule names are not unique, rules with indices "
                                 f"[{' '.join(map(str, indices))}] all have the same name '{rule_name}'"))
    return errs


def _coordinator(js: JobSet) -> Errors:
    coord = js.spec.coordinator
    assert coord is not None
    rjob = next((r for r in js.spec.replicated_jobs or () if r.name == coord.replicated_job), None)
    errs: Errors = []
    job_index, pod_index = coord.job_index or 0, coord.pod_index or 0
    if rjob is None:
        errs.append(internal(f"coordinator replicatedJob {coord.replicated_job} does not exist"))
    else:
        spec = rjob.template.spec if rjob.template else JobTemplateSpec().spec
        replicas = rjob.replicas if rjob.replicas is not None else 1
        if not 0 <= job_index < replicas:
            errs.append(internal(f"coordinator job index {job_index} is invalid for replicatedJob "
                                 f"{rjob.name}"))
        elif spec.completion_mode != "Indexed" or spec.completions is None:
            errs.append(internal("job for coordinator pod must be indexed completion mode, and completions "
                                 "number must be set"))
        elif not 0 <= pod_index < spec.completions:
            errs.append(internal(f"coordinator pod index {pod_index} is invalid for replicatedJob "
                                 f"{coord.replicated_job} job index {job_index}"))
    network = js.spec.network
    subdomain = network.subdomain if network is not None and network.subdomain else js.name
    value = coordinator_endpoint(js.name, coord.replicated_job or "", job_index, pod_index, subdomain)
    problems = is_valid_label_value(value)
    if problems:
        errs.append(internal(f'spec will lead to invalid label value "{value}" for coordinator label '
                             f'"{c.COORDINATOR_KEY}" (long JobSet / ReplicatedJob / SubDomain name?): '
                             + ", ".join(problems)))
    return errs


def _mounts(rjob: ReplicatedJob) -> set[str]:
    spec = rjob.template.spec.template.spec if rjob.template else None
    if spec is None:
        return set()
    return {m.name for ct in (*(spec.init_containers or ()), *(spec.containers or ()))
            for m in ct.volume_mounts or ()}


def _claim_use(js: JobSet, claim: str) -> Errors:
    """``validateReplicatedJobsVolumeClaims``."""
    rjobs = js.spec.replicated_jobs or []
    errs: Errors = []
    for i, rjob in enumerate(rjobs):
        volumes = rjob.template.spec.template.spec.volumes if rjob.template else None
        for v, volume in enumerate(volumes or ()):
            if volume.name == claim:
                volumes_path = child(index("spec.replicatedJobs", i), "template.spec.template.spec.volumes")
                errs.append(FieldError.invalid(child(index(volumes_path, v), "name"), volume.name,
                                               f"volume name conflicts with VolumeClaimPolicy template name: "
                                               f"{claim}"))
    if not any(claim in _mounts(r) for r in rjobs):
        errs.append(FieldError.invalid("spec.replicatedJobs", [r.to_dict() for r in rjobs],
                                       f"replicatedJob containers don't have a matching volumeMount: {claim} "
                                       "from VolumeClaimPolicies"))
    return errs


def _claims(js: JobSet, lookup: ClaimLookup) -> Errors:
    errs: Errors = []
    seen: set[str] = set()
    for p, policy in enumerate(js.spec.volume_claim_policies or ()):
        path = index("spec.volumeClaimPolicies", p)
        for t, template in enumerate(policy.templates or ()):
            at = index(child(path, "template"), t)
            name = (template.metadata.name if template.metadata else None) or ""
            if name in seen:
                errs.append(FieldError.invalid(child(at, "name"), name,
                                               "names must be unique for VolumeClaimPolicies template"))
            errs += [FieldError.invalid(child(at, "name"), name, m) for m in is_dns1123_subdomain(name)]
            claim = pvc_name(js.name, name)
            if len(claim) > c.MAX_VOLUME_CLAIM_NAME_LENGTH:
                errs.append(FieldError.invalid(child(at, "name"), name,
                                               "VolumeClaimPolicies template name is too long"))
            errs += _claim_use(js, name)
            existing = lookup(js.namespace or "", claim)
            if existing is not None:
                if existing.spec != template.spec:
                    shown = template.spec.to_dict() if template.spec else None
                    errs.append(FieldError.invalid(child(at, "spec"), shown, f"spec does not match existing "
                                                   f"PVC {claim} in namespace {js.namespace}"))
                retention = policy.retention_policy
                if retention is not None and retention.when_deleted != c.RETAIN_RETAIN:
                    errs.append(FieldError.invalid(child(path, "retentionPolicy.whenDeleted"),
                                                   _go(retention.when_deleted),
                                                   "retentionPolicy must be retain when PVC exists"))
            seen.add(name)
    return errs


def _network_errors(js: JobSet) -> Errors:
    network = js.spec.network
    sub = network.subdomain if network is not None else None
    if not sub:
        return []
    path = "spec.network.subdomain"
    errs = [FieldError.invalid(path, sub, m) for m in is_dns1123_subdomain(sub)]
    return errs + _dns1035(sub, path, SUBDOMAIN_TOO_LONG)


def validate_create(js: JobSet, gates: Gates, lookup: ClaimLookup) -> Errors:
    """``ValidateCreate``: every error, in upstream's order."""
    spec = js.spec
    fp = spec.failure_policy
    errs: Errors = []
    if not gates.in_place_restart and fp is not None and fp.restart_strategy == c.IN_PLACE_RESTART:
        errs.append(internal("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate "
                             "is disabled"))
    rjobs = spec.replicated_jobs or []
    if rjobs and rjobs[0].depends_on is not None:
        errs.append(internal("DependsOn can't be set for the first ReplicatedJob"))
    errs += _network_errors(js)
    if spec.managed_by is not None:
        errs += validate_domain_prefixed_path(spec.managed_by, "spec.managedBy")
        if len(spec.managed_by) > c.MAX_MANAGED_BY_LENGTH:
            errs.append(FieldError.too_long("spec.managedBy", c.MAX_MANAGED_BY_LENGTH))
    names: set[str] = set()
    for i, rjob in enumerate(rjobs):
        names.add(rjob.name or "")
        errs += _replicated_job(js, i, rjob, names, gates)
    for target in (spec.success_policy.target_replicated_jobs or () if spec.success_policy else ()):
        if target not in names:
            errs.append(internal(f"invalid replicatedJob name '{target}' does not appear in "
                                 ".spec.ReplicatedJobs"))
    if fp is not None:
        errs += _failure_policy(js, fp, names, gates)
    if spec.coordinator is not None:
        errs += _coordinator(js)
    if spec.volume_claim_policies:
        errs += _claims(js, lookup)
    return errs


# --- update --------------------------------------------------------------------------------------------
def _prune(value: Any) -> Any:
    """Wire data with empty maps and lists dropped: ``equality.Semantic.DeepEqual`` holds a nil map or
    slice equal to an empty one (and Go always prints a struct such as a template's metadata)."""
    if isinstance(value, dict):
        pruned = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in pruned.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


def _at(obj: dict[str, Any], *path: str) -> dict[str, Any]:
    for key in path:
        obj = obj.setdefault(key, {})
    return obj


def _elastic(new: JobSet, old: JobSet, munged: list[dict[str, Any]],
             olds: dict[str, ReplicatedJob]) -> Errors:
    """ElasticJobSet: parallelism/completions of Indexed templates may change (not once finished)."""
    status = old.status
    terminal = status is not None and (status.is_true(c.COMPLETED) or status.is_true(c.FAILED))
    errs: Errors = []
    for i, rjob in enumerate(new.spec.replicated_jobs or ()):
        before = olds.get(rjob.name or "")
        if before is None or rjob.template is None or rjob.template.spec.completion_mode != "Indexed":
            continue
        spec, was = rjob.template.spec, before.template.spec if before.template else JobTemplateSpec().spec
        path = child(child(index("spec.replicatedJobs", i), "template"), "spec")
        p_changed, c_changed = spec.parallelism != was.parallelism, spec.completions != was.completions
        if p_changed or c_changed:
            if terminal:
                errs.append(FieldError.forbidden(path, "Cannot mutate parallelism or completions when JobSet "
                                                       "is in a terminal state (Completed or Failed)"))
            else:
                errs += _elastic_values(spec.parallelism, spec.completions, p_changed, c_changed, path)
        job_spec = _at(munged[i], "template", "spec")
        for key, value in (("parallelism", was.parallelism), ("completions", was.completions)):
            job_spec.pop(key, None)
            if value is not None:
                job_spec[key] = value
    return errs


def _elastic_values(parallelism: int | None, completions: int | None, p_changed: bool, c_changed: bool,
                    path: str) -> Errors:
    errs: Errors = []
    if p_changed and parallelism is not None and parallelism < 1:
        errs.append(FieldError.invalid(child(path, "parallelism"), parallelism, "parallelism must be >= 1"))
    if c_changed and completions is not None and completions < 1:
        errs.append(FieldError.invalid(child(path, "completions"), completions, "completions must be >= 1"))
    if parallelism is not None and completions is not None and parallelism != completions:
        errs.append(FieldError.invalid(child(path, "completions"), completions,
                                       "completions must be equal to parallelism for Elastic Indexed Jobs"))
    return errs


_KUEUE_MUTABLE = (("metadata", "labels"), ("metadata", "annotations"), ("spec", "nodeSelector"),
                  ("spec", "tolerations"), ("spec", "schedulingGates"))


def _mask_scheduling(new: JobSet, munged: list[dict[str, Any]], olds: dict[str, ReplicatedJob]) -> None:
    """While suspended (or being suspended): the pod template fields Kueue changes (labels,
    annotations, node selector, tolerations, scheduling gates) are taken from the old object."""
    for i, rjob in enumerate(new.spec.replicated_jobs or ()):
        before = olds.get(rjob.name or "")
        if before is None:
            continue
        old_pod = (before.template.to_dict() if before.template else {}).get("spec", {}).get("template", {})
        pod = _at(munged[i], "template", "spec", "template")
        for part, key in _KUEUE_MUTABLE:
            target = _at(pod, part)
            target.pop(key, None)
            value = (old_pod.get(part) or {}).get(key)
            if value is not None:
                target[key] = value


def validate_update(new: JobSet, old: JobSet, gates: Gates) -> Errors:
    """``ValidateUpdate``."""
    munged = [r.to_dict() for r in new.spec.replicated_jobs or ()]
    olds = {r.name or "": r for r in old.spec.replicated_jobs or ()}
    errs: Errors = []
    if gates.elastic:
        errs += _elastic(new, old, munged, olds)
    if old.spec.suspend or new.spec.suspend:
        _mask_scheduling(new, munged, olds)
    if _prune(munged) != _prune([r.to_dict() for r in old.spec.replicated_jobs or ()]):
        shown = [r.to_dict() for r in new.spec.replicated_jobs or ()]
        errs.append(FieldError.invalid("spec.replicatedJobs", shown, "field is immutable"))
    if new.spec.managed_by != old.spec.managed_by:
        errs.append(FieldError.invalid("spec.managedBy", new.spec.managed_by, "field is immutable"))
    return errs
