"""NodeRestriction's audience rule (ServiceAccountNodeAudienceRestriction, beta and on in 1.37): the rows
of k8s.io/kubernetes ``test/integration/auth/node_test.go`` ``TestNodeRestrictionServiceAccountAudience``
against the in-process API server, a kubelet (``system:node:node1``) asking for tokens bound to its pod
(``plugin/pkg/admission/noderestriction/admission.go``), with and without the storage.k8s.io/v1
CSIDriver the volumes lead to; and the rule over several volumes as upstream's ``podReferencesAudience``
runs it (1.37): a failed lookup does not stop the search, the failures are reported together only
when no volume references the audience."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch import ControlPlane
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.apiserver.requester import acting_as
from kbatch.authz.user import UserInfo

NODE1 = UserInfo("system:node:node1", ("system:nodes", "system:authenticated"))
NOT_AUTHORIZED = "system:node:node1 is not authorized to request tokens for this audience"
OBJECTS = """
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: v1
kind: Node
metadata: {name: node1}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: mypv}
spec:
  accessModes: [ReadOnlyMany]
  capacity: {storage: "1"}
  claimRef: {namespace: ns, name: mypvc}
  csi: {driver: com.example.csi.mydriver, volumeHandle: handle}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: mypvc, namespace: ns}
spec:
  accessModes: [ReadOnlyMany]
  resources: {requests: {storage: "1"}}
  volumeName: mypv
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: default, namespace: ns}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: some-random-name, namespace: ns}
"""


def _control_plane(gates: str = "") -> ControlPlane:
    cp = ControlPlane(seed=1, controllers="", feature_gates=gates or None)
    cp.apply(OBJECTS)
    return cp


def _pod(cp: ControlPlane, volumes: list[dict[str, Any]], account: str = "default") -> Pod:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod1", "namespace": "ns"},
           "spec": {"nodeName": "node1", "serviceAccountName": account, "automountServiceAccountToken": False,
                    "containers": [{"name": "c", "image": "busybox"}], "volumes": volumes}}
    cp.apply(pod)
    return cp.server.get(Pod, "pod1", "ns")


def _request(cp: ControlPlane, pod: Pod, audiences: list[str], account: str = "default") -> str | None:
    """The refusal's message (``None``: the token was issued)."""
    ref = {"apiVersion": "v1", "kind": "Pod", "name": pod.metadata.name, "uid": pod.metadata.uid}
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
            "spec": {"audiences": audiences, "boundObjectRef": ref}}
    try:
        with acting_as(NODE1):
            cp.server.create_token("ns", account, body)
    except Forbidden as err:
        return err.message
    return None


def _projected(audience: str) -> dict[str, Any]:
    return {"name": "foo", "projected": {"sources": [{"serviceAccountToken": {"audience": audience,
                                                                                "path": "path"}}]}}


EPHEMERAL = {"name": "foo", "ephemeral": {"volumeClaimTemplate": {"spec": {
    "accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1"}}, "volumeName": "mypv"}}}}
CSI_INLINE = {"name": "foo", "csi": {"driver": "com.example.csi.mydriver"}}


@pytest.mark.parametrize(("volumes", "audiences", "want"), [
    # projected volume source with empty audience works
    ([_projected("")], [""], None),
    # projected volume source with non-empty audience works
    ([_projected("projected-audience")], ["projected-audience"], None),
    # no audience at all asks for the empty one
    ([_projected("")], [], None),
    # pod --> csi --> driver: the CSIDriver is not found
    ([CSI_INLINE], ["csidrivernotfound-audience"],
     'error validating audience "csidrivernotfound-audience": '
     'csidriver.storage.k8s.io "com.example.csi.mydriver" not found'),
    # pod --> pvc --> pv --> csi --> driver: the CSIDriver is not found
    ([{"name": "foo", "persistentVolumeClaim": {"claimName": "mypvc"}}], ["pvc-csidrivernotfound-audience"],
     'error validating audience "pvc-csidrivernotfound-audience": '
     'csidriver.storage.k8s.io "com.example.csi.mydriver" not found'),
    # pod --> pvc --> pv --> csi --> driver: the claim is not found
    ([{"name": "foo", "persistentVolumeClaim": {"claimName": "mypvc1"}}], ["pvcnotfound-audience"],
     'error validating audience "pvcnotfound-audience": persistentvolumeclaim "mypvc1" not found'),
    # pod --> ephemeral --> pvc (pod1-foo, not made here) --> ...: the claim is not found
    ([EPHEMERAL], ["ephemeral-audience"],
     'error validating audience "ephemeral-audience": persistentvolumeclaim "pod1-foo" not found'),
    # the audience is in no volume, and nothing grants it
    ([], ["csidriver-audience-not-found"],
     f'audience "csidriver-audience-not-found" not found in pod spec volume, {NOT_AUTHORIZED}'),
    # token request with multiple audiences should be forbidden
    ([], ["audience1", "audience2"], "node may only request 0 or 1 audiences"),
])
def test_upstream_rows(volumes: list[dict[str, Any]], audiences: list[str], want: str | None) -> None:
    cp = _control_plane()
    got = _request(cp, _pod(cp, volumes), audiences)
    assert got == (None if want is None else f'serviceaccounts "default" is forbidden: {want}')


