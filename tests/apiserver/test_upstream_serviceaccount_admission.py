"""Upstream ``plugin/pkg/admission/serviceaccount/admission_test.go`` translated: each case goes
through kbatch's API as a user's pod does (a ControlPlane with the ServiceAccount plugin on and, where
the case needs it, the ``serviceaccount`` controller off). Upstream test names are cited per case.

Not translated (they do not apply to kbatch): TestIgnoresNilObject / TestIgnoresNonPodObject (a typed
API cannot hand the plugin a nil or non-pod object as a pod), TestGetServiceAccountTokens and the
legacy-secret-token cases (no secret-based tokens; no Secret kind here), and the
``kubernetes.io/enforce-mountable-secrets`` cases (TestRejectsUnreferencedSecretVolumes,
TestAllowsReferencedSecret, TestRejectsUnreferencedImagePullSecrets, ...): kbatch does not enforce
mountable secrets (docs/serviceaccounts.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Namespace, Pod, ServiceAccount
from kbatch.api.errors import Forbidden
from kbatch.apiserver.admission_plugins.service_account_volume import MOUNT_PATH, VOLUME_PREFIX

_UPSTREAM = "plugin/pkg/admission/serviceaccount/admission_test.go"


def plane(*, controller: bool = False) -> ControlPlane:
    """A control plane without the serviceaccount controller unless asked (upstream's tests hold the
    plugin alone, with accounts put in its lister)."""
    return ControlPlane(controllers="*" if controller else "*,-serviceaccount")


def account(cp: ControlPlane, name: str = "default", namespace: str = "myns", **fields: Any) -> None:
    _namespace(cp, namespace)
    cp.client.create(ServiceAccount.model_validate({"metadata": {"name": name, "namespace": namespace},
                                                    **fields}))


def _namespace(cp: ControlPlane, name: str) -> None:
    try:
        cp.client.get(Namespace, name)
    except Exception:
        cp.client.create(Namespace.model_validate({"metadata": {"name": name}}))


def pod(namespace: str = "myns", annotations: dict[str, str] | None = None, **spec: Any) -> Pod:
    spec.setdefault("containers", [{"name": "c", "image": "i"}])
    return Pod.model_validate({"metadata": {"name": "p", "namespace": namespace,
                                            "annotations": annotations or {}}, "spec": spec})


def _token_volumes(p: Pod) -> list[Any]:
    return [v for v in p.spec.volumes or () if v.name.startswith(VOLUME_PREFIX)]


def test_ignores_non_create() -> None:
    """TestIgnoresNonCreate: an update is not mutated (no account lookup, no volume added)."""
    cp = plane()
    account(cp)
    created = cp.client.create(pod(automountServiceAccountToken=False))
    cp.client.delete(ServiceAccount, "default", "myns")
    changed = created.model_copy(deep=True)
    changed.metadata.labels = {"a": "b"}
    updated = cp.client.update(changed)
    assert updated.spec.service_account_name == "default" and not _token_volumes(updated)


def test_ignores_mirror_pod() -> None:
    """TestIgnoresMirrorPod: a mirror pod is admitted unchanged (no account, no volume)."""
    cp = plane()
    _namespace(cp, "myns")
    created = cp.client.create(pod(annotations={"kubernetes.io/config.mirror": "x"}))
    assert not created.spec.service_account_name and not _token_volumes(created)


@pytest.mark.parametrize(("spec", "message"), [
    ({"serviceAccountName": "default"}, "a mirror pod may not reference service accounts"),
    ({"volumes": [{"name": "s", "secret": {"secretName": "x"}}]},
     "a mirror pod may not reference secrets"),  # TestRejectsMirrorPodWithSecretVolumes
    ({"volumes": [{"name": "s", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}]},
     "a mirror pod may not use ServiceAccountToken volume projections"),
    ({"containers": [{"name": "c", "image": "i", "env": [{"name": "E", "valueFrom": {"secretKeyRef": {
        "name": "s", "key": "k"}}}]}]}, "a mirror pod may not reference secrets"),
])
def test_rejects_mirror_pod_references(spec: dict[str, Any], message: str) -> None:
    """TestRejectsMirrorPodWithServiceAccount, ...WithSecretVolumes,
    ...WithServiceAccountTokenVolumeProjections, and the secret env var of TestRejectsMirrorPodWith..."""
    cp = plane()
    account(cp)
    with pytest.raises(Forbidden) as err:
        cp.client.create(pod(annotations={"kubernetes.io/config.mirror": "x"}, **spec))
    assert str(err.value.message).endswith(message)


def test_assigns_default_service_account_and_bound_token() -> None:
    """TestAssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens."""
    cp = plane()
    account(cp)
    created = cp.client.create(pod())
    assert created.spec.service_account_name == "default"
    assert created.spec.service_account == "default"  # the deprecated field, as v1 conversion writes it
    [volume] = _token_volumes(created)
    assert len(volume.name) == len(VOLUME_PREFIX) + 5
    sources = volume.projected.sources
    assert volume.projected.default_mode == 420
    assert (sources[0].service_account_token.path, sources[0].service_account_token.expiration_seconds) \
        == ("token", 3607)
    assert sources[1].config_map.name == "kube-root-ca.crt"
    assert [(i.key, i.path) for i in sources[1].config_map.items] == [("ca.crt", "ca.crt")]
    assert sources[2].downward_api.items[0].field_ref.field_path == "metadata.namespace"
    [mount] = created.spec.containers[0].volume_mounts
    assert (mount.name, mount.mount_path, mount.read_only) == (volume.name, MOUNT_PATH, True)


def test_fetches_uncached_service_account() -> None:
    """TestFetchesUncachedServiceAccount: an account created just before the pod is found."""
    cp = plane()
    account(cp, "other")
    assert cp.client.create(pod(serviceAccountName="other")).spec.service_account_name == "other"


def test_denies_invalid_service_account() -> None:
    """TestDeniesInvalidServiceAccount: a missing account is Forbidden with upstream's message."""
    cp = plane()
    _namespace(cp, "myns")
    with pytest.raises(Forbidden) as err:
        cp.client.create(pod())
    assert err.value.message == ('pods "p" is forbidden: error looking up service account myns/default: '
                                 'serviceaccount "default" not found')
    assert err.value.code == 403


