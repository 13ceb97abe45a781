"""Upstream's RBAC authorizer tables, case by case, through :mod:`kbatch.authz`.

Source: kubernetes/kubernetes ``plugin/pkg/auth/authorizer/rbac/rbac_test.go`` (``TestAuthorizer``,
``TestRuleMatches``), read at the stored commit 00bdb3fa; the matchers they exercise
(``pkg/apis/rbac/v1/evaluation_helpers.go``) are unchanged through 1.37. ``TestAuthorizer``'s cases are
numbered as upstream indexes them (``case %d``); each shouldPass/shouldFail attribute is one row.
Upstream's ``newRule(verbs, groups, resources, urls)`` splits each argument on ``,``, so an empty
argument is the one-element list ``[""]``: kept as is here.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.authz.rbac import RbacSnapshot, authorize
from kbatch.authz.rules import rule_allows
from kbatch.authz.user import Attributes, UserInfo

GROUP = "rbac.authorization.k8s.io"


def _rule(verbs: str, groups: str, resources: str, urls: str) -> dict[str, Any]:
    return {"verbs": verbs.split(","), "apiGroups": groups.split(","), "resources": resources.split(","),
            "nonResourceURLs": urls.split(",")}


def _subjects(*subjects: str) -> list[dict[str, Any]]:
    out = []
    for s in subjects:
        kind, name = s.split(":", 1)
        out.append({"kind": kind, "name": name, "apiGroup": "" if kind == "ServiceAccount" else GROUP})
    return out


def _cluster_role(name: str, *rules: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": name}, "rules": list(rules)}


def _crb(role: str, *subjects: str) -> dict[str, Any]:
    return {"metadata": {"name": ""}, "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role},
            "subjects": _subjects(*subjects)}


def _rb(namespace: str, role: str, kind: str, *subjects: str) -> dict[str, Any]:
    return {"metadata": {"namespace": namespace, "name": ""},
            "roleRef": {"apiGroup": GROUP, "kind": kind, "name": role}, "subjects": _subjects(*subjects)}


def _attrs(user: str, groups: str, verb: str, resource: str, sub: str, ns: str, group: str) -> Attributes:
    """rbac_test.go ``defaultAttributes``: groups split on ``,`` (so ``""`` is the group ``""``)."""
    return Attributes(UserInfo(user, tuple(groups.split(","))), verb, namespace=ns, api_group=group,
                      resource=resource, subresource=sub)


def _url(verb: str, path: str, *, name: str = "", groups: tuple[str, ...] = ()) -> Attributes:
    return Attributes(UserInfo(name, groups), verb, resource_request=False, path=path)


ADMIN_NS1 = RbacSnapshot(cluster_roles=[_cluster_role("admin", _rule("*", "*", "*", "*"))],
                         role_bindings=[_rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")])
URLS = RbacSnapshot(
    cluster_roles=[_cluster_role("non-resource-url-getter", _rule("get", "", "", "/apis")),
                   _cluster_role("non-resource-url", _rule("*", "", "", "/apis")),
                   _cluster_role("non-resource-url-prefix", _rule("get", "", "", "/apis/*"))],
    cluster_role_bindings=[_crb("non-resource-url-getter", "User:foo", "Group:bar"),
                           _crb("non-resource-url", "User:admin", "Group:admin"),
                           _crb("non-resource-url-prefix", "User:prefixed", "Group:prefixed")])
PODS_ONLY = RbacSnapshot(cluster_roles=[_cluster_role("admin", _rule("*", "*", "pods", "*"))],
                         role_bindings=[_rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")])
POD_STATUS = RbacSnapshot(cluster_roles=[_cluster_role("admin", _rule("*", "*", "pods/status", "*"))],
                          role_bindings=[_rb("ns1", "admin", "ClusterRole", "User:admin", "Group:admins")])

AUTHORIZER_ROWS = [
    # case 0: a ClusterRole bound in ns1 by a RoleBinding
    ("0", ADMIN_NS1, _attrs("admin", "", "get", "Pods", "", "ns1", ""), True),
    ("0", ADMIN_NS1, _attrs("admin", "", "watch", "Pods", "", "ns1", ""), True),
    ("0", ADMIN_NS1, _attrs("admin", "group1", "watch", "Foobar", "", "ns1", ""), True),
    ("0", ADMIN_NS1, _attrs("joe", "admins", "watch", "Foobar", "", "ns1", ""), True),
    ("0", ADMIN_NS1, _attrs("joe", "group1,admins", "watch", "Foobar", "", "ns1", ""), True),
    ("0", ADMIN_NS1, _attrs("admin", "", "GET", "Pods", "", "ns2", ""), False),
    ("0", ADMIN_NS1, _attrs("admin", "", "GET", "Nodes", "", "", ""), False),
    ("0", ADMIN_NS1, _attrs("admin", "admins", "GET", "Pods", "", "ns2", ""), False),
    ("0", ADMIN_NS1, _attrs("admin", "admins", "GET", "Nodes", "", "", ""), False),
    # case 1: non-resource URLs
    ("1", URLS, _url("get", "/apis", name="foo"), True),
    ("1", URLS, _url("get", "/apis", groups=("bar",)), True),
    ("1", URLS, _url("get", "/apis", name="admin"), True),
    ("1", URLS, _url("get", "/apis", groups=("admin",)), True),
    ("1", URLS, _url("watch", "/apis", name="admin"), True),
    ("1", URLS, _url("watch", "/apis", groups=("admin",)), True),
    ("1", URLS, _url("get", "/apis/v1", name="prefixed"), True),
    ("1", URLS, _url("get", "/apis/v1", groups=("prefixed",)), True),
    ("1", URLS, _url("get", "/apis/v1/foobar", name="prefixed"), True),
    ("1", URLS, _url("get", "/apis/v1/foorbar", groups=("prefixed",)), True),
    ("1 wrong verb", URLS, _url("watch", "/apis", name="foo"), False),
    ("1 wrong verb", URLS, _url("watch", "/apis", groups=("bar",)), False),
    ("1 wrong path", URLS, _url("get", "/api/v1", name="foo"), False),
    ("1 wrong path", URLS, _url("get", "/api/v1", groups=("bar",)), False),
    ("1 wrong path", URLS, _url("get", "/api/v1", name="admin"), False),
    ("1 wrong path", URLS, _url("get", "/api/v1", groups=("admin",)), False),
    ("1 not covered by prefix", URLS, _url("get", "/api/v1", name="prefixed"), False),
    ("1 not covered by prefix", URLS, _url("get", "/api/v1", groups=("prefixed",)), False),
    # case 2 and 3: subresource resolution
    ("2", PODS_ONLY, _attrs("admin", "", "get", "pods", "", "ns1", ""), True),
    ("2", PODS_ONLY, _attrs("admin", "", "get", "pods", "status", "ns1", ""), False),
    ("3", POD_STATUS, _attrs("admin", "", "get", "pods", "status", "ns1", ""), True),
    ("3", POD_STATUS, _attrs("admin", "", "get", "pods", "", "ns1", ""), False),
]


@pytest.mark.parametrize(("case", "snapshot", "attrs", "allowed"), AUTHORIZER_ROWS,
                         ids=[f"case{r[0]}-{i}" for i, r in enumerate(AUTHORIZER_ROWS)])
def test_authorizer(case: str, snapshot: RbacSnapshot, attrs: Attributes, allowed: bool) -> None:
    """rbac_test.go ``TestAuthorizer``."""
    assert authorize(attrs, snapshot).allowed is allowed


def _res(verb: str, group: str, resource: str, sub: str = "") -> Attributes:
    return Attributes(UserInfo(), verb, api_group=group, resource=resource, subresource=sub)


def _nonres(verb: str, url: str) -> Attributes:
    return Attributes(UserInfo(), verb, resource_request=False, path=url)


Row = tuple[dict[str, Any], Attributes, bool]


def _grid(rule: dict[str, Any], allowed: set[tuple[str, str, str]]) -> list[Row]:
    """Every verb1/verb2, group1/group2, resource1/resource2 request, allowed when listed."""
    return [(rule, _res(v, g, r), (v, g, r) in allowed)
            for v in ("verb1", "verb2") for g in ("group1", "group2") for r in ("resource1", "resource2")]


def _r(verbs: list[str], groups: list[str], resources: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "apiGroups": groups, "resources": resources}


def _u(verbs: list[str], urls: list[str]) -> dict[str, Any]:
    return {"verbs": verbs, "nonResourceURLs": urls}


URLS5 = ("/foo", "/foo/bar", "/foo/baz", "/foo/bar/one", "/foo/baz/one")
RULE_ROWS: list[tuple[str, dict[str, Any], Attributes, bool]] = [
    *[("star verb, exact match other", *row) for row in _grid(
        _r(["*"], ["group1"], ["resource1"]),
        {("verb1", "group1", "resource1"), ("verb2", "group1", "resource1")})],
    *[("star group, exact match other", *row) for row in _grid(
        _r(["verb1"], ["*"], ["resource1"]),
        {("verb1", "group1", "resource1"), ("verb1", "group2", "resource1")})],
    *[("star resource, exact match other", *row) for row in _grid(
        _r(["verb1"], ["group1"], ["*"]),
        {("verb1", "group1", "resource1"), ("verb1", "group1", "resource2")})],
    *[("tuple expansion", *row) for row in _grid(
        _r(["verb1", "verb2"], ["group1", "group2"], ["resource1", "resource2"]),
        {(v, g, r) for v in ("verb1", "verb2") for g in ("group1", "group2")
         for r in ("resource1", "resource2")})],
    *[("subresource expansion", _r(["*"], ["*"], ["resource1/subresource1"]), _res(v, g, r, s), ok)
      for v in ("verb1", "verb2") for g, r, s, ok in (
          ("group1", "resource1", "subresource1", True), ("group2", "resource1", "subresource2", False),
          ("group1", "resource2", "subresource1", False), ("group2", "resource2", "subresource1", False))],
    *[("star nonresource, exact match other", _u(["verb1"], ["*"]), _nonres(v, url), v == "verb1")
      for v in ("verb1", "verb2") for url in URLS5],
    *[("star nonresource subpath", _u(["verb1"], ["/foo/*"]), _nonres("verb1", url), ok) for url, ok in (
        ("/foo", False), ("/foo/bar", True), ("/foo/baz", True), ("/foo/bar/one", True),
        ("/foo/baz/one", True),
        ("/notfoo", False), ("/notfoo/bar", False), ("/notfoo/baz", False), ("/notfoo/bar/one", False),
        ("/notfoo/baz/one", False))],
    *[("star verb, exact nonresource", _u(["*"], ["/foo", "/foo/bar/one"]), _nonres(v, url),
       url in ("/foo", "/foo/bar/one")) for v in ("verb1", "verb2") for url in URLS5],
]


@pytest.mark.parametrize(("name", "rule", "attrs", "allowed"), RULE_ROWS,
                         ids=[f"{r[0]}-{i}" for i, r in enumerate(RULE_ROWS)])
def test_rule_matches(name: str, rule: dict[str, Any], attrs: Attributes, allowed: bool) -> None:
    """rbac_test.go ``TestRuleMatches``."""
    assert rule_allows(attrs, rule) is allowed


_word = st.text(alphabet="abcxyz/*", min_size=0, max_size=6)


@given(verb=_word, group=_word, resource=_word, sub=_word, name=_word)
def test_an_all_star_rule_allows_every_resource_request(verb: str, group: str, resource: str, sub: str,
                                                        name: str) -> None:
    """cluster-admin's first rule covers every resource request (what ``*`` means in each field)."""
    attrs = Attributes(UserInfo(), verb, api_group=group, resource=resource, subresource=sub, name=name)
    assert rule_allows(attrs, _r(["*"], ["*"], ["*"]))


@given(verb=_word, group=_word, resource=_word, name=_word)
def test_a_rule_without_a_star_allows_only_its_own_tuple(verb: str, group: str, resource: str,
                                                         name: str) -> None:
    """Without ``*``, a rule allows exactly the verb/group/resource/name it lists (exact match)."""
    rule = {"verbs": ["get"], "apiGroups": ["batch"], "resources": ["jobs"], "resourceNames": ["pi"]}
    attrs = Attributes(UserInfo(), verb, api_group=group, resource=resource, name=name)
    expected = (verb, group, resource, name) == ("get", "batch", "jobs", "pi")
    assert rule_allows(attrs, rule) is expected
