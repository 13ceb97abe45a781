"""Kueue's job webhooks, as an admission plugin (``KueueJobWebhooks``).

Upstream: kubernetes-sigs/kueue ``pkg/controller/jobframework/{base_webhook,validation,utils}.go``
and ``pkg/controller/jobs/job/job_webhook.go`` (v0.19.2), for every enabled integration (the
integration's :class:`~kbatch.api.jobframework.GenericJob` adapter does the kind-specific part):

* defaulting: a job without a queue name in a namespace ``managedJobsNamespaceSelector`` selects,
  whose namespace has a LocalQueue named ``default`` and whose owner is not a Kueue-managed job,
  gets ``kueue.x-k8s.io/queue-name: default``; a job with a queue name (or, with
  ``manageJobsWithoutQueueName``, any job in a selected namespace) is created suspended unless an
  ancestor is managed by Kueue;
* validation: the queue name is a DNS subdomain, and so is the prebuilt Workload's name, which a
  running job may not change (:mod:`..jobframework.prebuilt`); ``kueue.x-k8s.io/max-exec-time-seconds`` a
  positive integer (immutable unless suspended); the queue name immutable while the job runs, and
  not removed in a namespace with a default LocalQueue; a WorkloadPriorityClass label not added to
  a running job nor removed; for batch/v1 Jobs, ``kueue.x-k8s.io/job-min-parallelism`` between 1 and
  the pod count - 1, ``kueue.x-k8s.io/job-completions-equal-parallelism`` only for Indexed Jobs with
  equal completions and parallelism, ``parallelism`` fixed while a partially admissible Job runs;
  with ``AdmissionGatedBy``, the ``kueue.x-k8s.io/admission-gated-by`` annotation's rules
  (:mod:`.admission_gated_by`), for every integration as upstream's ``ValidateJobOn{Create,Update}``;
* elastic jobs (``ElasticJobsViaWorkloadSlices``, :mod:`.elastic`): the ``kueue.x-k8s.io/elastic-job``
  annotation only on a batch/v1 Job, and not added or removed later; a Job's template gets the
  ``kueue.x-k8s.io/elastic-job`` scheduling gate on create.

Denials are ``Forbidden`` with ``admission webhook "vjob.kb.io" denied the request: …`` (the
webhook named after the kind, as upstream's ``v<kind>.kb.io``).
"""

from __future__ import annotations

from typing import Any

from kbatch.api.core_v1 import Namespace
from kbatch.api.errors import FieldError, Forbidden, NotFound
from kbatch.api.go_bool import parse_bool
from kbatch.api.go_int import NumError, go_parse_int, int32
from kbatch.api.kueue_v1beta2 import WorkloadPriorityClass
from kbatch.api.kueue_v1beta2.constants import (
    DEFAULT_LOCAL_QUEUE,
    JOB_COMPLETIONS_EQUAL_PARALLELISM,
    JOB_MIN_PARALLELISM,
    MAX_EXEC_TIME_LABEL,
    QUEUE_LABEL,
    WORKLOAD_PRIORITY_CLASS_LABEL,
)
from kbatch.api.selectors import selector_from_model
from kbatch.api.validation import is_dns1123_subdomain
from kbatch.controllers.kueue.config import settings_for
from kbatch.controllers.kueue.jobframework import prebuilt
from kbatch.controllers.kueue.jobframework.ancestors import (
    AncestorError,
    find_managed_ancestor,
    owner_managed,
)
from kbatch.controllers.kueue.tas import request as tas_request
from kbatch.controllers.kueue.tas.grouping import GroupedPodSet, grouping_errors
from kbatch.controllers.kueue.webhooks import elastic
from kbatch.controllers.kueue.webhooks.admission_gated_by import admission_gated_by_errors
from kbatch.controllers.kueue.webhooks.default_queue import DefaultQueues
from kbatch.controllers.kueue.webhooks.kinds import deny
from kbatch.controllers.kueue.webhooks.managed_by import MULTIKUEUE_KINDS, default_managed_by
from kbatch.controllers.kueue.webhooks.pods import PodWebhook
from kbatch.families import resolve

__all__ = ["install"]

