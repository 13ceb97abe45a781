"""``--etcd-servers`` parsing: kube-apiserver's URL list to one gRPC target."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.store.etcd import grpc_target, parse_endpoints


def test_one_url_is_dialled_by_name_with_etcds_default_port() -> None:
    assert parse_endpoints("http://127.0.0.1:2379") == [("127.0.0.1", 2379)]
    assert grpc_target(parse_endpoints("http://etcd.local")) == "etcd.local:2379"
    assert grpc_target(parse_endpoints("http://[::1]:2380")) == "[::1]:2380"


def test_several_ip_urls_become_one_static_address_list() -> None:
    target = grpc_target(parse_endpoints("http://127.0.0.1:2379, http://127.0.0.2:2379"))
    assert target == "ipv4:127.0.0.1:2379,127.0.0.2:2379"


@pytest.mark.parametrize(("servers", "message"), [
    ("", "no etcd server"),
    ("https://127.0.0.1:2379", "only http://"),
    ("http://127.0.0.1:2379/prefix", "not of the form"),
    ("http://127.0.0.1:notaport", "bad port"),
])
def test_bad_urls_are_rejected_with_the_url(servers: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_endpoints(servers)


def test_several_hostnames_are_rejected() -> None:
    with pytest.raises(ValueError, match="IP addresses"):
        grpc_target(parse_endpoints("http://a:1,http://b:2"))


@given(st.lists(st.tuples(st.ip_addresses(v=4).map(str), st.integers(1, 65535)), min_size=1, max_size=4))
def test_every_ipv4_endpoint_appears_in_the_target_in_order(endpoints: list[tuple[str, int]]) -> None:
    servers = ",".join(f"http://{h}:{p}" for h, p in endpoints)
    assert parse_endpoints(servers) == endpoints
    target = grpc_target(endpoints)
    listed = target.removeprefix("ipv4:").split(",")
    assert listed == [f"{h}:{p}" for h, p in endpoints]