def test_missing_default_account_is_made_by_the_running_controller() -> None:
    """Upstream retries a missing ``default`` account while the controller creates it; kbatch lets the
    controller in this process sync the namespace (docs/serviceaccounts.md)."""
    cp = plane(controller=True)
    cp.client.create(Namespace.model_validate({"metadata": {"name": "fresh"}}))  # no controller ran yet
    assert cp.client.create(pod(namespace="fresh")).spec.service_account_name == "default"


def test_a_named_account_is_not_waited_for() -> None:
    """Only ``default`` is retried upstream (numAttempts 1 for any other name)."""
    cp = plane(controller=True)
    cp.client.create(Namespace.model_validate({"metadata": {"name": "fresh"}}))
    with pytest.raises(Forbidden):
        cp.client.create(pod(namespace="fresh", serviceAccountName="builder"))


def test_automounts_api_token_in_init_containers_and_containers() -> None:
    """TestAutomountsAPIToken: every init container and container gets the mount, ephemeral none."""
    cp = plane()
    account(cp)
    created = cp.client.create(pod(initContainers=[{"name": "i", "image": "i"}]))
    [volume] = _token_volumes(created)
    for container in [*created.spec.init_containers, *created.spec.containers]:
        assert [(m.name, m.mount_path) for m in container.volume_mounts] == [(volume.name, MOUNT_PATH)]


def test_respects_existing_mount() -> None:
    """TestRespectsExistingMount: a container that mounts the path already is left alone, and with no
    container taking the mount no volume is added."""
    cp = plane()
    account(cp)
    mine = {"name": "mine", "mountPath": MOUNT_PATH}
    created = cp.client.create(pod(containers=[{"name": "c", "image": "i", "volumeMounts": [mine]}],
                                   volumes=[{"name": "mine", "emptyDir": {}}]))
    assert [m.name for m in created.spec.containers[0].volume_mounts] == ["mine"]
    assert not _token_volumes(created)


def test_an_existing_api_access_volume_is_mounted_and_not_added_again() -> None:
    """admission.go ``mountServiceAccountToken`` (no admission_test.go case): the first volume named
    ``kube-api-access-…`` is the token volume; containers without the mount get it, no second volume
    is added (a pod copied from another pod's manifest)."""
    cp = plane()
    account(cp)
    copied = {"name": "kube-api-access-own", "mountPath": MOUNT_PATH, "readOnly": True}
    created = cp.client.create(pod(
        containers=[{"name": "c", "image": "i", "volumeMounts": [copied]}, {"name": "d", "image": "i"}],
        volumes=[{"name": "kube-api-access-own", "emptyDir": {}}]))
    volume = "kube-api-access-own"
    assert [v.name for v in created.spec.volumes] == [volume]
    for container in created.spec.containers:
        assert [(m.name, m.mount_path) for m in container.volume_mounts] == [(volume, MOUNT_PATH)]


@pytest.mark.parametrize(("pod_says", "account_says", "mounted"), [
    (None, None, True), (None, True, True), (None, False, False),
    (True, None, True), (True, True, True), (True, False, True),
    (False, None, False), (False, True, False), (False, False, False),
])
def test_automount_service_account_token(pod_says: bool | None, account_says: bool | None,
                                         mounted: bool) -> None:
    """TestAutomountServiceAccountToken: the pod's preference wins, then the account's, else true."""
    cp = plane()
    account(cp, automountServiceAccountToken=account_says)
    spec = {} if pod_says is None else {"automountServiceAccountToken": pod_says}
    assert bool(_token_volumes(cp.client.create(pod(**spec)))) is mounted


def test_add_image_pull_secrets() -> None:
    """TestAddImagePullSecrets: a pod naming none gets the account's."""
    cp = plane()
    account(cp, imagePullSecrets=[{"name": "foo"}, {"name": "bar"}])
    created = cp.client.create(pod())
    assert [s.name for s in created.spec.image_pull_secrets] == ["foo", "bar"]


def test_do_not_add_image_pull_secrets() -> None:
    """TestDoNotAddImagePullSecrets: a pod naming its own keeps them."""
    cp = plane()
    account(cp, imagePullSecrets=[{"name": "foo"}, {"name": "bar"}])
    created = cp.client.create(pod(imagePullSecrets=[{"name": "foo"}]))
    assert [s.name for s in created.spec.image_pull_secrets] == ["foo"]


def test_deprecated_service_account_field_names_the_account() -> None:
    """v1 conversion (Convert_v1_PodSpec_To_core_PodSpec): an empty serviceAccountName takes the
    deprecated serviceAccount."""
    cp = plane()
    account(cp, "legacy")
    created = cp.client.create(pod(serviceAccount="legacy"))
    assert (created.spec.service_account_name, created.spec.service_account) == ("legacy", "legacy")


def test_plugin_can_be_disabled() -> None:
    """kube-apiserver --disable-admission-plugins=ServiceAccount: pods are admitted as they come."""
    cp = ControlPlane(controllers="*,-serviceaccount", disable_admission_plugins=("ServiceAccount",))
    _namespace(cp, "myns")
    created = cp.client.create(pod())
    assert not created.spec.service_account_name and not _token_volumes(created)
