"""Aggregated discovery (``apidiscovery.k8s.io/v2``, KEP-3352): ``/api`` and ``/apis`` answer one
``APIGroupDiscoveryList`` to clients that ask for it, the legacy documents to the others; kubectl and
``kbatch --server`` then need two discovery requests per command.

Upstream: k8s.io/api ``apidiscovery/v2/types.go``; k8s.io/apiserver
``pkg/endpoints/discovery/aggregated/handler.go`` (content negotiation, ``Vary: Accept``).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.cli.remote import HttpBackend
from kbatch.server.aggregated_discovery import CONTENT_TYPE, wants_aggregated
from tests.server.test_kubectl import KUBECTL

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
CLIENT_GO = f"{V2},application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"


def _resource(doc: dict[str, Any], group: str, version: str, name: str) -> dict[str, Any]:
    item = next(i for i in doc["items"] if i["metadata"].get("name", "") == group)
    ver = next(v for v in item["versions"] if v["version"] == version)
    return next(r for r in ver["resources"] if r["resource"] == name)


def test_the_list_is_served_only_to_clients_that_ask(api: Any) -> None:
    aggregated = api.get("/apis", headers={"Accept": CLIENT_GO})
    assert aggregated.headers["content-type"] == CONTENT_TYPE
    assert aggregated.headers["vary"] == "Accept"
    assert aggregated.json()["kind"] == "APIGroupDiscoveryList"
    assert api.get("/apis").json()["kind"] == "APIGroupList"
    assert api.get("/api", headers={"Accept": "application/json"}).json()["kind"] == "APIVersions"
    only_beta = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
    assert api.get("/apis", headers={"Accept": only_beta}).json()["kind"] == "APIGroupList"


def test_resources_carry_scope_kind_verbs_and_subresources(api: Any) -> None:
    core = api.get("/api", headers={"Accept": V2}).json()
    assert [i["metadata"] for i in core["items"]] == [{"creationTimestamp": None}]
    pods = _resource(core, "", "v1", "pods")
    assert pods["responseKind"] == {"group": "", "version": "v1", "kind": "Pod"}
    assert (pods["scope"], pods["singularResource"], pods["shortNames"]) == ("Namespaced", "pod", ["po"])
    subs = {s["subresource"]: s for s in pods["subresources"]}
    assert subs["eviction"] == {"subresource": "eviction", "verbs": ["create"],
                                "responseKind": {"group": "policy", "version": "v1", "kind": "Eviction"}}
    assert subs["status"]["verbs"] == ["get", "patch", "update"] and subs["log"]["verbs"] == ["get"]
    assert _resource(core, "", "v1", "nodes")["scope"] == "Cluster"
    named = api.get("/apis", headers={"Accept": V2}).json()
    jobs = _resource(named, "batch", "v1", "jobs")
    assert jobs["responseKind"] == {"group": "batch", "version": "v1", "kind": "Job"}
    assert jobs["categories"] == ["all"] and jobs["verbs"] == api.get("/apis/batch/v1").json()[
        "resources"][0]["verbs"]
    kueue = next(i for i in named["items"] if i["metadata"]["name"] == "kueue.x-k8s.io")
    assert [v["version"] for v in kueue["versions"]] == ["v1beta2", "v1beta1"]  # preferred first


def test_every_legacy_resource_is_in_the_aggregated_list(api: Any) -> None:
    """Each legacy ``APIResourceList`` entry, main resource or subresource, appears once in the list
    under its group and version, with the same kind, scope and verbs."""
    named = api.get("/apis", headers={"Accept": V2}).json()["items"]
    core = api.get("/api", headers={"Accept": V2}).json()["items"]
    versions = [("", "v1")] + [(g["name"], v["version"]) for g in api.get("/apis").json()["groups"]
                               for v in g["versions"]]
    for group, version in versions:
        legacy = api.get(f"/apis/{group}/{version}" if group else "/api/v1").json()["resources"]
        item = next(i for i in (named if group else core) if i["metadata"].get("name", "") == group)
        got = {r["resource"]: r for v in item["versions"] if v["version"] == version for r in v["resources"]}
        for entry in legacy:
            name, _, sub = entry["name"].partition("/")
            resource = got[name]
            if sub:
                found = [s for s in resource["subresources"] if s["subresource"] == sub]
                assert len(found) == 1 and found[0]["verbs"] == entry["verbs"]
                assert found[0]["responseKind"]["kind"] == entry["kind"]
            else:
                assert resource["responseKind"]["kind"] == entry["kind"]
                assert resource["scope"] == ("Namespaced" if entry["namespaced"] else "Cluster")
                assert resource["verbs"] == entry["verbs"]


@given(st.permutations(["g=apidiscovery.k8s.io", "v=v2", "as=APIGroupDiscoveryList"]),
       st.sampled_from(["", " "]), st.booleans())
def test_accept_parameters_in_any_order(params: list[str], space: str, fallback_first: bool) -> None:
    media = f";{space}".join(["application/json", *params])
    accept = f"application/json,{media}" if fallback_first else f"{media},application/json"
    assert wants_aggregated(accept)
    assert not wants_aggregated(accept.replace("v=v2", "v=v2beta1").replace("application/json,", ""))


def test_kbatch_server_client_reads_the_same_kinds_either_way(served: Any) -> None:
    client = HttpBackend(served.url)
    try:
        aggregated = client._served_kinds()
        assert aggregated == client._legacy_served_kinds()
        assert ("batch/v1", "Job") in aggregated and ("v1", "Pod") in aggregated
    finally:
        client.close()


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")
def test_kubectl_discovers_with_two_requests(served: Any, tmp_path: Path) -> None:
    """kubectl (client-go's aggregated discovery client) asks ``/api`` and ``/apis`` only, then lists."""
    out = subprocess.run([KUBECTL, "get", "jobs", "-v=6", "--cache-dir", str(tmp_path)], env=served.env(),
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    paths = re.findall(r'"GET" url="?https?://[^/]+(/[^?" ]*)', out.stderr) or \
        re.findall(r"GET https?://[^/]+(/[^? ]*)", out.stderr)
    discovery = [p for p in paths if not p.endswith("/jobs")]
    assert discovery == ["/api", "/apis"], out.stderr