DEFAULT_WORKLOAD_PRIORITY_CLASS = "default"  # constants.DefaultWorkloadPriorityClassName

_LABELS = "metadata.labels"
_ANNOTATIONS = "metadata.annotations"


def _go_atoi(text: str) -> tuple[int | None, str]:
    """Go's ``strconv.Atoi`` (int64 range), and its error text where it fails."""
    try:
        return go_parse_int(text, func="Atoi"), ""
    except NumError as err:
        return None, str(err)


class _JobWebhook:
    """One integration's mutating and validating hooks."""

    def __init__(self, server: Any, integration: Any, default_queues: DefaultQueues) -> None:
        self.server = server
        self.integration = integration
        self._default_queues = default_queues
        self.webhook = f"v{integration.model.api_info.kind.lower()}.kb.io"

    # --- reads -----------------------------------------------------------------------------------
    def _settings(self) -> Any:
        return settings_for(self.server.configurations, self.server.features)

    def _namespace_selected(self, namespace: str) -> bool:
        selector = self._settings().config.managed_jobs_namespace_selector
        if selector is None:
            return True
        try:
            ns = self.server.get(Namespace, namespace)
        except NotFound:
            return False
        return selector_from_model(selector).matches(dict(ns.metadata.labels or {}))

    def _default_queue_exists(self, namespace: str) -> bool:
        """``DefaultLocalQueueExist``: the namespace's ``default`` LocalQueue exists and is not
        stopped (answered from a memo every LocalQueue write clears: :mod:`.default_queue`)."""
        return self._default_queues.exists(namespace)

    def _enabled(self) -> frozenset[str]:
        return frozenset(self._settings().frameworks)

    def owner_managed(self, obj: Any) -> bool:
        """``IsOwnerManagedByKueueForObject`` (:mod:`..jobframework.ancestors`)."""
        return owner_managed(obj, self.server.composition.job_integrations, self._enabled())

    def _ancestor_managed(self, obj: Any) -> bool:
        """``FindAncestorJobManagedByKueue`` found an ancestor; its errors deny the request, as a
        defaulting webhook's error does (controller-runtime's ``Denied(err.Error())``)."""
        try:
            found = find_managed_ancestor(
                obj,
                self.server.composition.job_integrations,
                self._enabled(),
                self.server.get,
                self._settings().config.manage_jobs_without_queue_name,
            )
        except AncestorError as err:
            mutating = "m" + self.webhook[1:]
            raise Forbidden(f'admission webhook "{mutating}" denied the request: {err}') from err
        return found is not None

    # --- mutating --------------------------------------------------------------------------------
    def default_priority_class(self, obj: Any) -> None:
        """``ApplyDefaultWorkloadPriorityClass`` (jobframework/defaults.go): with the
        ``WorkloadPriorityClassDefaulting`` gate, an object without a WorkloadPriorityClass label,
        whose owner Kueue does not manage, gets ``default`` while that WorkloadPriorityClass exists."""
        meta = obj.metadata
        if not self._settings().gates.enabled("WorkloadPriorityClassDefaulting"):
            return
        if (meta.labels or {}).get(WORKLOAD_PRIORITY_CLASS_LABEL) or self.owner_managed(obj):
            return
        try:
            self.server.get(WorkloadPriorityClass, DEFAULT_WORKLOAD_PRIORITY_CLASS)
        except NotFound:
            return
        meta.labels = {**(meta.labels or {}), WORKLOAD_PRIORITY_CLASS_LABEL: DEFAULT_WORKLOAD_PRIORITY_CLASS}

    def default(self, request: Any) -> None:
        if request.subresource or request.operation != "CREATE":
            return
        obj = request.obj
        meta = obj.metadata
        namespace = meta.namespace or ""
        cfg = self._settings().config
        if (
            not (meta.labels or {}).get(QUEUE_LABEL)
            and self._default_queue_exists(namespace)
            and not self.owner_managed(obj)
            and self._namespace_selected(namespace)
        ):
            meta.labels = {**(meta.labels or {}), QUEUE_LABEL: DEFAULT_LOCAL_QUEUE}
        self.default_priority_class(obj)
        job = resolve(self.integration.adapter)(obj)
        if meta.deletion_timestamp is not None or self._ancestor_managed(obj):
            return
        suspend = bool((meta.labels or {}).get(QUEUE_LABEL)) or (
            cfg.manage_jobs_without_queue_name and self._namespace_selected(namespace)
        )
        if suspend and not job.is_suspended():
            job.suspend()
        if self.integration.name in MULTIKUEUE_KINDS and self._settings().on("MultiKueue"):
            default_managed_by(self.server, job, obj)  # ApplyDefaultForManagedBy (webhooks/managed_by.py)
        if self.integration.name == "batch/job" and self._elastic(obj):
            elastic.gate_template(obj.spec.template)  # applyWorkloadSliceSchedulingGate

    def _ids(self) -> bool:
        return bool(self._settings().on("WorkloadIdentifierAnnotations"))

    def _elastic(self, obj: Any) -> bool:
        return elastic.enabled(obj, self._settings().on(elastic.GATE))

    # --- validating --------------------------------------------------------------------------------
    def validate(self, request: Any) -> None:
        if request.subresource:
            return
        obj, old = request.obj, request.old
        errs = self._on_create(obj)
        if self.integration.name == "batch/job":
            labels_changed = old is None or (old.metadata.annotations or {}).get(JOB_MIN_PARALLELISM) != (
                obj.metadata.annotations or {}
            ).get(JOB_MIN_PARALLELISM)
            if labels_changed:
                errs += _min_parallelism(obj)
                errs += elastic.partial_admission_errors(obj, self._elastic(obj))
            errs += _completions_equal_parallelism(obj)
            if self._settings().on("TopologyAwareScheduling"):  # job_webhook.go validateCommon
                meta = obj.spec.template.metadata if obj.spec and obj.spec.template else None
                annotations = (meta.annotations if meta else None) or {}
                count = None  # the first pod set's, for the slice size bound (only read when sliced)
                if tas_request.sliced(annotations):
                    pod_sets = resolve(self.integration.adapter)(obj).pod_sets()
                    count = pod_sets[0].count if pod_sets else None
                multi_layer = self._settings().on("TASMultiLayerTopology")
                topology = elastic.topology_errors(annotations, self._elastic(obj))
                errs += topology or tas_request.validate(annotations, "spec.template.metadata", count,
                                                         multi_layer)
        tas = self._settings().on("TopologyAwareScheduling")
        if self.integration.name == "jobset.x-k8s.io/jobset" and tas:
            multi_layer = self._settings().on("TASMultiLayerTopology")
            pod_sets = resolve(self.integration.adapter)(obj).pod_sets()
            errs += _jobset_topology(obj, pod_sets, multi_layer)  # jobset_webhook.go validateTopologyRequest
        if old is not None:
            errs += self._on_update(old, obj)
        deny(self.webhook, errs)

    def _on_create(self, obj: Any) -> list[FieldError]:
        errs = []
        labels = obj.metadata.labels or {}
        queue = labels.get(QUEUE_LABEL)
        if queue is not None:
            problems = is_dns1123_subdomain(queue)
            if problems:
                errs.append(FieldError.invalid(f"{_LABELS}[{QUEUE_LABEL}]", queue, ",".join(problems)))
        text = labels.get(MAX_EXEC_TIME_LABEL)
        if text is not None:
            value, problem = _go_atoi(text)
            if value is None:
                errs.append(FieldError.invalid(f"{_LABELS}[{MAX_EXEC_TIME_LABEL}]", text, problem))
            elif value <= 0:
                errs.append(
                    FieldError.invalid(f"{_LABELS}[{MAX_EXEC_TIME_LABEL}]", value, "should be greater than 0")
                )
        errs += prebuilt.name_errors(obj, self._ids())  # validateCreateForPrebuiltWorkload
        if self._elastic(obj):  # ValidateJobOnCreate: ValidateElasticJobAnnotation
            errs += elastic.unsupported_errors(self.integration.model.api_info)
        if self._settings().gates.enabled("AdmissionGatedBy"):  # ValidateJobOnCreate
            errs += admission_gated_by_errors(obj.metadata.annotations, update=False)
        return errs

    def _on_update(self, old: Any, new: Any) -> list[FieldError]:
        adapter = resolve(self.integration.adapter)
        old_job, new_job = adapter(old), adapter(new)
        errs: list[FieldError] = []
        old_labels, new_labels = old.metadata.labels or {}, new.metadata.labels or {}
        old_q, new_q = old_labels.get(QUEUE_LABEL, ""), new_labels.get(QUEUE_LABEL, "")
        path = f"{_LABELS}[{QUEUE_LABEL}]"
        if not new_job.is_suspended() and old_q != new_q:
            errs.append(FieldError.invalid(path, new_q, "field is immutable"))
        if not new_q and old_q and self._default_queue_exists(old.metadata.namespace or ""):
            errs.append(
                FieldError.invalid(path, "", "queue-name must not be empty in namespace with default queue")
            )
        running = not new_job.is_suspended() or not old_job.is_suspended()
        if running and old_labels.get(MAX_EXEC_TIME_LABEL) != new_labels.get(MAX_EXEC_TIME_LABEL):
            errs.append(
                FieldError.invalid(
                    f"{_LABELS}[{MAX_EXEC_TIME_LABEL}]",
                    new_labels.get(MAX_EXEC_TIME_LABEL, ""),
                    "field is immutable",
                )
            )
        old_wpc, new_wpc = (
            old_labels.get(WORKLOAD_PRIORITY_CLASS_LABEL, ""),
            new_labels.get(WORKLOAD_PRIORITY_CLASS_LABEL, ""),
        )
        wpc_path = f"{_LABELS}[{WORKLOAD_PRIORITY_CLASS_LABEL}]"
        if not new_job.is_suspended() and not old_wpc and new_wpc:
            errs.append(
                FieldError.invalid(
                    wpc_path, new_wpc, "WorkloadPriorityClass cannot be added to a non-suspended workload"
                )
            )
        elif not new_wpc and old_wpc:
            errs.append(
                FieldError.invalid(
                    wpc_path, new_wpc, "WorkloadPriorityClass cannot be removed from a workload"
                )
            )
        errs += prebuilt.update_errors(  # validateUpdateForPrebuiltWorkload
            old, new, suspended=new_job.is_suspended(), elastic=self._elastic(old),
            identifier_annotations=self._ids())
        errs += elastic.toggle_errors(self._elastic(old), self._elastic(new))  # ValidateJobOnUpdate
        if self._settings().gates.enabled("AdmissionGatedBy"):  # ValidateJobOnUpdate
            errs += admission_gated_by_errors(new.metadata.annotations, old.metadata.annotations, update=True)
        if self.integration.name == "batch/job":
            errs += _partial_admission_update(old, new, old_job, new_job)
        return errs


