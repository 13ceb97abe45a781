"""The batch/v1 CronJob controller (upstream pkg/controller/cronjob, cronjob_controllerv2.go).

A pure decision (:func:`sync_cronjob`: CronJob + its Jobs + now → a :class:`CronPlan`) and its
wiring (:func:`setup`, catalog name ``cronjob``).
"""

from kbatch.controllers.cronjob.controller import CronJobReconciler, setup
from kbatch.controllers.cronjob.schedule import most_recent_schedule_time, next_check_delay
from kbatch.controllers.cronjob.sync import CronEvent, CronPlan, build_job, job_name, sync_cronjob

__all__ = [
    "CronEvent",
    "CronJobReconciler",
    "CronPlan",
    "build_job",
    "job_name",
    "most_recent_schedule_time",
    "next_check_delay",
    "setup",
    "sync_cronjob",
]
