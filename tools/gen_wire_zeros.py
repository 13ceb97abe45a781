"""Generate ``kbatch/api/wire_zeros.json`` from upstream's ``types.go``: the zero values Go writes.

Go's encoding/json never omits a struct held by value: ``omitempty`` does not apply to structs, only
``omitzero`` (Go 1.24) does. So kube-apiserver answers a container without resources with
``"resources":{}`` (``Container.Resources ResourceRequirements `json:"resources,omitempty"```,
k8s.io/api ``core/v1/types.go``), a service with ``"status":{"loadBalancer":{}}``, a pod condition
with ``"lastProbeTime":null`` (``metav1.Time`` is a struct whose ``MarshalJSON`` writes an unset time
as ``null``, k8s.io/apimachinery ``pkg/apis/meta/v1/time.go``; ``MicroTime`` likewise). kbatch stores
what the client sent; :mod:`kbatch.api.wire_zeros` puts these values back where objects leave as JSON.

This tool reads the Go types of every built-in kind kbatch serves and writes, per kind, each struct
path that holds such a field: the struct's JSON keys in Go's declaration order (``json:",inline"``
embedded structs spread in place) and, for each field Go writes when it is unset, that value: for a
by-value struct or time without ``omitzero``, ``null`` for a time, otherwise the struct's own zero
(``{}`` plus its nested written fields, e.g. ``{"loadBalancer": {}}``); for a string, number or bool
without ``omitempty``, ``""``, ``0``, ``false``; for a slice, map, pointer or interface without
``omitempty``, ``null`` (encoding/json writes a nil one so; kube-apiserver encodes with it). Struct
types with their own marshaller (``resource.Quantity``, ``intstr.IntOrString``, ``metav1.Duration``)
are written as their marshalled zero (``"0"``, ``0``, ``"0s"``), by value even under ``omitempty``.
Paths step into a field by its JSON name, into each list element with ``[]`` and each map value
with ``{}``.

Usage: ``python tools/gen_wire_zeros.py API_CHECKOUT APIMACHINERY_CHECKOUT`` (git checkouts; the commit
used is recorded in the output).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "kbatch" / "api" / "wire_zeros.json"
API = "k8s.io/api/"
MACHINERY = "k8s.io/apimachinery/"
# (package import path, Go kind, apiVersion): the built-in kinds kbatch serves (kbatch.families)
KINDS = tuple(
    (API + pkg, kind, version)
    for pkg, version, kinds in (
        ("core/v1", "v1", ("Namespace", "Pod", "Node", "Service", "Event", "PersistentVolumeClaim",
                           "ConfigMap", "Secret", "ResourceQuota", "LimitRange", "ServiceAccount",
                           "PersistentVolume", "PodTemplate", "Endpoints")),
        ("events/v1", "events.k8s.io/v1", ("Event",)),
        ("discovery/v1", "discovery.k8s.io/v1", ("EndpointSlice",)),
        ("batch/v1", "batch/v1", ("Job", "CronJob")),
        ("scheduling/v1", "scheduling.k8s.io/v1", ("PriorityClass",)),
        ("scheduling/v1beta1", "scheduling.k8s.io/v1beta1", ("Workload", "PodGroup")),
        ("scheduling/v1alpha3", "scheduling.k8s.io/v1alpha3", ("Workload", "PodGroup", "CompositePodGroup")),
        ("policy/v1", "policy/v1", ("PodDisruptionBudget",)),
        ("coordination/v1", "coordination.k8s.io/v1", ("Lease",)),
        ("storage/v1", "storage.k8s.io/v1", ("StorageClass", "CSIDriver")),
        ("rbac/v1", "rbac.authorization.k8s.io/v1", ("Role", "ClusterRole", "RoleBinding",
                                                      "ClusterRoleBinding")),
        ("admissionregistration/v1", "admissionregistration.k8s.io/v1", (
            "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
            "MutatingAdmissionPolicyBinding")),
        ("resource/v1", "resource.k8s.io/v1", ("DeviceClass", "ResourceSlice", "ResourceClaim",
                                               "ResourceClaimTemplate", "DeviceTaintRule")),
        ("node/v1", "node.k8s.io/v1", ("RuntimeClass",)),
    )
    for kind in kinds
)
TIMES = {MACHINERY + "pkg/apis/meta/v1.Time", MACHINERY + "pkg/apis/meta/v1.MicroTime"}
_TYPE = re.compile(r"^type (\w+) (.+?)\s*$")
_FIELD = re.compile(r'^\s*(?:(\w+)\s+)?([\w.\[\]*]+)\s+`json:"([^"]*)"([^`]*)')
_TAG = re.compile(r'(\w+):"([^"]*)"')
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([\w./-]+)"\s*$')


@dataclass(frozen=True)
class Field:
    """One JSON field of a Go struct: its key ('' for an inline embed), Go type and tag options."""

    key: str
    typ: str  # Go type expression with package qualifiers resolved to full import paths
    omitzero: bool
    inline: bool
    omitempty: bool = False
    tags: tuple[tuple[str, str], ...] = ()  # the other struct tags (patchStrategy, patchMergeKey, ...)
    markers: tuple[tuple[str, str], ...] = ()  # its doc comment's ``+name=value`` lines, in order


class Universe:
    """Go type declarations read from the packages' types files, by qualified name."""

    def __init__(self, repos: dict[str, Path]) -> None:
        self.repos = repos
        self.structs: dict[str, list[Field]] = {}
        self.aliases: dict[str, str] = {}
        self.type_markers: dict[str, tuple[tuple[str, str], ...]] = {}  # a type's doc comment markers
        self.loaded: set[str] = set()

    def load(self, package: str) -> None:
        if package in self.loaded:
            return
        self.loaded.add(package)
        prefix = next((p for p in self.repos if package.startswith(p)), None)
        if prefix is None:
            return
        repo, subdir = self.repos[prefix], package[len(prefix):]
        names = _git(repo, "ls-tree", "--name-only", "HEAD", subdir + "/").split()
        for name in sorted(names):
            base = name.rsplit("/", 1)[-1]
            if base.endswith(".go") and not base.endswith("_test.go") and not base.startswith(
                    ("zz_generated", "generated")) and "swagger" not in base:
                self._parse(package, _git(repo, "show", f"HEAD:{name}"))

    def _parse(self, package: str, text: str) -> None:
        imports = _imports(text)
        current: list[Field] | None = None
        depth = 0
        comment: list[str] = []  # the doc comment above the line being read
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("//"):
                comment.append(stripped[2:].strip())
                continue
            markers, comment = _markers(comment), []
            if current is None:
                m = _TYPE.match(line)
                if m and m.group(2).startswith("struct"):
                    current = self.structs.setdefault(f"{package}.{m.group(1)}", [])
                    self.type_markers[f"{package}.{m.group(1)}"] = markers
                    depth = 0 if m.group(2).rstrip().endswith("}") else 1
                    if depth == 0:
                        current = None
                elif m:
                    self.aliases[f"{package}.{m.group(1)}"] = _qualify(m.group(2), package, imports)
                continue
            code = line.split("//", 1)[0]
            depth += code.count("{") - code.count("}")
            if depth <= 0:
                current = None
                continue
            if depth == 1 and (f := _FIELD.match(code)):
                name, typ, tag, rest = f.groups()
                key, *opts = tag.split(",")
                if key == "-":
                    continue
                current.append(Field(key, _qualify(typ, package, imports), "omitzero" in opts,
                                     key == "" and name is None, "omitempty" in opts,
                                     tuple(_TAG.findall(rest)), markers))

    def resolve(self, typ: str) -> str:
        """A named type through its aliases (``ResourceList`` -> ``map[...]...``)."""
        for _ in range(10):
            if "." in typ and not typ.startswith(("*", "[]", "map[")):
                self.load(typ.rsplit(".", 1)[0])
            if typ not in self.aliases:
                break
            typ = self.aliases[typ]
        return typ

    def fields(self, struct: str) -> list[Field]:
        """The struct's JSON fields in declaration order, inline embeds spread."""
        self.load(struct.rsplit(".", 1)[0])
        out: list[Field] = []
        for field in self.structs.get(struct, []):
            if field.inline:
                out.extend(self.fields(self.resolve(field.typ)))
            else:
                out.append(field)
        return out

    def is_struct(self, typ: str) -> bool:
        self.load(typ.rsplit(".", 1)[0]) if "." in typ else None
        return typ in self.structs