def test_the_ephemeral_claims_volume_leads_to_its_driver() -> None:
    cp = _control_plane()
    cp.apply({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
              "metadata": {"name": "pod1-foo", "namespace": "ns"},
              "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "1"}},
                       "volumeName": "mypv"}})
    got = _request(cp, _pod(cp, [EPHEMERAL]), ["a"])
    assert got is not None and got.endswith(
        'error validating audience "a": csidriver.storage.k8s.io "com.example.csi.mydriver" not found')


GRANT = """
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: audience-access-for-node1}
rules:
- apiGroups: [""]
  resources: [audience1]
  verbs: [request-serviceaccounts-token-audience]
  resourceNames: [%s]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: %s
metadata: {name: audience-access-for-node1%s}
subjects: [{kind: User, name: "system:node:node1"}]
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: audience-access-for-node1}
"""


@pytest.mark.parametrize(("binding", "namespace"), [("ClusterRoleBinding", ""),
                                                     ("RoleBinding", ", namespace: ns")])
def test_rbac_grants_an_audience_for_one_service_account(binding: str, namespace: str) -> None:
    """"clusterrole and clusterrolebinding allowing node1 to request audience1 should work", and the
    rolebinding in a namespace: the resource is the audience, the name the service account."""
    cp = _control_plane()
    pod = _pod(cp, [], account="some-random-name")
    denied = f'serviceaccounts "some-random-name" is forbidden: audience "audience1" not found in pod spec ' \
             f"volume, {NOT_AUTHORIZED}"
    assert _request(cp, pod, ["audience1"], "some-random-name") == denied
    cp.apply(GRANT % ("some-random-name", binding, namespace))
    assert _request(cp, pod, ["audience1"], "some-random-name") is None
    assert _request(cp, pod, ["audience2"], "some-random-name") == denied.replace("audience1", "audience2")


def test_the_gate_off_admits_any_audience() -> None:
    cp = _control_plane("ServiceAccountNodeAudienceRestriction=false")
    assert _request(cp, _pod(cp, []), ["anything", "else"]) is None


def test_a_user_that_is_not_a_node_is_not_limited() -> None:
    cp = _control_plane()
    pod = _pod(cp, [])
    ref = {"apiVersion": "v1", "kind": "Pod", "name": "pod1", "uid": pod.metadata.uid}
    out, _ = cp.server.create_token("ns", "default", {"spec": {"audiences": ["x"], "boundObjectRef": ref}})
    assert out["status"]["token"]


DRIVER = """
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: com.example.csi.mydriver}
spec:
  tokenRequests: [{audience: csidriver-audience}, {audience: other-audience, expirationSeconds: 3600}]
"""
PVC = {"name": "foo", "persistentVolumeClaim": {"claimName": "mypvc"}}


@pytest.mark.parametrize(("volumes", "audience", "want"), [
    # pod --> csi --> driver --> tokenrequest with audience works
    ([CSI_INLINE], "csidriver-audience", None),
    # pod --> pvc --> pv --> csi --> driver --> tokenrequest with audience works
    ([PVC], "other-audience", None),
    # csidriver exists but tokenrequest audience not found should be forbidden
    ([], "csidriver-audience-not-found",
     f'audience "csidriver-audience-not-found" not found in pod spec volume, {NOT_AUTHORIZED}'),
    # pvc and csidriver exist but the tokenrequest audience is not the driver's
    ([PVC], "csidriver-audience-not-found",
     f'audience "csidriver-audience-not-found" not found in pod spec volume, {NOT_AUTHORIZED}'),
])
def test_upstream_rows_with_the_driver(volumes: list[dict[str, Any]], audience: str,
                                       want: str | None) -> None:
    cp = _control_plane()
    cp.apply(DRIVER)
    got = _request(cp, _pod(cp, volumes), [audience])
    assert got == (None if want is None else f'serviceaccounts "default" is forbidden: {want}')


def _named(volume: dict[str, Any], name: str) -> dict[str, Any]:
    return {**volume, "name": name}


def test_a_failed_lookup_does_not_hide_a_later_volume_with_the_audience() -> None:
    cp = _control_plane()
    missing_claim = {"name": "a", "persistentVolumeClaim": {"claimName": "absent"}}
    pod = _pod(cp, [missing_claim, _named(CSI_INLINE, "b"), _named(_projected("late"), "c")])
    assert _request(cp, pod, ["late"]) is None


def test_every_failed_lookup_is_reported_when_no_volume_has_the_audience() -> None:
    """``utilerrors.NewAggregate``: the distinct messages in volume order, in brackets."""
    cp = _control_plane()
    volumes = [{"name": "a", "persistentVolumeClaim": {"claimName": "absent"}}, _named(CSI_INLINE, "b"),
               _named(CSI_INLINE, "c"), _named(_projected("x"), "d")]
    got = _request(cp, _pod(cp, volumes), ["wanted"])
    assert got == ('serviceaccounts "default" is forbidden: error validating audience "wanted": '
                   '[persistentvolumeclaim "absent" not found, '
                   'csidriver.storage.k8s.io "com.example.csi.mydriver" not found]')
