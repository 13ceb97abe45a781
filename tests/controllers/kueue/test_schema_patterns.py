"""A Kueue CRD schema ``pattern`` is a Go regular expression (kube-openapi's validator compiles it with
``regexp``), so a value is refused where Go's dialect refuses it although Python's would match."""

from __future__ import annotations

import pytest

from kbatch import ControlPlane
from kbatch.api.errors import Invalid

from .helpers import local_queue

DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"


@pytest.mark.parametrize(("cluster_queue", "quoted"), [("cq\n", '"cq\\n"'), ("CQ", '"CQ"')])
def test_dollar_ends_the_value(cluster_queue: str, quoted: str) -> None:
    # Python's $ also matches before a final newline; Go's only at the end of the text
    cp = ControlPlane(controllers="kueue")
    with pytest.raises(Invalid) as info:
        cp.apply([local_queue("lq", cluster_queue)])
    assert [(c.field, c.message) for c in info.value.status.details.causes] == [
        ("spec.clusterQueue",
         f"Invalid value: {quoted}: spec.clusterQueue in body should match '{DNS_SUBDOMAIN}'"),
    ]
    cp.apply([local_queue("lq", "cq")])  # nothing was written: the same name is free
