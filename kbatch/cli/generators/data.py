"""``create configmap`` and ``create secret generic|docker-registry`` (k8s.io/kubectl
``pkg/cmd/create/create_configmap.go``, ``create_secret.go``, ``create_secret_docker.go``; the sources'
syntax from ``pkg/util/util.go`` ``ParseFileSource``/``ParseLiteralSource`` and the env files'
from ``pkg/cmd/util/env_file.go``).

Sources are read in kubectl's order: ``--from-file``, then ``--from-literal``, then
``--from-env-file``. A ConfigMap keeps UTF-8 file contents in ``data`` and others in
``binaryData``; a Secret keeps every value base64-encoded in ``data``.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kbatch.cli.generators import GeneratorError, Obj, object_meta

__all__ = ["Sources", "config_map", "docker_registry_secret", "generic_secret", "secret_object"]

Add = Callable[[str, bytes, bool], None]  # key, value, whether it came from a file (ConfigMap: binary ok)


@dataclass(frozen=True, slots=True)
class Sources:
    files: list[str] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    env_files: list[str] = field(default_factory=list)

    def check(self) -> None:
        if self.env_files and (self.files or self.literals):
            raise GeneratorError("from-env-file cannot be combined with from-file or from-literal")


def _file_source(source: str) -> tuple[str, str]:
    """``ParseFileSource``: ``PATH`` (the key is its base name) or ``KEY=PATH``."""
    count = source.count("=")
    if count == 0:
        return os.path.basename(source.rstrip("/")) or source, source
    if count == 1 and source.startswith("="):
        raise GeneratorError(f"key name for file path {source[1:]} missing")
    if count == 1 and source.endswith("="):
        raise GeneratorError(f"file path for key name {source[:-1]} missing")
    if count > 1:
        raise GeneratorError("key names or file paths cannot contain '='")
    key, path = source.split("=")
    return key, path


def _literal_source(source: str) -> tuple[str, str]:
    """``ParseLiteralSource``: split at the first ``=``; a missing or leading ``=`` is refused."""
    if "=" not in source or source.startswith("="):
        raise GeneratorError(f"invalid literal source {source}, expected key=value")
    key, value = source.split("=", 1)
    return key, value


def _stat_error(path: str, err: OSError) -> GeneratorError:
    reason = {2: "no such file or directory", 13: "permission denied"}.get(err.errno or 0, err.strerror)
    return GeneratorError(f"error reading {path}: {reason}")


def _read_files(sources: list[str], add: Add) -> None:
    for source in sources:
        key, path = _file_source(source)
        try:
            is_dir = os.stat(path) and os.path.isdir(path)
        except OSError as err:
            raise _stat_error(path, err) from None
        if not is_dir:
            with open(path, "rb") as fh:
                add(key, fh.read(), True)
            continue
        if "=" in source:
            raise GeneratorError("cannot give a key name for a directory path")
        for entry in sorted(os.scandir(path), key=lambda e: e.name):  # os.ReadDir: sorted by name
            if entry.is_file(follow_symlinks=False):
                with open(entry.path, "rb") as fh:
                    add(entry.name, fh.read(), True)


_ENV_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_NAME = re.compile(_ENV_NAME_FMT)


def _env_var_name_errors(name: str) -> list[str]:
    """apimachinery ``validation.IsEnvVarName`` (the strict form, which kubectl's env files use)."""
    errors = []
    if not _ENV_NAME.fullmatch(name):
        errors.append("a valid environment variable name must consist of alphabetic characters, digits, "
                      "'_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or "
                      f"'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '{_ENV_NAME_FMT}')")
    from kbatch.api.validation import chdir_prefix_errors

    return errors + chdir_prefix_errors(name)


def _env_lines(path: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """``AddFromEnvFile``: ``KEY=VALUE`` lines; blank lines and ``#`` comments skipped, leading white
    space dropped, a UTF-8 BOM on the first line ignored; a bare ``KEY`` takes the environment's
    value (empty when unset); keys must be environment variable names."""
    try:
        if os.path.isdir(path):
            raise GeneratorError("env config file cannot be a directory")
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as err:
        raise _stat_error(path, err) from None
    out: list[tuple[str, str]] = []
    for number, line_bytes in enumerate(raw.splitlines()):
        try:
            line = line_bytes.decode()
        except UnicodeDecodeError:
            raise GeneratorError(f"env file {path} contains invalid utf8 bytes at line {number + 1}") \
                from None
        line = (line.removeprefix("\ufeff") if number == 0 else line).lstrip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        errors = _env_var_name_errors(key)
        if errors:
            raise GeneratorError(f'"{key}" is not a valid key name: {";".join(errors)}')
        out.append((key, value if sep else env.get(key, "")))
    return out


def _read(sources: Sources, add: Add, env: Mapping[str, str]) -> None:
    _read_files(sources.files, add)
    for literal in sources.literals:
        key, value = _literal_source(literal)
        add(key, value.encode(), False)
    for path in sources.env_files:
        for key, value in _env_lines(path, env):
            add(key, value.encode(), False)


def config_map(name: str, ns: str | None, sources: Sources, env: Mapping[str, str]) -> Obj:
    """``createConfigMap``: keys must be config keys and unique across ``data`` and ``binaryData``."""
    from kbatch.api.strategies.core.configmap import config_key_errors

    sources.check()
    data: dict[str, str] = {}
    binary: dict[str, str] = {}

    def add(key: str, value: bytes, from_file: bool) -> None:
        errors = config_key_errors(key)
        if errors:
            raise GeneratorError(f'"{key}" is not a valid key name for a ConfigMap: {",".join(errors)}')
        for where, seen in (("Data", data), ("BinaryData", binary)):
            if key in seen:
                raise GeneratorError(f'cannot add key "{key}", another key by that name already exists in '
                                     f'{where} for ConfigMap "{name}"')
        try:
            data[key] = value.decode()
        except UnicodeDecodeError:
            binary[key] = base64.b64encode(value).decode()

    _read(sources, add, env)
    out: Obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": object_meta(name, ns)}
    if data:
        out["data"] = data
    if binary:
        out["binaryData"] = binary
    return out


def secret_object(name: str, ns: str | None, data: dict[str, str], type_: str) -> Obj:
    out: Obj = {"apiVersion": "v1", "kind": "Secret", "metadata": object_meta(name, ns)}
    if data:
        out["data"] = data
    if type_:
        out["type"] = type_
    return out


def generic_secret(name: str, ns: str | None, sources: Sources, type_: str, env: Mapping[str, str]) -> Obj:
    """``createSecret``: keys must be config keys, each once."""
    from kbatch.api.strategies.core.configmap import config_key_errors

    sources.check()
    data: dict[str, str] = {}

    def add(key: str, value: bytes, from_file: bool) -> None:
        errors = config_key_errors(key)
        if errors:
            raise GeneratorError(f'"{key}" is not valid key name for a Secret {";".join(errors)}')
        if key in data:
            raise GeneratorError(f"cannot add key {key}, another key by that name already exists")
        data[key] = base64.b64encode(value).decode()

    _read(sources, add, env)
    return secret_object(name, ns, data, type_)


def docker_registry_secret(name: str, ns: str | None, server: str, username: str, password: str,
                           email: str, files: list[str]) -> Obj:
    """``createSecretDockerRegistry``: a ``kubernetes.io/dockerconfigjson`` Secret whose
    ``.dockerconfigjson`` is ``{"auths": {SERVER: {username, password, email, auth}}}`` (``auth`` is
    base64 of ``user:password``; ``email`` only when given), or the files given instead."""
    if not files and not (username and password and server):
        raise GeneratorError("either --from-file or the combination of --docker-username, --docker-password "
                             "and --docker-server is required")
    data: dict[str, str] = {}
    if files:
        def add(key: str, value: bytes, from_file: bool) -> None:
            if key in data:
                raise GeneratorError(f"cannot add key {key}, another key by that name already exists")
            data[key] = base64.b64encode(value).decode()

        _read_files(files, add)
    else:
        entry = {"username": username, "password": password}
        if email:
            entry["email"] = email
        entry["auth"] = base64.b64encode(f"{username}:{password}".encode()).decode()
        text = json.dumps({"auths": {server: entry}}, separators=(",", ":"), ensure_ascii=False)
        data[".dockerconfigjson"] = base64.b64encode(text.encode()).decode()
    return secret_object(name, ns, data, "kubernetes.io/dockerconfigjson")
