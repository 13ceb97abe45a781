"""Validation of an ephemeral volume: its ``volumeClaimTemplate`` is required and its spec is checked
as a PersistentVolumeClaim's.

Upstream: kubernetes ``pkg/apis/core/validation/validation.go`` (``validateEphemeralVolumeSource``,
``ValidatePersistentVolumeClaimTemplate`` -> ``ValidatePersistentVolumeClaimSpec``). kbatch keeps
the template as a mapping on the Pod; its spec is decoded into a claim spec here (a spec that does
not decode is Invalid at ``volumeClaimTemplate.spec``, where kube-apiserver would fail decoding the
whole Pod). The template's metadata is not validated (docs/apiserver.md, "Deliberate differences").
"""

from __future__ import annotations

from pydantic import ValidationError

from kbatch.api.core_v1 import EphemeralVolumeSource
from kbatch.api.core_v1.claim import PersistentVolumeClaim, PersistentVolumeClaimSpec
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.claim import validate_claim_spec
from kbatch.api.validation import child

__all__ = ["ephemeral_errors"]


def ephemeral_errors(source: EphemeralVolumeSource, path: str) -> list[FieldError]:
    """``validateEphemeralVolumeSource`` for the ephemeral source at ``path``."""
    template_path = child(path, "volumeClaimTemplate")
    template = source.volume_claim_template
    if template is None:
        return [FieldError.required(template_path)]
    spec_path = child(template_path, "spec")
    try:
        spec = PersistentVolumeClaimSpec.model_validate(template.get("spec") or {})
    except ValidationError as err:
        return [FieldError.invalid(spec_path, "", str(err.errors()[0].get("msg", "")))]
    return validate_claim_spec(PersistentVolumeClaim(spec=spec), spec_path)
