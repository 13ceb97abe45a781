"""core/v1 PodTemplate strategy.

Upstream (semantics only): kubernetes/kubernetes ``pkg/registry/core/podtemplate/strategy.go``
(``metadata.generation`` 1 on create, bumped when ``template`` changes; unconditional updates
allowed) and ``pkg/apis/core/validation/validation.go`` ``ValidatePodTemplate``/
``ValidatePodTemplateUpdate``: the template is a pod template spec at ``template``
(``ValidatePodTemplateSpec``), its spec defaulted as a pod's (``SetDefaults_PodSpec`` and friends).
"""

from __future__ import annotations

from kbatch.api.core_v1 import PodTemplate
from kbatch.api.errors import FieldError
from kbatch.api.meta import Resource
from kbatch.api.strategies.core.pod_defaults import default_pod_spec
from kbatch.api.strategies.core.pod_validation import validate_pod_template_spec
from kbatch.api.strategy import DefaultStrategy

__all__ = ["PodTemplateStrategy"]


class PodTemplateStrategy(DefaultStrategy):
    has_status = False

    def default(self, obj: Resource) -> None:
        assert isinstance(obj, PodTemplate)
        if obj.template is not None:
            default_pod_spec(obj.template.spec)

    def validate(self, obj: Resource) -> list[FieldError]:
        assert isinstance(obj, PodTemplate)
        if obj.template is None:
            return []
        return validate_pod_template_spec(obj.template, "template")
