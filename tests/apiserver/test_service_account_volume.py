"""Properties of the kube-api-access volume (kbatch/apiserver/admission_plugins/service_account_volume.py):
the derived suffix is always five generateName characters, and after mounting every init container
and container mounts the API path exactly once, with the volume present iff one of them took it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.apiserver.admission_plugins.service_account_volume import (
    MOUNT_PATH,
    VOLUME_PREFIX,
    mount_token,
    volume_suffix,
)
from kbatch.apiserver.names import GENERATE_ALPHABET
from kbatch.runtime.controlplane import ControlPlane


@given(st.text(max_size=70))
def test_suffix_is_five_generate_name_characters(namespace: str) -> None:
    suffix = volume_suffix(namespace)
    assert len(suffix) == 5 and set(suffix) <= set(GENERATE_ALPHABET)
    assert suffix == volume_suffix(namespace)  # a pure function


@given(st.lists(st.booleans(), max_size=3), st.lists(st.booleans(), min_size=1, max_size=3))
def test_each_container_mounts_the_path_once(init: list[bool], main: list[bool]) -> None:
    """Booleans: whether a container mounts the path already (its own volume ``own``)."""
    def container(i: int, kind: str, has: bool) -> dict:
        mounts = [{"name": "own", "mountPath": MOUNT_PATH}] if has else []
        return {"name": f"{kind}{i}", "image": "i", "volumeMounts": mounts}

    pod = Pod.model_validate({"metadata": {"name": "p"}, "spec": {
        "initContainers": [container(i, "i", has) for i, has in enumerate(init)],
        "containers": [container(i, "c", has) for i, has in enumerate(main)]}})
    mount_token(pod, "abcde")
    for c in [*(pod.spec.init_containers or ()), *pod.spec.containers]:
        assert [m.mount_path for m in c.volume_mounts or ()].count(MOUNT_PATH) == 1
    added = [v.name for v in pod.spec.volumes or ()]
    assert added == ([VOLUME_PREFIX + "abcde"] if not all([*init, *main]) else [])


def test_pods_of_one_namespace_share_the_volume_and_their_equal_containers() -> None:
    """The suffix is drawn from the namespace only (docs/serviceaccounts.md), so bare pods named one
    by one and pods of different generateNames (an Indexed Job's, one per index) carry the same
    volume name, and their equal containers stay one instance in the API server's decoded objects
    as they were before the plugin mounted anything."""
    cp = ControlPlane(controllers=[])
    for meta in ({"name": "p"}, {"name": "q"}, {"generateName": "job-0-"}, {"generateName": "job-1-"}):
        cp.apply({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                  "spec": {"containers": [{"name": "main", "image": "busybox"}]}})
    pods = cp.server.list(Pod, "default").items
    assert len(pods) == 4
    assert {p.spec.volumes[0].name for p in pods} == {VOLUME_PREFIX + volume_suffix("default")}
    assert {p.spec.containers[0].volume_mounts[0].name for p in pods} == {pods[0].spec.volumes[0].name}
    assert all(p.spec.containers[0] is pods[0].spec.containers[0] for p in pods)
