"""The Node authorizer against k8s.io/kubernetes ``plugin/pkg/auth/authorizer/node/node_authorizer_test.go``
(1.37): ``TestNodeAuthorizer``'s table over the sample data ``generate`` builds (the rows of the
selector-enabled variant, AuthorizeNodeWithSelectors being GA), ``TestNodeAuthorizerSharedResources``,
the reasons upstream gives, and the graph's invariants under random writes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.selectors import parse_field_selector
from kbatch.authz.node_authorizer import NodeAuthorizer
from kbatch.authz.node_graph import SECRET, NodeGraph
from kbatch.authz.node_graph_populator import GraphPopulator
from kbatch.authz.rbac import Decision
from kbatch.authz.user import Attributes, UserInfo
from kbatch.families.rbac.bootstrap_policy import GATE_DEFAULTS
from kbatch.families.rbac.policy_builders import Gates
from kbatch.families.rbac.policy_cluster import node_rules

Obj = dict[str, Any]
NODE0 = UserInfo("system:node:node0", ("system:nodes",))
UNREGISTERED = UserInfo("system:node:nodeunregistered", ("system:nodes",))
RULES = tuple(node_rules(Gates(None, GATE_DEFAULTS)))
ALLOW, NO = True, False


def _pod(name: str, namespace: str, node: str, account: str) -> tuple[Obj, list[Obj]]:
    """``generatePod`` with TestNodeAuthorizer's options: one unique secret, the shared ``secret0-shared``,
    one unique config map, one unique claim (and its PV with a flexVolume secret), a ResourceClaim,
    a claim template with no claim yet and one with its generated claim."""
    pv_name = f"pv0-{name}-{namespace}"
    claim = f"pvc0-{name}"
    volumes = [
        {"name": "s", "secret": {"secretName": f"secret0-{name}"}},
        {"name": "shared", "secret": {"secretName": "secret0-shared"}},
        {"name": "c", "configMap": {"name": f"configmap0-{name}"}},
        {"name": "p", "persistentVolumeClaim": {"claimName": claim}},
    ]
    template = f"claimtemplate0-{name}-{namespace}"
    pod = {
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "spec": {
            "nodeName": node,
            "serviceAccountName": account,
            "volumes": volumes,
            "resourceClaims": [
                {"name": "claim0", "resourceClaimName": f"claim0-{name}-{namespace}"},
                {"name": "claimtemplate0", "resourceClaimTemplateName": template},
                {"name": "claimtemplate-with-claim0", "resourceClaimTemplateName": template},
            ],
        },
        "status": {
            "resourceClaimStatuses": [
                {
                    "name": "claimtemplate-with-claim0",
                    "resourceClaimName": f"generated-claim-{name}-{namespace}-0",
                }
            ]
        },
    }
    pv = {
        "metadata": {"name": pv_name},
        "spec": {
            "flexVolume": {"secretRef": {"name": f"secret-{pv_name}"}},
            "claimRef": {"name": claim, "namespace": namespace},
        },
    }
    return pod, [pv]


def _sample() -> NodeGraph:
    """``generate`` (2 nodes, 2 namespaces, 2 pods a node, 1 attachment, 3 slices a node) and
    ``populate``."""
    populator = GraphPopulator(NodeGraph())
    for n in range(2):
        node = f"node{n}"
        for p in range(2):
            pod, pvs = _pod(f"pod{p}-{node}", f"ns{p % 2}", node, f"svcacct{p}-{node}")
            populator.apply("pods", "ADDED", pod)
            for pv in pvs:
                populator.apply("persistentvolumes", "ADDED", pv)
        populator.apply(
            "volumeattachments.storage.k8s.io",
            "ADDED",
            {"metadata": {"name": f"attachment0-{node}"}, "spec": {"nodeName": node}},
        )
        for s in range(3):
            populator.apply(
                "resourceslices.resource.k8s.io",
                "ADDED",
                {"metadata": {"name": f"slice{s}-{node}"}, "spec": {"nodeName": node}},
            )
    populator.graph.check_invariants()
    return populator.graph


GRAPH = _sample()
AUTHZ = NodeAuthorizer(lambda: GRAPH, RULES)


def attrs(
    verb: str,
    resource: str,
    name: str = "",
    namespace: str = "",
    *,
    group: str = "",
    sub: str = "",
    selector: str = "",
    user: UserInfo = NODE0,
) -> Attributes:
    return Attributes(
        user,
        verb,
        namespace=namespace,
        api_group=group,
        resource=resource,
        subresource=sub,
        name=name,
        field_selector=parse_field_selector(selector).requirements,
    )


LEASES, CSI, DRA = "coordination.k8s.io", "storage.k8s.io", "resource.k8s.io"
TABLE: list[tuple[str, Attributes, bool]] = [
    ("allowed configmap", attrs("get", "configmaps", "configmap0-pod0-node0", "ns0"), ALLOW),
    ("allowed secret via pod", attrs("get", "secrets", "secret0-pod0-node0", "ns0"), ALLOW),
    ("list allowed secret via pod", attrs("list", "secrets", "secret0-pod0-node0", "ns0"), ALLOW),
    ("watch allowed secret via pod", attrs("watch", "secrets", "secret0-pod0-node0", "ns0"), ALLOW),
    ("disallowed list many secrets", attrs("list", "secrets", "", "ns0"), NO),
    ("disallowed watch many secrets", attrs("watch", "secrets", "", "ns0"), NO),
    (
        "disallowed list secrets from all namespaces with name",
        attrs("list", "secrets", "secret0-pod0-node0"),
        NO,
    ),
    ("allowed shared secret via pod", attrs("get", "secrets", "secret0-shared", "ns0"), ALLOW),
    ("allowed shared secret via pvc", attrs("get", "secrets", "secret-pv0-pod0-node0-ns0", "ns0"), ALLOW),
    ("allowed pvc", attrs("get", "persistentvolumeclaims", "pvc0-pod0-node0", "ns0"), ALLOW),
    (
        "allowed resource claim",
        attrs("get", "resourceclaims", "claim0-pod0-node0-ns0", "ns0", group=DRA),
        ALLOW,
    ),
    (
        "allowed resource claim with template",
        attrs("get", "resourceclaims", "generated-claim-pod0-node0-ns0-0", "ns0", group=DRA),
        ALLOW,
    ),
    ("allowed pv", attrs("get", "persistentvolumes", "pv0-pod0-node0-ns0"), ALLOW),
    ("disallowed configmap", attrs("get", "configmaps", "configmap0-pod0-node1", "ns0"), NO),
    ("disallowed secret via pod", attrs("get", "secrets", "secret0-pod0-node1", "ns0"), NO),
    ("disallowed shared secret via pvc", attrs("get", "secrets", "secret-pv0-pod0-node1-ns0", "ns0"), NO),
    ("disallowed pvc", attrs("get", "persistentvolumeclaims", "pvc0-pod0-node1", "ns0"), NO),
    (
        "disallowed resource claim, other node",
        attrs("get", "resourceclaims", "claim0-pod0-node1-ns0", "ns0", group=DRA),
        NO,
    ),
    (
        "disallowed resource claim with template",
        attrs("get", "resourceclaims", "pod0-node1-claimtemplate0", "ns0", group=DRA),
        NO,
    ),
    ("disallowed pv", attrs("get", "persistentvolumes", "pv0-pod0-node1-ns0"), NO),
    ("allowed attachment", attrs("get", "volumeattachments", "attachment0-node0", group=CSI), ALLOW),
    (
        "allowed svcacct token create",
        attrs("create", "serviceaccounts", "svcacct0-node0", "ns0", sub="token"),
        ALLOW,
    ),
    (
        "disallowed svcacct token create - serviceaccount not attached to node",
        attrs("create", "serviceaccounts", "svcacct0-node1", "ns0", sub="token"),
        NO,
    ),
    (
        "disallowed svcacct token create - no subresource",
        attrs("create", "serviceaccounts", "svcacct0-node0", "ns0"),
        NO,
    ),
    (
        "disallowed svcacct token create - non create",
        attrs("update", "serviceaccounts", "svcacct0-node0", "ns0", sub="token"),
        NO,
    ),
    *[
        (
            f"disallowed {verb} lease in namespace other than kube-node-lease",
            attrs(verb, "leases", "node0", "foo", group=LEASES),
            NO,
        )
        for verb in ("get", "create", "update", "patch", "delete")
    ],
    *[
        (
            f"disallowed {verb} another node's lease",
            attrs(verb, "leases", "node1", "kube-node-lease", group=LEASES),
            NO,
        )
        for verb in ("get", "update", "patch", "delete")
    ],
    *[
        (f"disallowed {verb} node leases", attrs(verb, "leases", "", "kube-node-lease", group=LEASES), NO)
        for verb in ("list", "watch")
    ],
    *[
        (f"allowed {verb} node lease", attrs(verb, "leases", "node0", "kube-node-lease", group=LEASES), ALLOW)
        for verb in ("get", "create", "update", "patch", "delete")
    ],
    (
        "disallowed CSINode with subresource",
        attrs("get", "csinodes", "node0", group=CSI, sub="csiDrivers"),
        NO,
    ),
    *[
        (f"disallowed {verb} another node's CSINode", attrs(verb, "csinodes", "node1", group=CSI), NO)
        for verb in ("get", "update", "patch", "delete")
    ],
    *[(f"disallowed {verb} CSINodes", attrs(verb, "csinodes", group=CSI), NO) for verb in ("list", "watch")],
    *[
        (f"allowed {verb} CSINode", attrs(verb, "csinodes", "node0", group=CSI), ALLOW)
        for verb in ("get", "create", "update", "patch", "delete")
    ],
    (
        "disallowed ResourceSlice with subresource",
        attrs("get", "resourceslices", "slice0-node0", group=DRA, sub="status"),
        NO,
    ),
    *[
        (
            f"disallowed {verb} another node's ResourceSlice",
            attrs(verb, "resourceslices", "slice0-node1", group=DRA),
            NO,
        )
        for verb in ("get", "update", "patch", "delete")
    ],
    (
        "allowed filtered list ResourceSlices",
        attrs("list", "resourceslices", group=DRA, selector="nodeName==node0"),
        ALLOW,
    ),
    ("disallowed unfiltered list ResourceSlices", attrs("list", "resourceslices", group=DRA), NO),
    (
        "allowed filtered watch ResourceSlices",
        attrs("watch", "resourceslices", group=DRA, selector="nodeName==node0"),
        ALLOW,
    ),
    ("disallowed unfiltered watch ResourceSlices", attrs("watch", "resourceslices", group=DRA), NO),
    *[
        (f"allowed {verb} ResourceSlice", attrs(verb, "resourceslices", "slice0-node0", group=DRA), ALLOW)
        for verb in ("get", "create", "update", "patch", "delete")
    ],
    ("get related pod", attrs("get", "pods", "pod0-node0", "ns0"), ALLOW),
    ("get unrelated pod", attrs("get", "pods", "pod0-node1", "ns0"), NO),
    ("list related pods", attrs("list", "pods", selector="spec.nodeName=node0"), ALLOW),
    ("list related pods - alternate selector", attrs("list", "pods", selector="spec.nodeName==node0"), ALLOW),
    ("list single related pod", attrs("list", "pods", "pod0-node0", "ns0"), ALLOW),
    ("list unrelated pods", attrs("list", "pods"), NO),
    ("watch related pods", attrs("watch", "pods", selector="spec.nodeName=node0"), ALLOW),
    (
        "watch related pods - alternate selector",
        attrs("watch", "pods", selector="spec.nodeName==node0"),
        ALLOW,
    ),
    ("watch single related pod", attrs("watch", "pods", "pod0-node0", "ns0"), ALLOW),
    ("watch unrelated pods", attrs("watch", "pods"), NO),
    ("create unnamed pod", attrs("create", "pods", "", "ns0"), ALLOW),
    ("create pod proxy subresource forbidden", attrs("create", "pods", "", "ns0", sub="proxy"), NO),
    ("delete related pod", attrs("delete", "pods", "pod0-node0", "ns0"), ALLOW),
    ("delete unrelated pod", attrs("delete", "pods", "pod0-node1", "ns0"), ALLOW),  # NodeRestriction's
    ("delete pod proxy subresource forbidden", attrs("delete", "pods", "pod0-node0", "ns0", sub="proxy"), NO),
    *[
        (f"{verb} {which} pod status", attrs(verb, "pods", f"pod0-{node}", "ns0", sub="status"), ALLOW)
        for verb in ("update", "patch")
        for which, node in (("related", "node0"), ("unrelated", "node1"))
    ],
    ("get pod status", attrs("get", "pods", "pod0-node0", "ns0", sub="status"), NO),
    ("create related pod eviction", attrs("create", "pods", "pod0-node0", "ns0", sub="eviction"), ALLOW),
    ("create unrelated pod eviction", attrs("create", "pods", "pod0-node1", "ns0", sub="eviction"), ALLOW),
    ("get related unregistered node", attrs("get", "nodes", "nodeunregistered", user=UNREGISTERED), ALLOW),
    ("get related node", attrs("get", "nodes", "node0"), ALLOW),
    ("get unrelated node", attrs("get", "nodes", "node1"), NO),
    ("list single related node", attrs("list", "nodes", "node0"), ALLOW),
    ("list single unrelated node", attrs("list", "nodes", "node1"), NO),
    ("list all nodes", attrs("list", "nodes"), NO),
    ("watch single related node", attrs("watch", "nodes", "node0"), ALLOW),
    ("watch single unrelated node", attrs("watch", "nodes", "node1"), NO),
    ("watch all nodes", attrs("watch", "nodes"), NO),
    ("create node", attrs("create", "nodes"), ALLOW),
    *[
        (f"{verb} {which} node{sub and ' status'}", attrs(verb, "nodes", node, sub=sub), ALLOW)
        for verb in ("update", "patch")
        for sub in ("", "status")
        for which, node in (("related", "node0"), ("unrelated", "node1"))
    ],
]


@pytest.mark.parametrize(("name", "request_attrs", "allowed"), TABLE, ids=[row[0] for row in TABLE])
def test_node_authorizer(name: str, request_attrs: Attributes, allowed: bool) -> None:
    assert AUTHZ.authorize(request_attrs).allowed is allowed


def test_the_static_node_rules_decide_other_resources() -> None:
    assert AUTHZ.authorize(attrs("list", "services")).allowed
    assert AUTHZ.authorize(attrs("create", "events", "", "ns0")).allowed
    assert AUTHZ.authorize(attrs("create", "tokenreviews", group="authentication.k8s.io")).allowed
    assert not AUTHZ.authorize(attrs("list", "jobs", group="batch")).allowed


def test_a_user_that_is_not_a_node_gets_no_opinion_and_no_reason() -> None:
    jane = UserInfo("jane", ("system:authenticated",))
    assert AUTHZ.authorize(attrs("get", "secrets", "secret0-pod0-node0", "ns0", user=jane)) == Decision(False)
    nameless = UserInfo("system:node:", ("system:nodes",))
    assert (
        AUTHZ.authorize(attrs("get", "nodes", "x", user=nameless)).reason
        == 'unknown node for user "system:node:"'
    )


@pytest.mark.parametrize(
    ("request_attrs", "reason"),
    [
        (
            attrs("get", "secrets", "secret0-pod0-node1", "ns0"),
            "no relationship found between node 'node0' and this object",
        ),
        (attrs("list", "secrets", "", "ns0"), "No Object name found"),
        (attrs("create", "secrets", "", "ns0"), "can only read resources of this type"),
        (attrs("get", "secrets", "x", "ns0", sub="status"), "cannot read subresource"),
        (attrs("get", "secrets", "x"), "can only read namespaced object of this type"),
        (attrs("list", "persistentvolumes"), "can only get individual resources of this type"),
        (
            attrs("get", "persistentvolumeclaims", "x", "ns0", sub="status"),
            "can only get/update/patch this type",
        ),
        (attrs("list", "pods"), "can only list/watch pods with spec.nodeName field selector"),
        (attrs("list", "nodes"), "node 'node0' cannot read all nodes, only its own Node object"),
        (attrs("get", "nodes", "node1"), "node 'node0' cannot read 'node1', only its own Node object"),
        (
            attrs("watch", "leases", "", "kube-node-lease", group=LEASES),
            "can only get, create, update, patch, or delete a node lease",
        ),
        (
            attrs("get", "leases", "node0", "default", group=LEASES),
            'can only access leases in the "kube-node-lease" system namespace',
        ),
        (
            attrs("get", "leases", "node1", "kube-node-lease", group=LEASES),
            "can only access node lease with the same name as the requesting node",
        ),
        (
            attrs("get", "csinodes", "node1", group=CSI),
            "can only access CSINode with the same name as the requesting node",
        ),
        (
            attrs("list", "resourceslices", group=DRA),
            "can only list/watch/deletecollection resourceslices with nodeName field selector",
        ),
        (
            attrs("create", "serviceaccounts", "", "ns0", sub="token"),
            "can only create tokens for individual service accounts",
        ),
        (
            attrs("create", "serviceaccounts", "svcacct0-node0", "ns0", sub="x"),
            "can only create token subresource of serviceaccount",
        ),
        (attrs("get", "pods", "pod0-node0", "ns0", sub="log"), ""),
    ],
)
def test_reasons(request_attrs: Attributes, reason: str) -> None:
    assert AUTHZ.authorize(request_attrs) == Decision(False, reason)


def test_a_service_account_of_a_pod_on_the_node_may_be_read() -> None:
    """KEP-4412 (KubeletServiceAccountTokenForCredentialProviders, on in 1.37): get of a related account."""
    assert AUTHZ.authorize(attrs("get", "serviceaccounts", "svcacct0-node0", "ns0")).allowed
    assert not AUTHZ.authorize(attrs("get", "serviceaccounts", "svcacct0-node1", "ns0")).allowed


def _secret_pod(name: str, node: str, secrets: list[str]) -> Obj:
    return {
        "metadata": {"name": name, "namespace": "ns1", "uid": name},
        "spec": {"nodeName": node, "volumes": [{"name": s, "secret": {"secretName": s}} for s in secrets]},
    }


def test_shared_resources() -> None:
    """``TestNodeAuthorizerSharedResources``: a secret shared by pods on several nodes, and a pod
    written again without it."""
    populator = GraphPopulator(NodeGraph())
    authz = NodeAuthorizer(lambda: populator.graph, RULES)
    populator.apply(
        "pods", "ADDED", _secret_pod("pod1-node1", "node1", ["node1-only", "node1-node2-only", "shared-all"])
    )
    populator.apply("pods", "ADDED", _secret_pod("pod2-node2", "node2", ["node1-node2-only", "shared-all"]))
    populator.apply("pods", "ADDED", _secret_pod("pod3-node3", "node3", ["shared-all"]))

    def get(node: str, secret: str) -> bool:
        user = UserInfo(f"system:node:{node}", ("system:nodes",))
        return authz.authorize(attrs("get", "secrets", secret, "ns1", user=user)).allowed

    expected = {
        ("node1", "node1-only"): True,
        ("node1", "node1-node2-only"): True,
        ("node1", "shared-all"): True,
        ("node2", "node1-only"): False,
        ("node2", "node1-node2-only"): True,
        ("node2", "shared-all"): True,
        ("node3", "node1-only"): False,
        ("node3", "node1-node2-only"): False,
        ("node3", "shared-all"): True,
    }
    assert {key: get(*key) for key in expected} == expected
    # upstream writes the same pod again with no volumes; here the pod is recreated (a new uid), since
    # the populator, as upstream's, only writes a pod again when its node, uid or claim statuses change
    populator.apply(
        "pods",
        "MODIFIED",
        {
            **_secret_pod("pod3-node3", "node3", []),
            "metadata": {"name": "pod3-node3", "namespace": "ns1", "uid": "new"},
        },
    )
    assert not get("node3", "shared-all")
    assert get("node2", "shared-all")


def test_a_deleted_pod_takes_its_references_along() -> None:
    populator = GraphPopulator(NodeGraph())
    pod = _secret_pod("p", "node1", ["s"])
    populator.apply("pods", "ADDED", pod)
    assert populator.graph.has_path("node1", (SECRET, "ns1", "s"))
    populator.apply("pods", "DELETED", pod)
    assert populator.graph.vertices() == []


def test_a_mirror_pod_grants_nothing_but_itself() -> None:
    populator = GraphPopulator(NodeGraph())
    pod = _secret_pod("static", "node1", ["s"])
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    populator.apply("pods", "ADDED", pod)
    assert populator.graph.vertices() == [("node", "", "node1"), ("pod", "ns1", "static")]


def test_an_unbound_pod_is_not_in_the_graph_until_it_is_bound() -> None:
    populator = GraphPopulator(NodeGraph())
    pod = _secret_pod("p", "", ["s"])
    populator.apply("pods", "ADDED", pod)
    assert populator.graph.vertices() == []
    pod["spec"]["nodeName"] = "node1"
    populator.apply("pods", "MODIFIED", pod)
    assert populator.graph.has_path("node1", (SECRET, "ns1", "s"))


# -- property: what a node may read is what its pods reference ---------------------------------------

NODES = ("n0", "n1", "n2")
SECRETS = ("a", "b", "c", "d")
_pod_write = st.tuples(
    st.sampled_from(("p0", "p1", "p2", "p3")),
    st.sampled_from(NODES),
    st.lists(st.sampled_from(SECRETS), max_size=3),
    st.booleans(),
    st.integers(0, 2),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_pod_write, max_size=25))
def test_a_node_is_never_allowed_a_secret_no_pod_on_it_references(writes: list[Any]) -> None:
    """After any sequence of pod creates, rebinds (a new uid) and deletes, a node may get exactly the
    secrets some pod bound to it references."""
    populator = GraphPopulator(NodeGraph())
    authz = NodeAuthorizer(lambda: populator.graph, RULES)
    live: dict[str, Obj] = {}
    for name, node, secrets, delete, generation in writes:
        if delete and name in live:
            populator.apply("pods", "DELETED", live.pop(name))
            continue
        pod = _secret_pod(name, node, secrets)
        pod["metadata"]["uid"] = f"{name}-{node}-{generation}"
        populator.apply("pods", "MODIFIED" if name in live else "ADDED", pod)
        live[name] = (
            pod if name not in live or live[name]["metadata"]["uid"] != pod["metadata"]["uid"] else live[name]
        )
    populator.graph.check_invariants()
    for node in NODES:
        user = UserInfo(f"system:node:{node}", ("system:nodes",))
        referenced = {
            v["secret"]["secretName"]
            for p in live.values()
            if p["spec"]["nodeName"] == node
            for v in p["spec"]["volumes"]
        }
        allowed = {
            s for s in SECRETS if authz.authorize(attrs("get", "secrets", s, "ns1", user=user)).allowed
        }
        assert allowed == referenced