_MARKER = re.compile(r"^\+([\w.]+)(?:=(.*))?$")


def _markers(comment: list[str]) -> tuple[tuple[str, str], ...]:
    """A doc comment's ``+name=value`` lines (gengo's ``ExtractCommentTags("+", ...)``), in order."""
    found = (_MARKER.match(line) for line in comment)
    return tuple((m.group(1), (m.group(2) or "").strip()) for m in found if m)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout


def _imports(text: str) -> dict[str, str]:
    block = re.search(r"^import \((.*?)^\)", text, re.M | re.S)
    lines = block.group(1).splitlines() if block else re.findall(r"^import (.+)$", text, re.M)
    out: dict[str, str] = {}
    for line in lines:
        if m := _IMPORT.match(line):
            alias, path = m.groups()
            out[alias or path.rsplit("/", 1)[-1]] = path
    return out


_BUILTIN = {"string", "bool", "byte", "int", "int32", "int64", "uint", "uint32", "uint64", "float32",
            "float64", "struct{}", "interface{}", "any", "map", "int8", "int16", "uint8", "uint16"}


def _qualify(typ: str, package: str, imports: dict[str, str]) -> str:
    """``[]*metav1.Time`` -> ``[]*k8s.io/apimachinery/pkg/apis/meta/v1.Time``."""
    def one(name: str) -> str:
        if name in _BUILTIN:
            return name
        if "." in name:
            alias, rest = name.split(".", 1)
            return f"{imports.get(alias, alias)}.{rest}"
        return f"{package}.{name}"
    return re.sub(r"[\w.]+", lambda m: one(m.group(0)), typ)


