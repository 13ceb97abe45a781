"""Table lists (``kubectl get``) are served whole; JSON lists page with ``limit``/``continue``."""

from __future__ import annotations

import copy
from typing import Any

PODS = "/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
       "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _create(api: Any, count: int) -> None:
    for i in range(count):
        body = copy.deepcopy(POD)
        body["metadata"]["name"] = f"p-{i}"
        assert api.post(PODS, json=body).status_code == 201


def test_table_list_declines_limit_and_returns_every_row(api: Any) -> None:
    _create(api, 5)
    table = api.get(PODS, params={"limit": 2}, headers={"Accept": TABLE}).json()
    assert table["kind"] == "Table" and [r["cells"][0] for r in table["rows"]] == [f"p-{i}" for i in range(5)]
    assert not table["metadata"].get("continue") and table["metadata"]["resourceVersion"]


def test_json_list_still_pages(api: Any) -> None:
    _create(api, 5)
    first = api.get(PODS, params={"limit": 2}).json()
    assert len(first["items"]) == 2 and first["metadata"]["continue"]
    rest = api.get(PODS, params={"limit": 10, "continue": first["metadata"]["continue"]}).json()
    assert [i["metadata"]["name"] for i in rest["items"]] == ["p-2", "p-3", "p-4"]


def test_table_list_honours_a_continue_token(api: Any) -> None:
    _create(api, 5)
    token = api.get(PODS, params={"limit": 2}).json()["metadata"]["continue"]
    table = api.get(PODS, params={"limit": 1, "continue": token}, headers={"Accept": TABLE}).json()
    assert [r["cells"][0] for r in table["rows"]] == ["p-2", "p-3", "p-4"]


def test_table_list_still_validates_limit(api: Any) -> None:
    assert api.get(PODS, params={"limit": "ten"}, headers={"Accept": TABLE}).status_code == 400
