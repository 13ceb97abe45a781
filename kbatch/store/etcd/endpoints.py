"""``--etcd-servers``: kube-apiserver's list of etcd client URLs, turned into one gRPC target.

kube-apiserver takes ``--etcd-servers=http://127.0.0.1:2379[,http://…]`` (``k8s.io/apiserver``
``pkg/server/options/etcd.go``). kbatch speaks plain gRPC to them (no TLS): each URL must be
``http://HOST:PORT`` (the port defaults to 2379, etcd's client port). One URL is dialled by name;
several must be IP literals of one family, dialled as one channel that picks the first reachable
member (gRPC's ``ipv4:``/``ipv6:`` static address lists with ``pick_first``), as clientv3's balancer
fails over between the endpoints it was given.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = ["DEFAULT_PORT", "grpc_target", "parse_endpoints"]

DEFAULT_PORT = 2379


def parse_endpoints(servers: str | Sequence[str]) -> list[tuple[str, int]]:
    """``(host, port)`` of each URL in a comma-separated string or a list; ``ValueError`` (with
    the offending URL) for anything but ``http://HOST[:PORT]``."""
    urls = [u.strip() for u in (servers.split(",") if isinstance(servers, str) else servers)]
    urls = [u for u in urls if u]
    if not urls:
        raise ValueError("no etcd server given (expected e.g. http://127.0.0.1:2379)")
    out: list[tuple[str, int]] = []
    for url in urls:
        parts = urlsplit(url if "://" in url else f"http://{url}")
        if parts.scheme != "http":
            raise ValueError(f"etcd server {url!r}: only http:// is supported (kbatch does not speak TLS "
                             "to etcd)")
        if not parts.hostname or parts.path not in ("", "/") or parts.query or parts.username:
            raise ValueError(f"etcd server {url!r} is not of the form http://HOST[:PORT]")
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError:
            raise ValueError(f"etcd server {url!r} has a bad port") from None
        out.append((parts.hostname, port))
    return out


def grpc_target(endpoints: list[tuple[str, int]]) -> str:
    """One gRPC channel target for the endpoints (see the module docstring)."""
    if len(endpoints) == 1:
        host, port = endpoints[0]
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    families = set()
    for host, _ in endpoints:
        try:
            families.add(ipaddress.ip_address(host).version)
        except ValueError:
            raise ValueError(f"several etcd servers must be given as IP addresses, not {host!r}") from None
    if len(families) != 1:
        raise ValueError("several etcd servers must all be IPv4 or all IPv6 addresses")
    if families == {4}:
        return "ipv4:" + ",".join(f"{h}:{p}" for h, p in endpoints)
    return "ipv6:" + ",".join(f"[{h}]:{p}" for h, p in endpoints)