def _pods_count(job: Any) -> int:
    spec = job.spec
    count = spec.parallelism if spec.parallelism is not None else 1
    return min(count, spec.completions) if spec.completions is not None else count


def _min_parallelism(job: Any) -> list[FieldError]:
    text = (job.metadata.annotations or {}).get(JOB_MIN_PARALLELISM)
    if text is None:
        return []
    path = f"{_ANNOTATIONS}[{JOB_MIN_PARALLELISM}]"
    value, problem = _go_atoi(text)
    if value is None:
        return [FieldError.invalid(path, text, problem)]
    count = _pods_count(job)
    # upstream compares int32(v) with the pods count (pkg/controller/jobs/job/job_webhook.go)
    if int32(value) >= count or value <= 0:
        return [FieldError.invalid(path, value, f"should be between 0 and {count - 1}")]
    return []


def _completions_equal_parallelism(job: Any) -> list[FieldError]:
    text = (job.metadata.annotations or {}).get(JOB_COMPLETIONS_EQUAL_PARALLELISM)
    if text is None:
        return []
    path = f"{_ANNOTATIONS}[{JOB_COMPLETIONS_EQUAL_PARALLELISM}]"
    errs = []
    enabled = parse_bool(text)
    if enabled is None:
        errs.append(FieldError.invalid(path, text, f'strconv.ParseBool: parsing "{text}": invalid syntax'))
    if enabled:
        if (job.spec.completion_mode or "NonIndexed") == "NonIndexed":
            errs.append(FieldError.invalid(path, text, "should not be enabled for NonIndexed jobs"))
        p = job.spec.parallelism if job.spec.parallelism is not None else 1
        c = job.spec.completions if job.spec.completions is not None else 1
        if p != c:
            errs.append(
                FieldError.invalid(
                    "spec.completions",
                    job.spec.completions,
                    f"should be equal to parallelism when {JOB_COMPLETIONS_EQUAL_PARALLELISM} "
                    "annotation is true",
                )
            )
    return errs


