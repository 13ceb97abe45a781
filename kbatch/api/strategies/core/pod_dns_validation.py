"""A pod's name resolution: ``dnsConfig`` against ``dnsPolicy`` and ``hostAliases`` (kubernetes
``pkg/apis/core/validation/validation.go``: ``validatePodDNSConfig``, ``ValidateHostAliases``;
``k8s.io/apimachinery`` ``pkg/util/validation/ip.go``: ``IsValidIP``, strict and canonical).

Search domains are checked as DNS subdomains that may hold ``_`` and ``.`` alone is allowed
(``AllowRelaxedDNSSearchValidation``: the ``RelaxedDNSSearchValidation`` gate is GA and locked on
since 1.34, pkg/features/kube_features.go).
"""

from __future__ import annotations

import ipaddress
import re

from kbatch.api.core_v1 import HostAlias, PodDNSConfig
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index, is_dns1123_subdomain

__all__ = ["dns_config_errors", "host_alias_errors", "ip_errors"]

MAX_NAMESERVERS = 3
MAX_SEARCH_PATHS = 32
MAX_SEARCH_LIST_CHARS = 2048
_SLOPPY_V4 = re.compile(r"^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$", re.ASCII)  # Go: ASCII digits
_NOT_AN_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
_US_LABEL = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_US_SUBDOMAIN_FMT = _US_LABEL + "(\\." + _US_LABEL + ")*"
_US_SUBDOMAIN_RE = re.compile(_US_SUBDOMAIN_FMT)
_US_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                     "'_', '-' or '.', and must start and end with an alphanumeric character "
                     "(e.g. 'example.com', "
                     f"regex used for validation is '{_US_SUBDOMAIN_FMT}')")


def ip_errors(value: str, path: str) -> list[FieldError]:
    """``IsValidIP``: parses (Go's ``ParseIPSloppy``), no leading zeros, not IPv4-mapped IPv6, and
    in canonical form."""
    try:
        ip = ipaddress.ip_address(value) if "%" not in value else None
    except ValueError:
        ip = None
    if ip is None:
        octets = _SLOPPY_V4.fullmatch(value)  # ParseIPSloppy refuses "10.0.0.1\n": not "leading 0s"
        if octets and all(int(o) <= 255 for o in octets.groups()):  # sloppy parse keeps these
            return [FieldError.invalid(path, value, "must not have leading 0s")]
        return [FieldError.invalid(path, value, _NOT_AN_IP)]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return [FieldError.invalid(path, value, "must not be an IPv4-mapped IPv6 address")]
    if str(ip) != value:
        return [FieldError.invalid(path, value, f'must be in canonical form ("{ip}")')]
    return []


def host_alias_errors(aliases: list[HostAlias], path: str) -> list[FieldError]:
    """Each alias: an IP and hostnames that are DNS subdomains."""
    errs: list[FieldError] = []
    for i, alias in enumerate(aliases):
        at = index(path, i)
        errs += ip_errors(alias.ip, child(at, "ip"))
        for j, hostname in enumerate(alias.hostnames or ()):
            errs += [FieldError.invalid(index(child(at, "hostnames"), j), hostname, m)
                     for m in is_dns1123_subdomain(hostname)]
    return errs


def dns_config_errors(config: PodDNSConfig | None, policy: str | None, path: str) -> list[FieldError]:
    """``dnsPolicy: None`` needs a config with a nameserver; a config has at most 3 nameservers (IPs),
    32 search domains of 2048 characters in all, and named options."""
    if policy == "None":
        if config is None:
            return [FieldError.required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if not config.nameservers:
            return [FieldError.required(child(path, "nameservers"),
                                        "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    if config is None:
        return []
    errs: list[FieldError] = []
    servers = config.nameservers or []
    if len(servers) > MAX_NAMESERVERS:
        errs.append(FieldError.invalid(child(path, "nameservers"), servers,
                                       f"must not have more than {MAX_NAMESERVERS} nameservers"))
    for i, server in enumerate(servers):
        errs += ip_errors(server, index(child(path, "nameservers"), i))
    return errs + _search_errors(config.searches or [], child(path, "searches")) + [
        FieldError.required(index(child(path, "options"), i), "must not be empty")
        for i, option in enumerate(config.options or ()) if not option.name]


def _search_errors(searches: list[str], path: str) -> list[FieldError]:
    errs: list[FieldError] = []
    if len(searches) > MAX_SEARCH_PATHS:
        errs.append(FieldError.invalid(path, searches,
                                       f"must not have more than {MAX_SEARCH_PATHS} search paths"))
    if len(" ".join(searches)) > MAX_SEARCH_LIST_CHARS:
        errs.append(FieldError.invalid(path, searches, f"must not have more than {MAX_SEARCH_LIST_CHARS} "
                                                       "characters (including spaces) in the search list"))
    for i, search in enumerate(searches):
        if search != ".":
            name = search.removesuffix(".")
            errs += [FieldError.invalid(index(path, i), name, m) for m in _subdomain_with_underscore(name)]
    return errs


def _subdomain_with_underscore(value: str) -> list[str]:
    """``IsDNS1123SubdomainWithUnderscore``."""
    msgs = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _US_SUBDOMAIN_RE.fullmatch(value):
        msgs.append(_US_SUBDOMAIN_MSG)
    return msgs
