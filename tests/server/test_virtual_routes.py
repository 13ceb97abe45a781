"""Routes of a virtual resource from its verbs, as k8s.io/apiserver ``pkg/endpoints/installer.go``
installs them for a storage: ``Creater`` → ``POST`` on the collection, ``Lister`` → ``GET`` on it
(also across namespaces for a namespaced one), ``Getter`` → ``GET`` of a name; any other path is
go-restful's 404, any other method on a path that exists its 405. Plus the reviews' protobuf bodies,
whose codec comes from the same declaration (``tools/gen_protobuf_schema.py``'s roots)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import MethodNotAllowed, NotFound
from kbatch.api.virtual import VirtualResource
from kbatch.families.core.virtual import VIRTUAL
from kbatch.server.protobuf import decode_object
from kbatch.server.protobuf.wire import encode_field as _field
from kbatch.server.virtual import virtual_verb

REVIEW = VirtualResource("g", "v1", "reviews", "Review", "m:f")
LOCAL_REVIEW = VirtualResource("g", "v1", "localreviews", "LocalReview", "m:f", namespaced=True)
NODES = VirtualResource("g", "v1", "nodes", "NodeMetrics", "m:f", verbs=("get", "list"))
PODS = VirtualResource("g", "v1", "pods", "PodMetrics", "m:f", namespaced=True, verbs=("get", "list"))
NF, NA = NotFound, MethodNotAllowed

CASES = [  # resource, method, namespace, name → verb or the error
    (REVIEW, "POST", None, None, "create"),
    (REVIEW, "GET", None, None, NA),          # no Lister: the collection path exists, the method not
    (REVIEW, "DELETE", None, None, NA),
    (REVIEW, "GET", None, "x", NF),           # no item routes at all
    (REVIEW, "POST", "ns", None, NF),         # cluster-scoped: no namespaced path
    (LOCAL_REVIEW, "POST", "ns", None, "create"),
    (LOCAL_REVIEW, "POST", None, None, NF),   # namespaced create needs its namespace
    (NODES, "GET", None, None, "list"),
    (NODES, "GET", None, "n", "get"),
    (NODES, "POST", None, None, NA),
    (NODES, "PUT", None, "n", NA),
    (NODES, "GET", "ns", None, NF),
    (PODS, "GET", None, None, "list"),        # across namespaces
    (PODS, "GET", "ns", None, "list"),
    (PODS, "GET", "ns", "p", "get"),
    (PODS, "GET", None, "p", NF),             # a name needs its namespace
    (PODS, "DELETE", "ns", None, NA),
]


@pytest.mark.parametrize(("resource", "method", "namespace", "name", "want"), CASES)
def test_routes_follow_the_verbs(resource: VirtualResource, method: str, namespace: str | None,
                                 name: str | None, want: object) -> None:
    if isinstance(want, str):
        assert virtual_verb(resource, method, namespace, name) == want
        return
    with pytest.raises(want) as caught:  # type: ignore[call-overload]
        virtual_verb(resource, method, namespace, name)
    message = "the server could not find the requested resource" if want is NF else \
        "the server does not allow this method on the requested resource"
    assert caught.value.message == message


@given(st.sampled_from(VIRTUAL), st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]),
       st.sampled_from([None, "ns"]), st.sampled_from([None, "x"]))
def test_a_route_that_answers_names_a_declared_verb(resource: VirtualResource, method: str,
                                                    namespace: str | None, name: str | None) -> None:
    """Whatever the request, the verb a route gives is one the resource declares (so discovery, which
    lists the declared verbs, never promises less than is served)."""
    try:
        verb = virtual_verb(resource, method, namespace, name)
    except (NotFound, MethodNotAllowed):
        return
    assert verb in resource.verbs


def test_a_protobuf_token_review_and_self_subject_review_read_as_their_json() -> None:
    """kubectl sends both as Kubernetes protobuf (authentication/v1 generated.proto: TokenReview spec 2,
    its token 1 and audiences 2; SelfSubjectReview has no spec)."""
    def envelope(kind: str, raw: bytes) -> bytes:
        type_meta = _field(1, b"authentication.k8s.io/v1") + _field(2, kind.encode())
        return b"k8s\x00" + _field(1, type_meta) + _field(2, raw)

    spec = _field(1, b"tok") + _field(2, b"api") + _field(2, b"vault")
    review = decode_object(envelope("TokenReview", _field(2, spec)))
    assert review["spec"] == {"token": "tok", "audiences": ["api", "vault"]}
    assert decode_object(envelope("SelfSubjectReview", b""))["kind"] == "SelfSubjectReview"