def _jobset_topology(js: Any, pod_sets: list[Any], multi_layer: bool) -> list[FieldError]:
    """``ValidateTASPodSetRequest`` of each replicated job's pod template, then
    ``ValidatePodSetGroupingTopology`` over the JobSet's pod sets (each replicated job's pods, its
    topology request as the Workload will carry it), keyed by the templates' annotations paths."""
    errs: list[FieldError] = []
    grouped: list[GroupedPodSet] = []
    paths: dict[str, str] = {}
    for i, (rjob, ps) in enumerate(zip((js.spec.replicated_jobs if js.spec else None) or (), pod_sets,
                                       strict=False)):
        tpl = rjob.template.spec.template if rjob.template and rjob.template.spec else None
        annotations = (tpl.metadata.annotations if tpl is not None and tpl.metadata else None) or {}
        path = f"spec.replicatedJobs[{i}].template.spec.template.metadata"
        # ValidateTASPodSetRequest, then ValidateSliceSizeAnnotationUpperBound with the pod set's count
        errs += tas_request.validate(annotations, path, ps.count, multi_layer)
        src = ps.topology
        request = tas_request.topology_request(
            annotations,
            src.pod_index_label if src is not None else None,
            (src.sub_group_index_label, src.sub_group_count) if src is not None else (None, None),
            multi_layer,
        )
        grouped.append(GroupedPodSet(ps.name, ps.count, request))
        paths[ps.name] = f"{path}.annotations"
    return errs + grouping_errors(grouped, paths)


