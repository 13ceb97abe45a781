"""The projected API-credentials volume the ``ServiceAccount`` admission plugin adds to a pod.

Upstream (semantics only): ``plugin/pkg/admission/serviceaccount/admission.go`` ``TokenVolumeSource``
and ``mountServiceAccountToken``: a volume ``kube-api-access-XXXXX`` projecting a bound token
(``serviceAccountToken`` path ``token``, ``expirationSeconds`` 3607 =
``serviceaccount.WarnOnlyBoundTokenExpirationSeconds``), the ``kube-root-ca.crt`` ConfigMap's ``ca.crt``
and the pod's namespace (downward API ``metadata.namespace``), ``defaultMode`` 420 (0644) set
explicitly; mounted read-only at ``/var/run/secrets/kubernetes.io/serviceaccount`` in every init
container and container that has no mount there yet (ephemeral containers get none). The volume is
added only when some container took the mount.

kbatch difference (determinism, cost): upstream draws the five suffix characters at random per pod
(``names.SimpleNameGenerator``); kbatch derives them from the pod's namespace alone, in the
generateName alphabet. The server's rng (uids, generated names) is not drawn from, and the pods of
one namespace (a Job's, an Indexed Job's whose generateName differs per index, bare pods) carry the
same volume and mounts, so their
containers stay equal and the decoded-object cache shares them as it did before (a name that
differed per pod made every container distinct). A volume name only has to be unique within its
pod.

The volume and mount put into a pod are the ones ``api_access_volume.api_access`` keeps per name,
read only (what a write stores is shared and read only anyway, ``kbatch.api.frozen``): nothing is
built or copied per pod, and the validation fast path recognises the volume by identity.
"""

from __future__ import annotations

import functools
import hashlib

from kbatch.api.core_v1 import Pod
from kbatch.api.strategies.core.api_access_volume import (
    MOUNT_PATH,
    ROOT_CA_CONFIG_MAP,
    TOKEN_EXPIRATION_SECONDS,
    VOLUME_PREFIX,
    api_access,
)
from kbatch.apiserver.names import GENERATE_ALPHABET

__all__ = ["MOUNT_PATH", "ROOT_CA_CONFIG_MAP", "TOKEN_EXPIRATION_SECONDS", "VOLUME_PREFIX", "mount_token",
           "volume_suffix"]


@functools.lru_cache(maxsize=1024)
def volume_suffix(namespace: str) -> str:
    """Five characters of the generateName alphabet, a pure function of the pod's namespace (memoised:
    every pod of a namespace asks for the same)."""
    digest = int.from_bytes(hashlib.sha256(f"{namespace}/".encode()).digest()[:8], "big")
    out = []
    for _ in range(5):
        digest, index = divmod(digest, len(GENERATE_ALPHABET))
        out.append(GENERATE_ALPHABET[index])
    return "".join(out)


def _mounted(container: object) -> bool:
    return any(m.mount_path == MOUNT_PATH for m in getattr(container, "volume_mounts", None) or ())


def mount_token(pod: Pod, suffix: str) -> None:
    """Mount the volume into every init container and container without a mount at the path, and add
    the volume when one of them took it (``mountServiceAccountToken``). A pod that already has a
    volume named ``kube-api-access-…`` (one copied from another pod's manifest) gets that volume
    mounted and no second one, as upstream reuses the first such volume it finds."""
    existing = next((v.name for v in pod.spec.volumes or () if v.name.startswith(VOLUME_PREFIX)), None)
    name = existing or VOLUME_PREFIX + suffix
    volume, mount = api_access(name)
    needed = False
    for containers in (pod.spec.init_containers, pod.spec.containers):
        for container in containers or ():
            if _mounted(container):
                continue
            container.volume_mounts = [*(container.volume_mounts or ()), mount]
            needed = True
    if needed and existing is None:
        pod.spec.volumes = [*(pod.spec.volumes or ()), volume]
