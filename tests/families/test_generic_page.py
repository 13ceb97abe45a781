"""kubectl's generic describe page (``kbatch/families/core/generic_page.py``), case by case from
k8s.io/kubectl ``pkg/describe/describe_test.go`` at v0.36.3 (``TestDescribeUnstructuredContent``,
``TestSmartLabelFor``), and the page's layout (``genericDescriber.Describe``)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.families.core.generic_page import generic_page, go_value, smart_label, unstructured_lines

NOW = datetime(2025, 1, 1, 0, 5, tzinfo=UTC)

# TestDescribeUnstructuredContent's object and skip list
UNSTRUCTURED = {
    "apiVersion": "v1", "kind": "Test", "dummyDummy": "present", "dummy/dummy": "present",
    "dummy-dummy@dummy": "present", "dummy-dummy": "present", "dummy1": "present", "dummy2": "present",
    "metadata": {"name": "MyName", "namespace": "MyNamespace", "creationTimestamp": "2017-04-01T00:00:00Z",
                 "resourceVersion": 123, "uid": "00000000-0000-0000-0000-000000000001", "dummy3": "present"},
    "items": [{"itemBool": True, "itemInt": 42}],
    "url": "http://localhost", "status": "ok",
}


def test_describe_unstructured_content_expected() -> None:
    text = "\n".join(unstructured_lines(UNSTRUCTURED, skip=(".dummy1", ".metadata.dummy3"))) + "\n"
    assert """API Version:\tv1
Dummy - Dummy:\tpresent
dummy-dummy@dummy:\tpresent
dummy/dummy:\tpresent
dummy2:\tpresent
Dummy Dummy:\tpresent
Items:
  Item Bool:\ttrue
  Item Int:\t42
Kind:\tTest
Metadata:
  Creation Timestamp:\t2017-04-01T00:00:00Z
  Name:\tMyName
  Namespace:\tMyNamespace
  Resource Version:\t123
  UID:\t00000000-0000-0000-0000-000000000001
Status:\tok
URL:\thttp://localhost
""" in text


@pytest.mark.parametrize("unexpected", ["\nDummy 1:\tpresent\n", "Dummy 1", "Dummy 3", "Dummy3", "dummy3",
                                        "dummy 3"])
def test_describe_unstructured_content_unexpected(unexpected: str) -> None:
    text = "\n".join(unstructured_lines(UNSTRUCTURED, skip=(".dummy1", ".metadata.dummy3"))) + "\n"
    assert unexpected not in text


@pytest.mark.parametrize(("field", "label"), [
    ("simpleField", "Simple Field"), ("respectPDBs", "Respect PDBs"), ("respectPDB", "Respect PDB"),
    ("apiURL", "API URL"), ("kubeAPI", "Kube API"), ("userUID", "User UID"),
    ("HTTPSProxy", "HTTPSProxy"), ("customCRDs", "Custom CRDs"),
])
def test_smart_label_for(field: str, label: str) -> None:
    assert smart_label(field) == label


def test_values_print_as_gos_v_verb() -> None:
    """kubectl's ``printUnstructuredContent`` prints ``%v`` of content read from the server's JSON:
    a whole float64 below 1e21 was written as an integer (``encoding/json`` ``floatEncoder``) and
    decodes as an ``int64`` (apimachinery ``pkg/util/json``), so 1e6 prints ``1000000``; any other
    float is a float64: ``1.2345675e+06``."""
    values = (None, True, 3, 1.0, 1e6, 123456.0, 1234567.5, 2.5e-5, 1e21, ["a", 1, ["b"]],
              {"b": 1, "a": None})
    assert [go_value(v) for v in values] == ["<nil>", "true", "3", "1", "1000000", "123456",
                                             "1.2345675e+06", "2.5e-05", "1e+21", "[a 1 [b]]",
                                             "map[a:<nil> b:1]"]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_prints_with_the_shortest_digits_that_read_back(value: float) -> None:
    assert float(go_value(value)) == value or (value == 0 and math.copysign(1, value) < 0)


def test_a_list_of_scalars_and_of_maps_and_empty_containers() -> None:
    lines = unstructured_lines({"spec": {"args": ["a", "b"], "empty": {}, "none": [],
                                         "ports": [{"port": 80}, {"port": 443, "name": "tls"}]}})
    assert lines == ["Spec:", "  Args:", "    a", "    b", "  Empty:", "  None:", "  Ports:",
                     "    Port:\t80", "    Name:\ttls", "    Port:\t443"]


class _Reader:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events

    def list(self, resource: str, field_selector: str | None = None) -> list[dict[str, Any]]:
        assert resource == "events"
        return self.events

    def get(self, resource: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        return None

    def now(self) -> datetime:
        return NOW


COHORT = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
          "metadata": {"name": "org", "uid": "u1", "labels": {"team": "ml"}, "managedFields": [{"x": 1}],
                       "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
          "spec": {"fairSharing": {"weight": "1"}}}


def test_the_page_without_events_is_one_tabwriter() -> None:
    # genericDescriber.Describe: DescribeEvents writes "Events:\t<none>" without flushing first
    assert generic_page(_Reader([]), COHORT) == """\
Name:         org
Namespace:   \x20
Labels:       team=ml
Annotations:  <none>
API Version:  kueue.x-k8s.io/v1beta2
Kind:         Cohort
Metadata:
  UID:  u1
Spec:
  Fair Sharing:
    Weight:  1
Events:      <none>"""


def test_the_page_with_events_flushes_before_the_table() -> None:
    event = {"involvedObject": {"kind": "Cohort", "name": "org", "uid": "u1"}, "type": "Normal",
             "reason": "Created", "message": "hello", "source": {"component": "kueue"},
             "firstTimestamp": "2025-01-01T00:04:00Z", "lastTimestamp": "2025-01-01T00:04:00Z", "count": 1}
    other = {**event, "involvedObject": {"kind": "ClusterQueue", "name": "org"}}
    page = generic_page(_Reader([event, other]), COHORT)
    assert page.endswith("""\
    Weight:  1
Events:
  Type    Reason   Age   From   Message
  ----    ------   ----  ----   -------
  Normal  Created  60s   kueue  hello""")