def _partial_admission_update(old: Any, new: Any, old_job: Any, new_job: Any) -> list[FieldError]:
    errs = []
    old_p = old.spec.parallelism if old.spec.parallelism is not None else 1
    new_p = new.spec.parallelism if new.spec.parallelism is not None else 1
    if JOB_MIN_PARALLELISM in (old.metadata.annotations or {}) and not old.spec.suspend and old_p != new_p:
        errs.append(
            FieldError.forbidden(
                "spec.parallelism",
                "cannot change when partial admission is enabled and the job is not suspended",
            )
        )
    old_sync = (
        parse_bool((old.metadata.annotations or {}).get(JOB_COMPLETIONS_EQUAL_PARALLELISM, "")) or False
    )
    new_sync = (
        parse_bool((new.metadata.annotations or {}).get(JOB_COMPLETIONS_EQUAL_PARALLELISM, "")) or False
    )
    if (
        old_job.is_suspended() == new_job.is_suspended()
        and not new_job.is_suspended()
        and old_sync != new_sync
    ):
        errs.append(
            FieldError.forbidden(
                f"{_ANNOTATIONS}[{JOB_COMPLETIONS_EQUAL_PARALLELISM}]",
                "field is immutable while the job is not suspended",
            )
        )
    return errs


def install(server: Any) -> None:
    settings = settings_for(server.configurations, server.features)
    enabled = set(settings.frameworks)
    seen: set[str] = set()
    default_queues = DefaultQueues(server)  # one memo for every integration's hooks
    for integ in server.composition.job_integrations:
        if integ.name not in enabled or integ.name in seen:
            continue
        seen.add(integ.name)
        hook: Any = _JobWebhook(server, integ, default_queues)
        if integ.name == "pod":  # the pod integration's own webhook (webhooks/pods.py)
            hook = PodWebhook(hook)
        server.admission.add_mutating(integ.model, hook.default, main_resource_only=True)
        server.admission.add_validating(integ.model, hook.validate, main_resource_only=True)