def _split(typ: str) -> tuple[str, str]:
    """(step, element type) of a container type; ('', typ) otherwise."""
    if typ.startswith("[]"):
        return "[]", typ[2:]
    if typ.startswith("map["):
        depth = 0
        for end, ch in enumerate(typ[3:], start=3):
            depth += (ch == "[") - (ch == "]")
            if depth == 0:
                return "{}", typ[end + 1:]
    return "", typ


# Go's zero of each scalar kind, as encoding/json writes it
_SCALAR_ZEROS: dict[str, object] = {"string": "", "bool": False, **dict.fromkeys(
    ("byte", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
     "float32", "float64"), 0)}
# types with their own MarshalJSON, written as JSON scalars: (type suffix, what the zero value writes;
# ``_NEVER``: no zero is ever served, not filled). resource.Quantity's zero is "0" (its
# ``MarshalJSON`` canonicalizes the zero amount), an IntOrString's the int 0, a Duration's "0s"
# (``time.Duration.String``), a RawExtension without bytes ``null`` (apimachinery
# ``pkg/api/resource/quantity.go``, ``pkg/util/intstr/intstr.go``, ``pkg/apis/meta/v1/duration.go``,
# ``pkg/runtime/extension.go``); FieldsV1 is only ever held by pointer.
_NEVER = object()
_SELF_MARSHALLED: dict[str, object] = {
    "/pkg/api/resource.Quantity": "0", "/pkg/util/intstr.IntOrString": 0,
    "/pkg/apis/meta/v1.Duration": "0s", "/pkg/runtime.RawExtension": None,
    "/pkg/apis/meta/v1.FieldsV1": _NEVER}


