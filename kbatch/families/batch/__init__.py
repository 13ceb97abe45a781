"""The batch family: batch/v1 Job and CronJob, their controllers, and Job as a queueable workload.

Job deletes orphan their pods unless told otherwise (upstream ``pkg/registry/batch/job/strategy.go``
``DefaultGarbageCollectionPolicy``, kept "for backwards compatibility"). The Job features kbatch
implements are GA and locked on at 1.37 (their gates are declared so that turning one off is refused
as upstream refuses it), except KEP-5440's two beta gates, which can be turned off.
"""

from __future__ import annotations

from kbatch.api.batch_v1 import CronJob, Job
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.gates import (
    MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS,
    MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS,
)
from kbatch.api.strategies.batch import CronJobStrategy, JobStrategy
from kbatch.families.batch import describe, printers
from kbatch.families.family import ControllerSpec, Family, JobIntegration, KindEntry, kcm_account

__all__ = ["BATCH"]

_GATES = "kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/"

BATCH = Family(
    name="batch",
    description="batch/v1 Job and CronJob, their controllers and the TTL-after-finished controller",
    kinds=(
        KindEntry(Job, JobStrategy(), printers.JOB, page=describe.describe_job_page, gc_policy="Orphan"),
        KindEntry(CronJob, CronJobStrategy(), printers.CRONJOB, page=describe.describe_cronjob_page),
    ),
    controllers=(
        ControllerSpec("ttl-after-finished", "deletes finished Jobs ttlSecondsAfterFinished after they end",
                       "kbatch.runtime.builtin.ttl_after_finished:setup",
                       aliases=("ttl-after-finished-controller",), source="ttl-after-finished-controller",
                       user=kcm_account("ttl-after-finished-controller")),
        ControllerSpec("job", "runs a Job's pods to completion (batch/v1 Job)",
                       "kbatch.controllers.job:setup", aliases=("job-controller",), source="job-controller",
                       user=kcm_account("job-controller")),
        ControllerSpec("cronjob", "creates Jobs on a cron schedule (batch/v1 CronJob)",
                       "kbatch.controllers.cronjob:setup", aliases=("cronjob-controller",),
                       source="cronjob-controller", user=kcm_account("cronjob-controller")),
    ),
    feature_gates=(
        FeatureSpec("JobManagedBy", True, Stage.GA, locked=True, source=_GATES + "JobManagedBy.md"),
        FeatureSpec("JobPodReplacementPolicy", True, Stage.GA, locked=True,
                    source=_GATES + "JobPodReplacementPolicy.md"),
        # KEP-5440: alpha in 1.35, beta and on since 1.36 (kubernetes#135965)
        FeatureSpec(MUTABLE_POD_RESOURCES_FOR_SUSPENDED_JOBS, True, Stage.BETA,
                    source=_GATES + "MutablePodResourcesForSuspendedJobs.md"),
        FeatureSpec(MUTABLE_SCHEDULING_DIRECTIVES_FOR_SUSPENDED_JOBS, True, Stage.BETA,
                    source=_GATES + "MutableSchedulingDirectivesForSuspendedJobs.md"),
    ),
    job_integrations=(
        JobIntegration("batch/job", Job, "kbatch.families.batch.integration:BatchJob"),
    ),
)
