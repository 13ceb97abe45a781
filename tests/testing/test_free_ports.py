"""``free_ports``: the ports an etcd process is given are distinct and bindable. Taken one after
another they once repeated, and etcd, told to serve clients and peers on one port, failed to start
("bind: address already in use")."""

from __future__ import annotations

import socket

from kbatch.testing.etcd import free_ports


def test_ports_taken_together_are_distinct_and_free() -> None:
    for _ in range(200):
        ports = free_ports(2)
        assert len(set(ports)) == 2
    holders = []
    try:
        for port in free_ports(3):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            holders.append(s)
            s.bind(("127.0.0.1", port))  # each is free once the call returns
    finally:
        for s in holders:
            s.close()
