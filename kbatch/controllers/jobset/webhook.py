"""The JobSet webhooks as admission plugins, named as upstream names its webhooks
(``config/components/webhook/manifests.yaml``, v0.12.0):

* ``mjobset.kb.io`` (mutating, JobSet CREATE only): the defaults of
  :func:`~kbatch.controllers.jobset.webhook_rules.default_jobset_webhook`;
* ``vjobset.kb.io`` (validating, JobSet CREATE and UPDATE):
  :func:`~kbatch.controllers.jobset.webhook_rules.validate_create` /
  :func:`~kbatch.controllers.jobset.webhook_rules.validate_update`.

Both watch the main resource only (``jobsets``, not ``jobsets/status``). A refusal reads as
kube-apiserver reports a webhook's: ``admission webhook "vjobset.kb.io" denied the request:
JobSet.jobset.x-k8s.io "<name>" is invalid: ...`` with the webhook's ``422 Invalid`` status and
causes (``ToStatusErr`` in apiserver ``pkg/admission/plugin/webhook/errors``). The gates are the
API server's (:attr:`kbatch.apiserver.APIServer.features`), as upstream's webhook reads the JobSet
binary's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api import jobset_constants as c
from kbatch.api.core_v1 import PersistentVolumeClaim
from kbatch.api.errors import FieldError, Forbidden, Invalid, NotFound, StatusError
from kbatch.api.features import FeatureGates
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.controllers.jobset.views import Gates
from kbatch.controllers.jobset.webhook_rules import default_jobset_webhook, validate_create, validate_update

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["MUTATING", "VALIDATING", "JobSetValidator", "denied", "gates_of", "install_mutating",
           "install_validating"]

MUTATING = "mjobset.kb.io"
VALIDATING = "vjobset.kb.io"


def gates_of(features: FeatureGates) -> Gates:
    return Gates(restart_job=features.enabled(c.GATE_RESTART_JOB),
                 in_place_restart=features.enabled(c.GATE_IN_PLACE_RESTART),
                 elastic=features.enabled(c.GATE_ELASTIC_JOBSET))


def denied(webhook: str, err: StatusError) -> StatusError:
    """The webhook's refusal as the API server reports it: its status, the message prefixed."""
    message = f'admission webhook "{webhook}" denied the request: {err.message}'
    if isinstance(err, Invalid):
        return Invalid(message, details=err.details, errors=err.errors)
    return type(err)(message, details=err.details)


def invalid(webhook: str, js: JobSet, errors: list[FieldError]) -> StatusError:
    """``apierrors.NewInvalid``: every error a cause, the message without repeated texts
    (``ErrorList.ToAggregate``)."""
    unique: list[FieldError] = []
    for err in errors:
        if str(err) not in {str(u) for u in unique}:
            unique.append(err)
    group_kind = JobSet.api_info.group_kind
    message = Invalid.of(group_kind, js.name, unique).message
    return denied(webhook, Invalid(message, details=Invalid.of(group_kind, js.name, errors).details,
                                   errors=tuple(errors)))


def forbidden(webhook: str, message: str) -> StatusError:
    """controller-runtime's ``Denied(err.Error())``: 403 Forbidden with that message."""
    return denied(webhook, Forbidden(message))


def _default(request: AdmissionRequest) -> None:
    # mjobset.kb.io is registered for CREATE only (v0.12.0 pkg/webhooks/jobset_webhook.go
    # +kubebuilder:webhook verbs=create; config/components/webhook, the Helm chart): an update is
    # validated as sent. kubectl apply of an unchanged manifest sends no patch; one that replaces
    # replicatedJobs with the manifest's (without the defaults) is refused as immutable, as upstream.
    if request.operation == "CREATE" and isinstance(request.obj, JobSet):
        default_jobset_webhook(request.obj)


def install_mutating(server: APIServer) -> None:
    if JobSet in server.registry:
        server.admission.add_mutating(JobSet, _default, main_resource_only=True)


class JobSetValidator:
    """``vjobset.kb.io`` over one API server (claims are read from it)."""

    def __init__(self, server: APIServer) -> None:
        self.server = server

    def _claim(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        try:
            return self.server.get(PersistentVolumeClaim, name, namespace)
        except NotFound:
            return None

    def __call__(self, request: AdmissionRequest) -> None:
        js = request.obj
        if not isinstance(js, JobSet):
            return
        gates = gates_of(self.server.features)
        if request.operation == "CREATE":
            errors = validate_create(js, gates, self._claim)
        else:
            assert isinstance(request.old, JobSet)
            errors = validate_update(js, request.old, gates)
        if errors:
            raise invalid(VALIDATING, js, errors)


def install_validating(server: APIServer) -> None:
    if JobSet in server.registry:
        server.admission.add_validating(JobSet, JobSetValidator(server), main_resource_only=True)
