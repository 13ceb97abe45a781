"""jobset.x-k8s.io/v1alpha2 JobSet strategy: what kube-apiserver does for the JobSet CRD.

Upstream serves JobSet from a CustomResourceDefinition (kubernetes-sigs/jobset v0.12.0,
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``), so the API server's own part is the
CRD's: structural defaults applied when a request is decoded (``replicas: 1``, ``groupName:
default``, ``failurePolicy.restartStrategy: Recreate``, ``retentionPolicy.whenDeleted: Delete``),
the schema and CEL rules (:mod:`.schema`, :mod:`.status`), a ``status`` subresource, and a
generation that moves on spec changes. The webhooks' defaulting and validation
(``pkg/webhooks/jobset_webhook.go``) are admission plugins of the JobSet family
(:mod:`kbatch.controllers.jobset.webhook`), run after these, as kube-apiserver runs webhooks.
"""

from __future__ import annotations

from kbatch.api import jobset_constants as c
from kbatch.api.errors import FieldError
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.strategies.jobset.schema import (
    not_checked_error,
    validate_spec_schema,
    validate_spec_transitions,
)
from kbatch.api.strategies.jobset.status import validate_status_schema
from kbatch.api.strategy import CUSTOM_RESOURCE_STATUS_KEPT_META, DefaultStrategy

__all__ = ["JobSetStrategy", "default_jobset", "validate_spec_schema", "validate_status_schema"]


def default_jobset(js: JobSet) -> None:
    """The CRD's ``default:`` values, in place (only where the field is absent)."""
    spec = js.spec
    for rjob in spec.replicated_jobs or ():
        if rjob.group_name is None:
            rjob.group_name = c.DEFAULT_GROUP_NAME
        if rjob.replicas is None:
            rjob.replicas = 1
    if spec.failure_policy is not None and spec.failure_policy.restart_strategy is None:
        spec.failure_policy.restart_strategy = c.RECREATE
    for policy in spec.volume_claim_policies or ():
        if policy.retention_policy is not None and policy.retention_policy.when_deleted is None:
            policy.retention_policy.when_deleted = c.RETAIN_DELETE


class JobSetStrategy(DefaultStrategy):
    """The JobSet CRD's create/update/status hooks."""

    status_kept_meta = CUSTOM_RESOURCE_STATUS_KEPT_META  # a CRD's status strategy

    def default(self, obj: JobSet) -> None:  # type: ignore[override]
        default_jobset(obj)

    def validate(self, obj: JobSet) -> list[FieldError]:  # type: ignore[override]
        return validate_spec_schema(obj)

    def validate_update(self, new: JobSet, old: JobSet) -> list[FieldError]:  # type: ignore[override]
        """The transition rules; ``validate`` already reported the schema (and, when it blocked, that
        the CEL rules were not checked)."""
        if any(str(e) == str(not_checked_error()) for e in validate_spec_schema(new)):
            return []
        return validate_spec_transitions(new, old)

    def validate_status_update(self, new: JobSet, old: JobSet) -> list[FieldError]:  # type: ignore[override]
        return validate_status_schema(new.status)
