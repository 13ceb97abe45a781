"""The parts a pod's and a container's ``securityContext`` share: user and group IDs, seccomp and
AppArmor profiles, Windows options (kubernetes ``pkg/apis/core/validation/validation.go``:
``validateSeccompProfileField``, ``validateSeccompProfileType``, ``ValidateAppArmorProfileField``,
``validateWindowsSecurityContextOptions``; ``k8s.io/apimachinery`` ``IsValidUserID`` /
``IsValidGroupID``). Messages and field paths are upstream's."""

from __future__ import annotations

import re

from kbatch.api.core_v1 import AppArmorProfile, SeccompProfile, WindowsSecurityContextOptions
from kbatch.api.errors import FieldError
from kbatch.api.strategies.core.volume_sources import local_descending_path_errors
from kbatch.api.validation import child, is_dns1123_subdomain

__all__ = ["apparmor_profile_errors", "id_errors", "seccomp_profile_errors", "windows_options_errors"]

_MAX_ID = 2**31 - 1
_ID_RANGE = f"must be between 0 and {_MAX_ID}, inclusive"
_PROFILE_TYPES = ["Localhost", "RuntimeDefault", "Unconfined"]
_MAX_LOCALHOST_PROFILE = 4095  # PATH_MAX - 1
_MAX_GMSA_SPEC_KIB = 64
_MAX_DOMAIN, _MAX_USER = 256, 104
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS = re.compile(r'^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$')
_DNS_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = re.compile(f"^{_DNS_LABEL}(?:\\.{_DNS_LABEL})*$")
_BAD_USER_CHARS = re.compile(r'["/\\:;|=,+*?<>@\[\]]')
_DOTS_SPACES = re.compile(r"^[. ]+$")


def id_errors(value: int | None, path: str) -> list[FieldError]:
    """A Unix user or group ID: 0 to MaxInt32."""
    if value is None or 0 <= value <= _MAX_ID:
        return []
    return [FieldError.invalid(path, value, _ID_RANGE)]


def seccomp_profile_errors(profile: SeccompProfile | None, path: str) -> list[FieldError]:
    """A type from the three; ``localhostProfile`` with (and only with) ``Localhost``, a relative
    path that does not climb out."""
    if profile is None:
        return []
    errs: list[FieldError] = []
    if not profile.type:
        errs.append(FieldError.required(child(path, "type"), "type is required when seccompProfile is set"))
    elif profile.type not in _PROFILE_TYPES:
        errs.append(FieldError.not_supported(child(path, "type"), profile.type, _PROFILE_TYPES))
    local = child(path, "localhostProfile")
    if profile.type == "Localhost":
        if profile.localhost_profile is None:
            errs.append(FieldError.required(local, "must be set when seccomp type is Localhost"))
        else:
            errs += local_descending_path_errors(profile.localhost_profile, local)
    elif profile.localhost_profile is not None:
        errs.append(FieldError.invalid(local, profile, "can only be set when seccomp type is Localhost"))
    return errs


def apparmor_profile_errors(profile: AppArmorProfile | None, path: str) -> list[FieldError]:
    """As seccomp's, but ``localhostProfile`` is a profile name: set, not padded, under 4096 bytes."""
    if profile is None:
        return []
    local = child(path, "localhostProfile")
    if profile.type == "Localhost":
        return _apparmor_localhost_errors(profile.localhost_profile, local)
    if profile.type in ("RuntimeDefault", "Unconfined"):
        if profile.localhost_profile is not None:
            return [FieldError.invalid(local, profile.localhost_profile,
                                       "can only be set when AppArmor type is Localhost")]
        return []
    if not profile.type:
        return [FieldError.required(child(path, "type"), "type is required when appArmorProfile is set")]
    return [FieldError.not_supported(child(path, "type"), profile.type, _PROFILE_TYPES)]


def _apparmor_localhost_errors(name: str | None, path: str) -> list[FieldError]:
    required = "must be set when AppArmor type is Localhost"
    if name is None:
        return [FieldError.required(path, required)]
    errs: list[FieldError] = []
    if name.strip() != name:
        errs.append(FieldError.invalid(path, name, "must not be padded with whitespace"))
    elif not name:
        errs.append(FieldError.required(path, required))
    if len(name.encode()) > _MAX_LOCALHOST_PROFILE:
        errs.append(FieldError.too_long(path, _MAX_LOCALHOST_PROFILE))
    return errs


def windows_options_errors(options: WindowsSecurityContextOptions | None, path: str) -> list[FieldError]:
    """GMSA credential spec name (a DNS subdomain) and spec (set, at most 64 KiB), runAsUserName."""
    if options is None:
        return []
    errs: list[FieldError] = []
    name = options.gmsa_credential_spec_name
    if name is not None:
        errs += [FieldError.invalid(child(path, "gmsaCredentialSpecName"), name, m)
                 for m in is_dns1123_subdomain(name)]
    spec = options.gmsa_credential_spec
    if spec is not None:
        at = child(path, "gmsaCredentialSpec")
        if not spec:
            errs.append(FieldError.invalid(at, spec, "gmsaCredentialSpec cannot be an empty string"))
        elif len(spec.encode()) > _MAX_GMSA_SPEC_KIB * 1024:
            errs.append(FieldError.invalid(at, spec,
                                           f"gmsaCredentialSpec size must be under {_MAX_GMSA_SPEC_KIB} KiB"))
    if options.run_as_user_name is not None:
        at = child(path, "runAsUserName")
        errs += [FieldError.invalid(at, options.run_as_user_name, m)
                 for m in _run_as_user_name_messages(options.run_as_user_name)]
    return errs


def _run_as_user_name_messages(value: str) -> list[str]:
    """``DOMAIN\\USER`` or ``USER``: the first message that applies of the three whole-name checks,
    then every domain and user check."""
    if not value:
        return ["runAsUserName cannot be an empty string"]
    if _CONTROL.search(value):
        return ["runAsUserName cannot contain control characters"]
    parts = value.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    msgs: list[str] = []
    if len(domain.encode()) >= _MAX_DOMAIN:  # Go's len: bytes
        msgs.append(f"runAsUserName's Domain length must be under {_MAX_DOMAIN} characters")
    if len(parts) == 2 and not (_NETBIOS.match(domain) or _DNS_DOMAIN.match(domain)):
        msgs.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        msgs.append("runAsUserName's User cannot be empty")
    elif len(user.encode()) > _MAX_USER:
        msgs.append(f"runAsUserName's User length must not be longer than {_MAX_USER} characters")
    if _DOTS_SPACES.match(user):
        msgs.append("runAsUserName's User cannot contain only periods or spaces")
    if _BAD_USER_CHARS.search(user):
        msgs.append('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]')
    return msgs
