"""core/v1 ServiceAccount (k8s.io/api ``core/v1/types.go``): an identity for the processes of pods.

``secrets`` lists the secrets pods running as the account may use (only ``name`` is kept; the
registry clears the rest, ``cleanSecretReferences``), ``imagePullSecrets`` the pull secrets the
``ServiceAccount`` admission plugin copies into a pod that names none, and
``automountServiceAccountToken`` whether the plugin mounts the API credentials into a pod that does
not say itself. No spec, no status. docs/serviceaccounts.md.
"""

from __future__ import annotations

from typing import ClassVar

from kbatch.api.base import ApiInfo
from kbatch.api.core_v1.common import LocalObjectReference, ObjectReference
from kbatch.api.meta import Resource

__all__ = ["ServiceAccount"]


class ServiceAccount(Resource):
    api_info: ClassVar[ApiInfo] = ApiInfo(
        group="", version="v1", kind="ServiceAccount", plural="serviceaccounts", namespaced=True,
        short_names=("sa",), singular="serviceaccount", subresources=(),
    )

    secrets: list[ObjectReference] | None = None
    image_pull_secrets: list[LocalObjectReference] | None = None
    automount_service_account_token: bool | None = None
