"""``PUT /api/v1/namespaces/{name}/finalize`` (upstream ``FinalizeREST`` with
``namespaceFinalizeStrategy``, pkg/registry/core/namespace): the only write that changes
``spec.finalizers``; status is the stored one; a terminating namespace left with no finalizers is
deleted by the write itself (ShouldDeleteNamespaceDuringUpdate). The common way to unstick a
namespace (``kubectl replace --raw /api/v1/namespaces/NAME/finalize -f -``)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Namespace
from kbatch.api.strategies.core import NamespaceFinalizeStrategy

AppClient = Any
NS = "/api/v1/namespaces"


def _create(api: AppClient, name: str, finalizers: list[str]) -> dict[str, Any]:
    resp = api.post(NS, json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                              "spec": {"finalizers": finalizers}})
    assert resp.status_code == 201, resp.text
    return resp.json()


def test_finalize_unsticks_a_terminating_namespace(api: AppClient) -> None:
    _create(api, "stuck", ["example.com/hold"])
    assert api.delete(f"{NS}/stuck").status_code == 200
    ns = api.get(f"{NS}/stuck").json()  # held by a finalizer no controller will ever remove
    assert ns["status"]["phase"] == "Terminating"
    assert "example.com/hold" in ns["spec"]["finalizers"]
    ns["spec"]["finalizers"] = []
    resp = api.request("PUT", f"{NS}/stuck/finalize", json=ns)
    assert resp.status_code == 200, resp.text
    assert api.get(f"{NS}/stuck").status_code == 404


def test_finalize_sets_spec_finalizers_and_keeps_status(api: AppClient) -> None:
    ns = _create(api, "live", [])
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    ns["spec"]["finalizers"] = ["kubernetes", "example.com/extra"]
    ns["status"] = {"phase": "Terminating"}
    out = api.request("PUT", f"{NS}/live/finalize", json=ns).json()
    assert out["spec"]["finalizers"] == ["kubernetes", "example.com/extra"]
    assert out["status"] == {"phase": "Active"}
    # a main-resource update cannot change them (namespaceStrategy.PrepareForUpdate)
    out["spec"]["finalizers"] = []
    again = api.request("PUT", f"{NS}/live", json=out).json()
    assert again["spec"]["finalizers"] == ["kubernetes", "example.com/extra"]


def test_finalize_validates_names_at_their_index(api: AppClient) -> None:
    ns = _create(api, "names", [])
    ns["spec"]["finalizers"] = ["kubernetes", "notqualified"]
    resp = api.request("PUT", f"{NS}/names/finalize", json=ns)
    assert resp.status_code == 422
    causes = resp.json()["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.finalizers[1]"]
    assert api.get(f"{NS}/names").json()["spec"]["finalizers"] == ["kubernetes"]  # nothing written


def test_finalize_is_put_only(api: AppClient) -> None:
    _create(api, "verbs", [])
    assert api.get(f"{NS}/verbs/finalize").status_code == 405
    patch = api.request("PATCH", f"{NS}/verbs/finalize", json={"spec": {"finalizers": []}},
                        headers={"Content-Type": "application/merge-patch+json"})
    assert patch.status_code == 405


_NAME = st.text("abcxyz-./", min_size=1, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(_NAME, max_size=4))
def test_finalizer_name_rule(names: list[str]) -> None:
    """A name is accepted iff it is a qualified name and, without a '/', a standard finalizer."""
    from kbatch.api.validation import is_qualified_name

    ns = Namespace.model_validate({"metadata": {"name": "n"}, "spec": {"finalizers": names}})
    errors = NamespaceFinalizeStrategy().validate_update(ns, ns)
    standard = ("kubernetes", "orphan", "foregroundDeletion")
    bad = {i for i, n in enumerate(names) if is_qualified_name(n) or ("/" not in n and n not in standard)}
    assert {e.field for e in errors} == {f"spec.finalizers[{i}]" for i in bad}


def test_discovery_and_openapi_offer_finalize_as_update_only(api: AppClient) -> None:
    """``FinalizeREST`` implements only ``rest.Updater`` (kubernetes
    ``pkg/registry/core/namespace/storage/storage.go``): a 1.37 apiserver's discovery lists
    ``namespaces/finalize`` with ``["update"]`` and its OpenAPI has only the ``put`` operation
    (``replaceNamespaceFinalize``); ``namespaces/status`` keeps get, patch and update."""
    legacy = {r["name"]: r["verbs"] for r in api.get("/api/v1").json()["resources"]}
    assert legacy["namespaces/finalize"] == ["update"]
    assert legacy["namespaces/status"] == ["get", "patch", "update"]
    aggregated = api.get("/api", headers={
        "Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}).json()
    namespaces = next(r for r in aggregated["items"][0]["versions"][0]["resources"]
                      if r["resource"] == "namespaces")
    assert {s["subresource"]: s["verbs"] for s in namespaces["subresources"]} == {
        "status": ["get", "patch", "update"], "finalize": ["update"]}
    paths = api.get("/openapi/v3/api/v1").json()["paths"]
    assert set(paths["/api/v1/namespaces/{name}/finalize"]) == {"put"}
    assert api.get(f"{NS}/default/finalize").status_code == 405
