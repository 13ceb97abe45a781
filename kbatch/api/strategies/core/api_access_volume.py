"""The ``kube-api-access-XXXXX`` projected volume and its mount, as the ``ServiceAccount`` admission
plugin adds them to every pod, and the pod-validation fast path's recognition of them.

Upstream (semantics only): ``plugin/pkg/admission/serviceaccount/admission.go`` ``TokenVolumeSource``
and ``mountServiceAccountToken`` (Kubernetes 1.37): a bound token (``serviceAccountToken`` path
``token``, ``expirationSeconds`` 3607), the ``kube-root-ca.crt`` ConfigMap's ``ca.crt``, the pod's
namespace (downward API ``metadata.namespace``), ``defaultMode`` 420; mounted read-only at
``/var/run/secrets/kubernetes.io/serviceaccount``.

Every pod carries them, so :func:`kbatch.api.strategies.core.pod_validation.plain_spec_valid`
recognises exactly this volume (under a valid name) and exactly its mount instead of sending every
pod down the general ``ValidatePodSpec`` path, which finds nothing wrong with them
(tests/api/test_validation_fast_paths.py checks the agreement). :data:`SOURCE` is shared and read
only: the plugin puts it into each pod, with one shared volume and mount per volume name
(:func:`api_access`).
"""

from __future__ import annotations

import functools

from kbatch.api.core_v1 import (
    ConfigMapProjection,
    DownwardAPIProjection,
    DownwardAPIVolumeFile,
    KeyToPath,
    ObjectFieldSelector,
    ProjectedVolumeSource,
    ServiceAccountTokenProjection,
    Volume,
    VolumeMount,
    VolumeProjection,
)
from kbatch.api.frozen import freeze
from kbatch.api.validation import _is_dns1123_label

__all__ = ["MOUNT_PATH", "ROOT_CA_CONFIG_MAP", "SOURCE", "TOKEN_EXPIRATION_SECONDS", "VOLUME_PREFIX",
           "api_access", "plain_api_access_mount"]

VOLUME_PREFIX = "kube-api-access-"  # ServiceAccountVolumeName + "-"
MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"  # DefaultAPITokenMountPath
TOKEN_EXPIRATION_SECONDS = 3607  # 1 h + 7 s: WarnOnlyBoundTokenExpirationSeconds
ROOT_CA_CONFIG_MAP = "kube-root-ca.crt"
_DEFAULT_MODE = 420  # ProjectedVolumeSourceDefaultMode, 0644

SOURCE = ProjectedVolumeSource(default_mode=_DEFAULT_MODE, sources=[
    VolumeProjection(service_account_token=ServiceAccountTokenProjection(
        expiration_seconds=TOKEN_EXPIRATION_SECONDS, path="token")),
    VolumeProjection(config_map=ConfigMapProjection(
        name=ROOT_CA_CONFIG_MAP, items=[KeyToPath(key="ca.crt", path="ca.crt")])),
    VolumeProjection(downward_api=DownwardAPIProjection(items=[DownwardAPIVolumeFile(
        path="namespace",
        field_ref=ObjectFieldSelector(api_version="v1", field_path="metadata.namespace"))])),
])


def api_access(name: str) -> tuple[Volume, VolumeMount]:
    """The plugin's volume and mount under ``name``, one pair per name, shared and read only (the
    plugin puts them into every pod of a namespace, whose volume name is the same). Frozen each time
    they are handed out (:func:`kbatch.api.frozen.freeze`: strict mode, which the tests run, fails a
    change in place at once; a no-op otherwise)."""
    volume, mount = _api_access(name)
    return freeze(volume), freeze(mount)


@functools.lru_cache(maxsize=4096)
def _api_access(name: str) -> tuple[Volume, VolumeMount]:
    return (Volume(name=name, projected=SOURCE),
            VolumeMount(name=name, read_only=True, mount_path=MOUNT_PATH))


def plain_api_access_mount(volumes: list[Volume]) -> VolumeMount | None:
    """The plugin's mount when ``volumes`` is exactly the plugin's volume under a valid name (nothing
    else set), else ``None``: the volume is then valid, and so is a container whose only mount is
    the returned one."""
    if len(volumes) != 1:
        return None
    name = volumes[0].name
    if not name or _is_dns1123_label(name):
        return None
    volume, mount = api_access(name)
    return mount if volumes[0] is volume or volumes[0] == volume else None
