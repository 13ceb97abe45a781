"""``resourceVersionMatch`` on a list over HTTP (api-concepts "resourceVersionMatch"; upstream
ValidateListOptions): Exact reads that revision, invalid combinations are 422 ListOptions errors."""

from __future__ import annotations

from typing import Any

AppClient = Any

PODS = "/api/v1/namespaces/default/pods"


def _pod(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "main", "image": "busybox"}]}}


def test_exact_and_not_older_than_over_http(api: AppClient) -> None:
    for name in ("a", "b"):
        assert api.post(PODS, json=_pod(name)).status_code == 201
    rv = api.get(PODS).json()["metadata"]["resourceVersion"]
    assert api.delete(f"{PODS}/a", params={"gracePeriodSeconds": "0"}).status_code == 200
    exact = api.get(PODS, params={"resourceVersion": rv, "resourceVersionMatch": "Exact"}).json()
    assert exact["metadata"]["resourceVersion"] == rv
    assert sorted(p["metadata"]["name"] for p in exact["items"]) == ["a", "b"]
    latest = api.get(PODS, params={"resourceVersion": rv, "resourceVersionMatch": "NotOlderThan"}).json()
    assert [p["metadata"]["name"] for p in latest["items"]] == ["b"]


def test_invalid_match_combinations_over_http(api: AppClient) -> None:
    cases = [({"resourceVersionMatch": "Exact"},
              "resourceVersionMatch is forbidden unless resourceVersion is provided"),
             ({"resourceVersion": "0", "resourceVersionMatch": "Exact"},
              'resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]
    for params, message in cases:
        resp = api.get(PODS, params=params)
        assert resp.status_code == 422, resp.text
        body = resp.json()
        assert body["reason"] == "Invalid"
        prefix = 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: '
        assert body["message"] == prefix + message
