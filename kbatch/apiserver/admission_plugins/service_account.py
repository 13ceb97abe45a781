"""``ServiceAccount`` admission (upstream ``plugin/pkg/admission/serviceaccount/admission.go``).

On the create of a pod (not its subresources; updates are left alone, as upstream's ``Admit`` only
mutates creates):

* a mirror pod (annotation ``kubernetes.io/config.mirror``) is not changed, and is ``Forbidden`` when
  it names a service account, references a secret (volumes, env, envFrom, imagePullSecrets) or
  projects a ``serviceAccountToken``;
* an empty ``spec.serviceAccountName`` becomes ``default`` (and the deprecated ``spec.serviceAccount``
  mirrors it, as the v1 conversion writes it);
* the account must exist: ``pods "p" is forbidden: error looking up service account NS/NAME:
  serviceaccount "NAME" not found``;
* unless the pod's ``automountServiceAccountToken`` says no (else the account's), the projected
  ``kube-api-access-XXXXX`` volume and its mounts are added (:mod:`.service_account_volume`);
* a pod without ``imagePullSecrets`` gets the account's.

Lookup: the stored account, read through the server's decoded-object cache (upstream reads its
informer's lister, then the API). For a missing ``default`` account upstream retries the API about ten
times over 1-2 s, since the ``serviceaccount`` controller creates it moments after the namespace. kbatch
models that race without time: the controllers running in this process that maintain ``default``
accounts register on the server (``APIServer.account_syncers``), and a missing ``default`` account
lets them sync the namespace once before the second look. With the controller off, the pod is refused,
as on a cluster without it. docs/serviceaccounts.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import LocalObjectReference, Pod, ServiceAccount
from kbatch.api.errors import NotFound
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.apiserver.admission_plugins.priority import forbidden
from kbatch.apiserver.admission_plugins.service_account_volume import mount_token, volume_suffix

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["DEFAULT_ACCOUNT", "MIRROR_POD", "ServiceAccountAdmission", "install", "references_secrets",
           "should_automount"]

DEFAULT_ACCOUNT = "default"
MIRROR_POD = "kubernetes.io/config.mirror"


def should_automount(sa: ServiceAccount, pod: Pod) -> bool:
    """The pod's preference, then the account's, else true (``shouldAutomount``)."""
    if pod.spec.automount_service_account_token is not None:
        return pod.spec.automount_service_account_token
    if sa.automount_service_account_token is not None:
        return sa.automount_service_account_token
    return True


def references_secrets(pod: Pod) -> bool:
    """``podutil.VisitPodSecretNames`` over all containers stops at the first secret it meets."""
    spec = pod.spec
    if any(ref.name for ref in spec.image_pull_secrets or ()):
        return True
    for volume in spec.volumes or ():
        sources = volume.projected.sources if volume.projected else None
        if volume.secret is not None or any(source.secret is not None for source in sources or ()):
            return True
        if volume.csi is not None and volume.csi.node_publish_secret_ref is not None:
            return True
    for container in [*spec.all_containers(), *(spec.ephemeral_containers or ())]:
        if any(src.secret_ref is not None for src in container.env_from or ()):
            return True
        if any(env.value_from is not None and env.value_from.secret_key_ref is not None
               for env in container.env or ()):
            return True
    return False


def _mirror_refusal(pod: Pod) -> str | None:
    if pod.spec.service_account_name:
        return "a mirror pod may not reference service accounts"
    if references_secrets(pod):
        return "a mirror pod may not reference secrets"
    for volume in pod.spec.volumes or ():
        sources = volume.projected.sources if volume.projected else None
        if any(s.service_account_token is not None for s in sources or ()):
            return "a mirror pod may not use ServiceAccountToken volume projections"
    return None


class ServiceAccountAdmission:
    """The plugin's mutating hook over one server."""

    def __init__(self, server: APIServer) -> None:
        self._server = server

    def _stored(self, namespace: str, name: str) -> ServiceAccount | None:
        try:  # one key, decoded once per stored version (the server's shared decode cache)
            return self._server.get(ServiceAccount, name, namespace)
        except NotFound:
            return None

    def lookup(self, namespace: str, name: str) -> ServiceAccount | None:
        sa = self._stored(namespace, name)
        if sa is None and name == DEFAULT_ACCOUNT and self._server.account_syncers:
            for sync in self._server.account_syncers:
                sync(namespace)
            sa = self._stored(namespace, name)
        return sa

    def __call__(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or request.subresource or not isinstance(pod, Pod):
            return
        if MIRROR_POD in (pod.metadata.annotations or {}):
            why = _mirror_refusal(pod)
            if why is not None:
                raise forbidden("pods", pod, why)
            return
        namespace = pod.metadata.namespace or ""
        name = pod.spec.service_account_name or pod.spec.service_account or DEFAULT_ACCOUNT
        pod.spec.service_account_name = pod.spec.service_account = name
        sa = self.lookup(namespace, name)
        if sa is None:
            raise forbidden("pods", pod, f"error looking up service account {namespace}/{name}: "
                                         f'serviceaccount "{name}" not found')
        if should_automount(sa, pod):
            mount_token(pod, volume_suffix(namespace))
        if not pod.spec.image_pull_secrets and sa.image_pull_secrets:
            pulls = sa.image_pull_secrets
            pod.spec.image_pull_secrets = [LocalObjectReference(name=ref.name) for ref in pulls]


def install(server: APIServer) -> None:
    """Add the hook for pods when both Pod and ServiceAccount are served."""
    if Pod in server.registry and ServiceAccount in server.registry:
        server.admission.add_mutating(Pod, ServiceAccountAdmission(server), main_resource_only=True)