class Walker:
    """Collects, for one kind, every struct path that has fields Go writes when unset."""

    def __init__(self, universe: Universe) -> None:
        self.u = universe
        self.zero_cache: dict[str, object] = {}

    def zero(self, struct: str, stack: tuple[str, ...] = ()) -> object:
        """What Go writes for an unset by-value ``struct``."""
        if struct in TIMES:
            return None
        if struct not in self.zero_cache:
            out: dict[str, object] = {}
            for field in self.u.fields(struct):
                typ = self.u.resolve(field.typ)
                if typ in stack:
                    continue
                written, value = self.unset(field, (*stack, struct))
                if written:
                    out[field.key] = value
            self.zero_cache[struct] = out
        return self.zero_cache[struct]

    def unset(self, field: Field, stack: tuple[str, ...] = ()) -> tuple[bool, object]:
        """(whether Go writes ``field`` when it holds its zero value, what it writes). encoding/json
        drops a zero only for ``omitempty`` on a string, number, bool, pointer, interface, slice or map
        (a nil pointer, slice, map or interface otherwise is ``null``), and never a struct, which only
        ``omitzero`` (Go 1.24) drops."""
        if field.omitzero:
            return False, None
        typ = self.u.resolve(field.typ)
        if typ in TIMES:
            return True, None
        if typ.startswith(("*", "[]", "map[")) or typ in ("interface{}", "any"):
            return not field.omitempty, None
        own = self._own_marshaller(typ)
        if own is not None:
            zero = _SELF_MARSHALLED[own]
            return zero is not _NEVER, zero
        if self.u.is_struct(typ):
            return True, self.zero(typ, stack)
        if typ in _SCALAR_ZEROS:
            return not field.omitempty, _SCALAR_ZEROS[typ]
        raise SystemExit(f"no Go zero known for {field.key}: {field.typ} ({typ})")

    @staticmethod
    def _own_marshaller(typ: str) -> str | None:
        if typ.startswith(("*", "[]", "map[")):
            return None
        return next((suffix for suffix in _SELF_MARSHALLED if typ.endswith(suffix)), None)

    def walk(self, struct: str, path: tuple[str, ...], out: list[dict], stack: tuple[str, ...]) -> None:
        if struct in stack or struct in TIMES or self._own_marshaller(struct):
            return
        fields = self.u.fields(struct)
        fills = {}
        for field in fields:
            written, value = self.unset(field)
            if written:
                fills[field.key] = value
        if fills:
            out.append({"path": list(path), "order": [f.key for f in fields], "fill": fills})
        for field in fields:
            typ, steps = self.u.resolve(field.typ), [field.key]
            while True:
                typ = self.u.resolve(typ.lstrip("*"))
                step, inner = _split(typ)
                if not step:
                    break
                steps.append(step)
                typ = inner
            if self.u.is_struct(typ):
                self.walk(typ, (*path, *steps), out, (*stack, struct))


def generate(api: Path, machinery: Path) -> dict:
    universe = Universe({API: api, MACHINERY: machinery})
    kinds: dict[str, list[dict]] = {}
    for package, kind, version in KINDS:
        walker = Walker(universe)
        structs: list[dict] = []
        walker.walk(f"{package}.{kind}", (), structs, ())
        kinds[f"{version}/{kind}"] = structs
    return {"source": {"k8s.io/api": _git(api, "rev-parse", "HEAD").strip(),
                       "k8s.io/apimachinery": _git(machinery, "rev-parse", "HEAD").strip()},
            "kinds": kinds}


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    table = generate(Path(argv[1]), Path(argv[2]))
    OUT.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUT} ({sum(len(v) for v in table['kinds'].values())} struct paths)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
