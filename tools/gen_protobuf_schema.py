"""Generate ``kbatch/server/protobuf/schema.json`` from upstream's ``generated.proto`` and ``types.go``.

kubectl's typed clients send built-in kinds as Kubernetes protobuf (``application/vnd.kubernetes.protobuf``);
``kbatch serve`` decodes them with this table. For each message reachable from the kinds kbatch serves,
the table lists its fields as ``[number, json name, type, repeated, pointer]``: ``type`` is a scalar
(``string``, ``int32``, ``bool``, …), ``map:K:V`` or a qualified message name. The field numbers
and types come from the ``generated.proto`` files (go-to-protobuf output) of k8s.io/api and
k8s.io/apimachinery; ``pointer`` (a Go ``*T`` field, whose zero value is present rather than omitted)
comes from the packages' ``types.go``. ``inline`` lists ``[message, field number]`` for Go's
embedded fields without a JSON name (``json:""`` or ``json:",inline"``: ``Volume.volumeSource``,
``Probe.handler``, ``EphemeralContainer.ephemeralContainerCommon``): protobuf nests them as a
message, JSON spreads their fields into the enclosing object.

Usage: ``python tools/gen_protobuf_schema.py API_CHECKOUT APIMACHINERY_CHECKOUT`` (git checkouts; the
commit used is recorded in the output).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

API_PACKAGES = ("core/v1", "batch/v1", "policy/v1", "scheduling/v1", "coordination/v1", "rbac/v1",
                "authorization/v1", "authentication/v1", "node/v1", "discovery/v1")
MACHINERY_PACKAGES = ("pkg/apis/meta/v1", "pkg/api/resource", "pkg/util/intstr", "pkg/runtime")
ROOTS = ("k8s.io.api.core.v1.Namespace", "k8s.io.api.core.v1.Pod", "k8s.io.api.core.v1.Node",
         "k8s.io.api.core.v1.Service", "k8s.io.api.core.v1.Event", "k8s.io.api.core.v1.ConfigMap",
         "k8s.io.api.core.v1.Secret", "k8s.io.api.core.v1.ServiceAccount", "k8s.io.api.core.v1.ResourceQuota",
         "k8s.io.api.core.v1.LimitRange", "k8s.io.api.core.v1.Endpoints",
         "k8s.io.api.discovery.v1.EndpointSlice",
         "k8s.io.api.core.v1.PersistentVolumeClaim",
         "k8s.io.api.scheduling.v1.PriorityClass", "k8s.io.api.node.v1.RuntimeClass",
         "k8s.io.api.policy.v1.PodDisruptionBudget",
         "k8s.io.api.policy.v1.Eviction", "k8s.io.api.coordination.v1.Lease", "k8s.io.api.batch.v1.Job",
         "k8s.io.api.batch.v1.CronJob", "k8s.io.api.rbac.v1.Role", "k8s.io.api.rbac.v1.ClusterRole",
         "k8s.io.api.rbac.v1.RoleBinding", "k8s.io.api.rbac.v1.ClusterRoleBinding",
         "k8s.io.api.authentication.v1.TokenRequest",
         "k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions",
         "k8s.io.apimachinery.pkg.runtime.Unknown")
_FIELD = re.compile(r"^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;")
_MAP = re.compile(r"^\s*map<\s*(\w+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)\s*;")
_GO_FIELD = re.compile(r'^\s*\w+\s+(\*?)[\w.\[\]*]+\s+`json:"(\w*)[^`]*protobuf:"')
_GO_NUMBERED = re.compile(r'^\s*\w+\s+\*?[\w.\[\]*]+\s+`json:"(\w*)[^`]*protobuf:"\w+,(\d+),')
_GO_INLINE = re.compile(r'^\s*\w+\s+`json:"(?:,inline)?"[^`]*protobuf:"\w+,(\d+),')


def _git_show(repo: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True,
                          check=True).stdout


def _head(repo: Path) -> str:
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _messages(text: str) -> dict[str, list[list]]:
    """Top-level messages of one proto file (go-to-protobuf writes no nested messages)."""
    package = re.search(r"^package ([\w.]+);", text, re.M).group(1)
    out: dict[str, list[list]] = {}
    current: list[list] | None = None
    for line in text.splitlines():
        if m := re.match(r"^message (\w+) \{", line):
            current = out.setdefault(f"{package}.{m.group(1)}", [])
        elif line.startswith("}"):
            current = None
        elif current is not None and (f := _FIELD.match(line)):
            label, typ, name, number = f.groups()
            current.append([int(number), name, _qualify(typ, package), label == "repeated", False])
        elif current is not None and (f := _MAP.match(line)):
            key, value, name, number = f.groups()
            current.append([int(number), name, f"map:{key}:{_qualify(value, package)}", False, False])
    return out


_SCALARS = {"string", "bytes", "bool", "int32", "int64", "uint32", "uint64", "double", "float", "fixed64"}


def _qualify(typ: str, package: str) -> str:
    if typ in _SCALARS:
        return typ
    return typ[1:] if typ.startswith(".") else f"{package}.{typ}"


def _struct_lines(text: str) -> Iterator[tuple[str, str]]:
    """``(struct, line)`` for each line inside a ``type X struct { … }`` of a ``types.go``."""
    struct = None
    for line in text.splitlines():
        if m := re.match(r"^type (\w+) struct \{", line):
            struct = m.group(1)
        elif line.startswith("}"):
            struct = None
        elif struct:
            yield struct, line


def _pointers(text: str, package: str) -> set[tuple[str, str]]:
    """``(message, json name)`` of every Go pointer field with a protobuf tag in a ``types.go``."""
    return {(f"{package}.{struct}", f.group(2)) for struct, line in _struct_lines(text)
            if (f := _GO_FIELD.match(line)) and f.group(1)}


def _json_names(text: str, package: str) -> dict[tuple[str, int], str]:
    """``(message, field number) -> json name`` from a ``types.go``'s tags, for the fields whose
    protobuf name is not their JSON name (``BoundObjectReference.uID`` is ``uid`` in JSON)."""
    return {(f"{package}.{struct}", int(f.group(2))): f.group(1) for struct, line in _struct_lines(text)
            if (f := _GO_NUMBERED.match(line)) and f.group(1)}


def _inlines(text: str, package: str) -> set[tuple[str, int]]:
    """``(message, field number)`` of every embedded field without a JSON name with a protobuf tag;
    ``runtime.Unknown``'s ``typeMeta`` is left out (the envelope is read by its protobuf names)."""
    return {(f"{package}.{struct}", int(f.group(1))) for struct, line in _struct_lines(text)
            if struct != "Unknown" and (f := _GO_INLINE.match(line))}


