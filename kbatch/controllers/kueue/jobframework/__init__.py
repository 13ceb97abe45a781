"""The job framework's controller side: workload names, construction and matching, the generic
reconciler every job integration runs (``pkg/controller/jobframework``)."""

from kbatch.controllers.kueue.jobframework.names import workload_name
from kbatch.controllers.kueue.jobframework.reconciler import JobReconciler

__all__ = ["JobReconciler", "workload_name"]
