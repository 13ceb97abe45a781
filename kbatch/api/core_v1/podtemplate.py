"""core/v1 PodTemplate (k8s.io/api ``core/v1/types.go``): a stored pod template, namespaced, with no
spec or status of its own. Kueue's ProvisioningRequest check writes one per pod set it asks the
cluster-autoscaler for (``podSets[].podTemplateRef``).
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo
from kbatch.api.core_v1.pod import PodTemplateSpec
from kbatch.api.meta import Resource

__all__ = ["PodTemplate"]


class PodTemplate(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="PodTemplate", plural="podtemplates", namespaced=True,
        singular="podtemplate", subresources=(),
    )

    template: PodTemplateSpec | None = None