def _reachable(messages: dict[str, list[list]], roots: tuple[str, ...]) -> list[str]:
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in messages:
            continue
        seen.add(name)
        for field in messages[name]:
            typ = field[2].rsplit(":", 1)[-1]
            if typ not in _SCALARS:
                todo.append(typ)
    return sorted(seen)


def _virtual_roots() -> tuple[str, ...]:
    """The request bodies of the families' virtual resources that take one (the create-only reviews,
    ``kbatch.api.virtual``), so that a review's codec comes from its declaration as a stored kind's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from kbatch.families import builtin

    return tuple(f"k8s.io.api.{r.group.split('.')[0]}.{r.version}.{r.kind}" for r in builtin().virtual
                 if "create" in r.verbs)


def main(api: Path, machinery: Path) -> None:
    messages: dict[str, list[list]] = {}
    pointers: set[tuple[str, str]] = set()
    inlines: set[tuple[str, int]] = set()
    json_names: dict[tuple[str, int], str] = {}
    sources = [(api, p, "k8s.io.api." + p.replace("/", ".")) for p in API_PACKAGES]
    sources += [(machinery, p, "k8s.io.apimachinery." + p.replace("/", ".")) for p in MACHINERY_PACKAGES]
    for repo, path, package in sources:
        messages.update(_messages(_git_show(repo, f"{path}/generated.proto")))
        files = subprocess.run(["git", "-C", str(repo), "ls-tree", "--name-only", f"HEAD:{path}"],
                               capture_output=True, text=True, check=True).stdout.split()
        for go in files:
            if go.endswith(".go") and not go.endswith("_test.go") and not go.startswith("zz_"):
                text = _git_show(repo, f"{path}/{go}")
                pointers |= _pointers(text, package)
                inlines |= _inlines(text, package)
                json_names.update(_json_names(text, package))
    table = {}
    for name in _reachable(messages, ROOTS + _virtual_roots()):
        fields = [(n, json_names.get((name, n), j), t, r) for n, j, t, r, _ in messages[name]]
        table[name] = [[n, j, t, r, (name, j) in pointers] for n, j, t, r in fields]
    inline = sorted([m, f] for m, f in inlines if m in table)
    doc = {"source": {"k8s.io/api": _head(api), "k8s.io/apimachinery": _head(machinery)}, "messages": table,
           "inline": inline}
    out = Path(__file__).resolve().parents[1] / "kbatch" / "server" / "protobuf" / "schema.json"
    out.write_text(json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{len(table)} messages -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
