"""Who an ``Impersonate-*`` request acts as (k8s.io/apiserver
``pkg/endpoints/filters/impersonation/impersonation.go`` ``WithImpersonation`` and
``buildImpersonationRequests``; its ``impersonation_test.go`` cases where they translate: the
requester here is always system:masters, so the "not allowed to impersonate" rows do not apply) and
what a request asks (``pkg/endpoints/request/requestinfo.go``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import BadRequest
from kbatch.authz.impersonation import SA_PREFIX, impersonated_user, split_service_account
from kbatch.authz.request import forbidden, request_attributes
from kbatch.authz.user import UserInfo


def test_no_impersonation_headers_is_no_one() -> None:
    assert impersonated_user([("accept", "application/json")]) is None


def test_a_user_is_authenticated() -> None:
    """"impersonating-user-allowed": the user, with system:authenticated added."""
    user = impersonated_user([("impersonate-user", "tester")])
    assert user == UserInfo("tester", ("system:authenticated",))


def test_groups_are_kept_in_order_and_authenticated_is_appended() -> None:
    """"group-impersonation-allowed": every Impersonate-Group header, then system:authenticated."""
    user = impersonated_user([("impersonate-user", "tester"), ("impersonate-group", "wheel"),
                              ("impersonate-group", "sudoers")])
    assert user == UserInfo("tester", ("wheel", "sudoers", "system:authenticated"))


def test_a_service_account_gets_its_groups_unless_groups_are_given() -> None:
    """"allowed-sa-impersonating": the service-account groups; given groups replace them."""
    sa = "system:serviceaccount:foo:default"
    assert impersonated_user([("impersonate-user", sa)]) == UserInfo(
        sa, ("system:serviceaccounts", "system:serviceaccounts:foo", "system:authenticated"))
    assert impersonated_user([("impersonate-user", sa), ("impersonate-group", "g")]) == UserInfo(
        sa, ("g", "system:authenticated"))


def test_a_malformed_service_account_name_is_a_plain_user() -> None:
    """``SplitUsername`` refuses it, so it is a User impersonation without service-account groups."""
    user = impersonated_user([("impersonate-user", "system:serviceaccount:Foo:x:y")])
    assert user == UserInfo("system:serviceaccount:Foo:x:y", ("system:authenticated",))


@pytest.mark.parametrize(("namespace", "name"), [("foo", "default"), ("kube-system", "a.b-c")])
def test_a_service_account_name_ending_in_a_newline_is_a_plain_user(namespace: str, name: str) -> None:
    """``SplitUsername`` checks the namespace with ``IsDNS1123Label`` and the name with
    ``IsDNS1123Subdomain``, Go regexps whose ``$`` is the end of the text: ``"default\\n"`` is no
    name (a Python ``$`` anchor matched before the final newline)."""
    sa = f"{SA_PREFIX}{namespace}:{name}"
    assert impersonated_user([("impersonate-user", sa)]) == UserInfo(
        sa, ("system:serviceaccounts", f"system:serviceaccounts:{namespace}", "system:authenticated"))
    for bad in (f"{sa}\n", f"{SA_PREFIX}{namespace}\n:{name}"):
        assert impersonated_user([("impersonate-user", bad)]) == UserInfo(bad, ("system:authenticated",))


_LABEL = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?", fullmatch=True)


@given(namespace=_LABEL, name=st.lists(_LABEL, min_size=1, max_size=3).map(".".join),
       where=st.sampled_from(["namespace", "name"]))
def test_no_part_ending_in_a_newline_splits(namespace: str, name: str, where: str) -> None:
    """A DNS-1123 label or subdomain never ends in a newline, whatever precedes it."""
    assert split_service_account(f"{SA_PREFIX}{namespace}:{name}") == (namespace, name)
    bad = f"{SA_PREFIX}{namespace}\n:{name}" if where == "namespace" else f"{SA_PREFIX}{namespace}:{name}\n"
    assert split_service_account(bad) is None


def test_anonymous_is_unauthenticated() -> None:
    """"impersonating-anonymous": system:unauthenticated, not system:authenticated."""
    assert impersonated_user([("impersonate-user", "system:anonymous")]) == UserInfo(
        "system:anonymous", ("system:unauthenticated",))


def test_a_given_authenticated_group_is_not_repeated() -> None:
    user = impersonated_user([("impersonate-user", "u"), ("impersonate-group", "system:authenticated")])
    assert user == UserInfo("u", ("system:authenticated",))


def test_extra_and_uid_are_kept() -> None:
    user = impersonated_user([("impersonate-user", "u"), ("impersonate-extra-scopes", "a"),
                              ("impersonate-extra-scopes", "b"),
                              ("impersonate-extra-acme.com%2Fproject", "p"),
                              ("impersonate-uid", "1234")])
    assert user is not None and user.uid == "1234"
    assert user.extra == (("acme.com/project", ("p",)), ("scopes", ("a", "b")))


def test_groups_without_a_user_is_a_bad_request() -> None:
    """"impersonating-group-without-user": the 400 names the requests."""
    with pytest.raises(BadRequest) as err:
        impersonated_user([("impersonate-group", "some-group")])
    assert err.value.message == "requested [{Group  some-group    }] without impersonating a user"


@pytest.mark.parametrize(("method", "path", "watch", "expected"), [
    ("GET", "/api/v1/namespaces/x/pods", False, ("list", "x", "", "pods", "", "")),
    ("GET", "/api/v1/namespaces/x/pods", True, ("watch", "x", "", "pods", "", "")),
    ("GET", "/api/v1/namespaces/x/pods/p", False, ("get", "x", "", "pods", "p", "")),
    ("GET", "/api/v1/namespaces/x/pods/p/log", False, ("get", "x", "", "pods", "p", "log")),
    ("POST", "/api/v1/namespaces/x/pods/p/eviction", False, ("create", "x", "", "pods", "p", "eviction")),
    ("PUT", "/apis/batch/v1/namespaces/x/jobs/j/status", False,
     ("update", "x", "batch", "jobs", "j", "status")),
    ("PATCH", "/apis/batch/v1/namespaces/x/jobs/j", False, ("patch", "x", "batch", "jobs", "j", "")),
    ("DELETE", "/apis/batch/v1/namespaces/x/jobs/j", False, ("delete", "x", "batch", "jobs", "j", "")),
    ("DELETE", "/apis/batch/v1/namespaces/x/jobs", False, ("deletecollection", "x", "batch", "jobs", "", "")),
    ("GET", "/api/v1/namespaces/x", False, ("get", "x", "", "namespaces", "x", "")),
    ("PUT", "/api/v1/namespaces/x/finalize", False, ("update", "x", "", "namespaces", "x", "finalize")),
    ("GET", "/api/v1/nodes", False, ("list", "", "", "nodes", "", "")),
    ("GET", "/apis/batch/v1/jobs", False, ("list", "", "batch", "jobs", "", "")),
], ids=lambda v: str(v))
def test_request_attributes(method: str, path: str, watch: bool, expected: tuple[str, ...]) -> None:
    """requestinfo.go's verbs, namespaces (``namespaces/<ns>`` alone is the namespace itself, and its
    ``status``/``finalize`` are its subresources) and subresources."""
    attrs = request_attributes(UserInfo("u"), method, path, watch=watch)
    assert attrs.resource_request
    got = (attrs.verb, attrs.namespace, attrs.api_group, attrs.resource, attrs.name, attrs.subresource)
    assert got == expected


@pytest.mark.parametrize("path", ["/api", "/api/v1", "/apis", "/apis/batch", "/apis/batch/v1", "/version",
                                  "/openapi/v2", "/healthz"])
def test_discovery_paths_are_non_resource_requests(path: str) -> None:
    attrs = request_attributes(UserInfo("u"), "GET", path, watch=False)
    assert (attrs.resource_request, attrs.verb, attrs.path) == (False, "get", path)


def test_forbidden_messages() -> None:
    """responsewriters.ForbiddenStatusError: resource and name, cluster scope, non-resource path."""
    named = request_attributes(UserInfo("jane"), "GET", "/apis/batch/v1/namespaces/x/jobs/pi", watch=False)
    assert forbidden(named, "").message == ('jobs.batch "pi" is forbidden: User "jane" cannot get resource '
                                            '"jobs" in API group "batch" in the namespace "x"')
    nodes = request_attributes(UserInfo("jane"), "GET", "/api/v1/nodes", watch=False)
    assert forbidden(nodes, "RBAC: x").message == ('nodes is forbidden: User "jane" cannot list resource '
                                                   '"nodes" in API group "" at the cluster scope: RBAC: x')
    path = request_attributes(UserInfo("jane"), "GET", "/metrics", watch=False)
    assert forbidden(path, "").message == 'forbidden: User "jane" cannot get path "/metrics"'


@given(name=st.text(min_size=1, max_size=12).filter(lambda n: n != "system:anonymous"),
       groups=st.lists(st.text(max_size=8), max_size=3))
def test_an_impersonated_user_is_always_in_one_of_the_all_groups(name: str, groups: list[str]) -> None:
    """Whatever the headers, the user ends up in system:authenticated or system:unauthenticated, and
    every group it was given, in order, comes first."""
    headers = [("impersonate-user", name), *(("impersonate-group", g) for g in groups)]
    user = impersonated_user(headers)
    assert user is not None and user.name == name
    assert {"system:authenticated", "system:unauthenticated"} & set(user.groups)
    if groups:
        assert list(user.groups[:len(groups)]) == groups
