"""Label and field selectors: parsing, canonical printing and matching.

Semantics follow k8s.io/apimachinery ``pkg/labels/selector.go`` (the set-based string grammar
``a=b,c!=d,e in (x,y),f notin (z),g,!h``, its error messages, requirements sorted by key) and
``pkg/fields/selector.go`` (``metadata.name=x,status.phase!=Running`` with ``=``, ``==``, ``!=`` and
backslash escapes). The fields a kind supports in a field selector follow the upstream per-kind
field label conversion functions (``pkg/apis/core/v1/conversion.go``,
``pkg/apis/batch/v1/conversion.go``); an unsupported one is ``BadRequest: field label not supported``.

Parse errors are raised as :class:`kbatch.api.errors.BadRequest`, carrying upstream's message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, Literal

from kbatch.api.base import ApiInfo
from kbatch.api.errors import BadRequest, FieldError
from kbatch.api.go_int import parse_int
from kbatch.api.meta import LabelSelector, Resource
from kbatch.api.validation import is_qualified_name, is_valid_label_value

__all__ = [
    "EVERYTHING",
    "MODEL_OPERATORS",
    "NOTHING",
    "FieldRequirement",
    "FieldSelector",
    "Requirement",
    "Selector",
    "check_field_selector",
    "field_values",
    "label_key_errors",
    "label_value_errors",
    "node_requirement_parses",
    "node_requirements_selector",
    "parse_field_selector",
    "parse_label_selector",
    "selector_from_model",
    "selector_from_set",
    "supported_field_labels",
]

LabelOp = Literal["=", "==", "!=", "in", "notin", "exists", "!", "gt", "lt"]

# ---------------------------------------------------------------------------------------------
# Label keys and values: upstream validates both with content.IsLabelKey / IsLabelValue, the same
# checks ObjectMeta's labels go through, so these are the validators of kbatch.api.validation.


def label_key_errors(key: str) -> list[str]:
    """Upstream ``IsQualifiedName``: ``[prefix/]name``; returns messages (empty when valid)."""
    return is_qualified_name(key)


def label_value_errors(value: str) -> list[str]:
    """Upstream ``IsValidLabelValue``."""
    return is_valid_label_value(value)


# ---------------------------------------------------------------------------------------------
# Label selectors


@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement; ``values`` are sorted and de-duplicated."""

    key: str
    operator: LabelOp
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in ("=", "==", "in"):
            return self.key in labels and labels[self.key] in self.values
        if op in ("!=", "notin"):
            return self.key not in labels or labels[self.key] not in self.values
        if op == "exists":
            return self.key in labels
        if op == "!":
            return self.key not in labels
        if self.key not in labels:  # gt / lt: integer comparison
            return False
        have = parse_int(labels[self.key])
        if have is None:
            return False
        want = int(self.values[0])
        return have > want if op == "gt" else have < want

    def __str__(self) -> str:
        op = self.operator
        if op == "exists":
            return self.key
        if op == "!":
            return "!" + self.key
        if op in ("in", "notin"):
            return f"{self.key} {op} ({','.join(self.values)})"
        symbol = {"gt": ">", "lt": "<"}.get(op, op)
        return f"{self.key}{symbol}{self.values[0]}"


_SET_EMPTY = "for 'in', 'notin' operators, values set can't be empty"
_ONE_VALUE = "exact-match compatibility requires one single value"
_NO_VALUES = "values set must be empty for exists and does not exist"
_ONE_INTEGER = "for 'Gt', 'Lt' operators, exactly one value is required"
_INTEGER = "for 'Gt', 'Lt' operators, the value must be an integer"


def _requirement_errors(key: str, op: LabelOp, vals: list[str], key_path: str) -> list[FieldError]:
    """Upstream ``NewRequirement``'s checks (pkg/labels/selector.go), in its order and with its
    field paths: the key, the operator's arity, Gt/Lt integers, then every value as a label value
    (``values[i][key]``; Gt/Lt values too, so a negative bound such as ``x>-1`` is refused)."""
    errs: list[FieldError] = []
    key_msgs = label_key_errors(key)
    if key_msgs:
        errs.append(FieldError.invalid(key_path, key, "; ".join(key_msgs)))
    if op in ("in", "notin") and not vals:
        errs.append(FieldError.invalid("values", vals, _SET_EMPTY))
    elif op in ("=", "==", "!=") and len(vals) != 1:
        errs.append(FieldError.invalid("values", vals, _ONE_VALUE))
    elif op in ("exists", "!") and vals:
        errs.append(FieldError.invalid("values", vals, _NO_VALUES))
    elif op in ("gt", "lt"):
        if len(vals) != 1:
            errs.append(FieldError.invalid("values", vals, _ONE_INTEGER))
        errs += [FieldError.invalid(f"values[{i}]", v, _INTEGER) for i, v in enumerate(vals)
                 if parse_int(v) is None]
    for i, v in enumerate(vals):
        value_msgs = label_value_errors(v)
        if value_msgs:
            errs.append(FieldError.invalid(f"values[{i}][{key}]", v, "; ".join(value_msgs)))
    return errs


def _aggregate(errs: list[FieldError]) -> str:
    """``ErrorList.ToAggregate().Error()`` (pkg/util/errors): one message alone, several de-duplicated
    in brackets."""
    messages = list(dict.fromkeys(str(e) for e in errs))
    return messages[0] if len(messages) == 1 else "[" + ", ".join(messages) + "]"


def _requirement(key: str, op: LabelOp, values: Iterable[str], key_path: str = "key") -> Requirement:
    """Upstream ``NewRequirement``: validate, then keep the values sorted and de-duplicated."""
    vals = list(values)
    errs = _requirement_errors(key, op, vals, key_path)
    if errs:
        raise BadRequest(_aggregate(errs))
    return Requirement(key, op, tuple(sorted(set(vals))))


@dataclass(frozen=True, slots=True)
class Selector:
    """A conjunction of requirements, sorted by key (as upstream sorts them). ``nothing`` is the
    selector of a nil ``LabelSelector``: it matches no object."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        labels = labels or {}
        return all(r.matches(labels) for r in self.requirements)

    @property
    def empty(self) -> bool:
        """True for the selector that matches everything."""
        return not self.nothing and not self.requirements

    def compile(self) -> Callable[[Mapping[str, str] | None], bool]:
        """A matcher specialised for this selector (equality-only selectors, the common case, avoid
        the generic per-requirement dispatch); same answers as :meth:`matches`."""
        if self.nothing:
            return lambda labels: False
        if not self.requirements:
            return lambda labels: True
        if all(r.operator in ("=", "==", "in") and len(r.values) == 1 for r in self.requirements):
            pairs = tuple((r.key, r.values[0]) for r in self.requirements)
            if len(pairs) == 1:
                (key, value), = pairs
                return lambda labels: labels is not None and labels.get(key) == value
            return lambda labels: labels is not None and all(labels.get(k) == v for k, v in pairs)
        return self.matches

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def _sorted(reqs: Iterable[Requirement]) -> tuple[Requirement, ...]:
    return tuple(sorted(reqs, key=lambda r: r.key))


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """Upstream ``SelectorFromSet``: every label must equal; an empty set matches everything."""
    return Selector(_sorted(Requirement(k, "=", (v,)) for k, v in (labels or {}).items()))


# metav1.LabelSelectorOperator (as KWOK's stage selectors spell them too) → the operator here.
MODEL_OPERATORS: dict[str, LabelOp] = {"In": "in", "NotIn": "notin", "Exists": "exists", "DoesNotExist": "!"}


def selector_from_model(sel: LabelSelector | None) -> Selector:
    """Upstream ``LabelSelectorAsSelector``: nil → nothing; empty → everything."""
    if sel is None:
        return NOTHING
    reqs = [_requirement(k, "=", (v,)) for k, v in (sel.match_labels or {}).items()]
    for expr in sel.match_expressions or ():
        op = MODEL_OPERATORS.get(expr.operator)
        if op is None:
            raise BadRequest(f'"{expr.operator}" is not a valid label selector operator')
        reqs.append(_requirement(expr.key, op, expr.values or ()))
    return Selector(_sorted(reqs))


# v1.NodeSelectorOperator → the operator here (component-helpers ``nodeSelectorRequirementsAsSelector``)
_NODE_OPERATORS: dict[str, LabelOp] = {**MODEL_OPERATORS, "Gt": "gt", "Lt": "lt"}


def node_requirement_parses(key: str, operator: str, values: Iterable[str]) -> bool:
    """Whether the scheduler can read a node affinity ``matchExpressions`` entry: k8s.io/component-helpers
    ``scheduling/corev1/nodeaffinity`` builds each with ``labels.NewRequirement`` (the key, the
    arity, ``Gt``/``Lt`` bounds by ``strconv.ParseInt``, every value a label value), and a term with
    one it refuses never matches."""
    op = _NODE_OPERATORS.get(operator)
    return op is not None and not _requirement_errors(key, op, list(values), "key")


def node_requirements_selector(requirements: Iterable[Any]) -> Selector:
    """Upstream ``nodeSelectorRequirementsAsSelector`` (component-helpers ``nodeaffinity``): a
    ``NodeSelectorTerm``'s ``matchExpressions`` as one selector (none: nothing); an operator or
    requirement ``labels.NewRequirement`` refuses raises :class:`BadRequest`."""
    reqs = []
    for expr in requirements:
        op = _NODE_OPERATORS.get(expr.operator)
        if op is None:
            raise BadRequest(f'"{expr.operator}" is not a valid node selector operator')
        reqs.append(_requirement(expr.key, op, expr.values or ()))
    return Selector(_sorted(reqs)) if reqs else NOTHING


# --- the string grammar: lexer -------------------------------------------------------------

_SPECIAL = frozenset("=!(),><")
_WHITESPACE = frozenset(" \t\r\n")
_OPERATOR_TOKENS = {")": ")", ",": ",", "!": "!", "==": "==", "=": "=", ">": ">", "<": "<", "!=": "!=",
                    "(": "("}
_KEYWORDS = {"in", "notin"}
_BINARY_OPS = "in, notin, =, ==, !=, gt, lt"

Token = tuple[str, str]  # (kind, literal); kinds: "id", "end", "error", or the operator literal


def _lex(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append(("end", ""))
            return tokens
        if text[i] in _SPECIAL:
            best, j = "", i
            while j < n and text[j] in _SPECIAL:
                if text[i:j + 1] in _OPERATOR_TOKENS:
                    best = text[i:j + 1]
                elif best:
                    break
                j += 1
            if not best:
                tokens.append(("error", f"error expected: keyword found '{text[i:j]}'"))
                i = j
            else:
                tokens.append((best, best))
                i += len(best)
            continue
        j = i
        while j < n and text[j] not in _SPECIAL and text[j] not in _WHITESPACE:
            j += 1
        word = text[i:j]
        tokens.append((word if word in _KEYWORDS else "id", word))
        i = j


class _Parser:
    """Recursive descent over the token list, as upstream's ``Parser`` (two contexts: in a values
    context the keywords ``in``/``notin`` are plain identifiers)."""

    def __init__(self, text: str) -> None:
        self.tokens = _lex(text)
        self.pos = 0

    def _kind(self, tok: Token, values: bool) -> str:
        return "id" if values and tok[0] in _KEYWORDS else tok[0]

    def peek(self, values: bool = True) -> Token:
        tok = self.tokens[self.pos]
        return self._kind(tok, values), tok[1]

    def take(self, values: bool = True) -> Token:
        tok = self.peek(values)
        self.pos += 1
        return tok

    def parse(self) -> list[Requirement]:
        reqs: list[Requirement] = []
        while True:
            kind, lit = self.peek()
            if kind == "end":
                return reqs
            if kind not in ("id", "!"):
                raise ValueError(f"found '{lit}', expected: !, identifier, or 'end of string'")
            try:
                reqs.append(self.requirement())
            except ValueError as err:
                raise ValueError(f"unable to parse requirement: {err}") from None
            kind, lit = self.take()
            if kind == "end":
                return reqs
            if kind != ",":
                raise ValueError(f"found '{lit}', expected: ',' or 'end of string'")
            kind2, lit2 = self.peek()
            if kind2 not in ("id", "!"):
                raise ValueError(f"found '{lit2}', expected: identifier after ','")

    def requirement(self) -> Requirement:
        op: LabelOp | None = None
        kind, lit = self.take()
        if kind == "!":
            op = "!"
            kind, lit = self.take()
        if kind != "id":
            raise ValueError(f"found '{lit}', expected: identifier")
        key = lit
        key_msgs = label_key_errors(key)
        if key_msgs:  # validated with the parser's (nil) path, which Go prints as "<nil>"
            raise ValueError(str(FieldError.invalid("<nil>", key, "; ".join(key_msgs))))
        if op == "!" or self.peek()[0] in ("end", ","):
            return _as_value_error(key, op or "exists", ())
        kind, lit = self.take(values=False)
        ops: dict[str, LabelOp] = {"in": "in", "notin": "notin", "=": "=", "==": "==", "!=": "!=",
                                   ">": "gt", "<": "lt"}
        if kind not in ops:
            raise ValueError(f"found '{lit}', expected: {_BINARY_OPS}")
        operator = ops[kind]
        values = self.set_values() if operator in ("in", "notin") else self.exact_value()
        return _as_value_error(key, operator, values)

    def set_values(self) -> list[str]:
        kind, lit = self.take()
        if kind != "(":
            raise ValueError(f"found '{lit}' expected: '('")
        kind, lit = self.peek()
        if kind == ")":
            self.take()
            return [""]
        if kind not in ("id", ","):
            raise ValueError(f"found '{lit}', expected: ',', ')' or identifier")
        values = self.identifiers()
        if self.take()[0] != ")":
            raise ValueError(f"found '{lit}', expected: ')'")
        return values

    def identifiers(self) -> list[str]:
        out: list[str] = []
        while True:
            kind, lit = self.take()
            if kind == "id":
                out.append(lit)
                kind2, lit2 = self.peek()
                if kind2 == ")":
                    return out
                if kind2 != ",":
                    raise ValueError(f"found '{lit2}', expected: ',' or ')'")
            elif kind == ",":
                if not out:
                    out.append("")
                kind2 = self.peek()[0]
                if kind2 in (")", ","):
                    out.append("")
                if kind2 == ")":
                    return out
            else:
                raise ValueError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> list[str]:
        if self.peek()[0] in ("end", ","):
            return [""]
        kind, lit = self.take()
        if kind == "id":
            return [lit]
        raise ValueError(f"found '{lit}', expected: identifier")


def _as_value_error(key: str, op: LabelOp, values: Iterable[str]) -> Requirement:
    try:  # the parser hands NewRequirement its value set's sorted list
        return _requirement(key, op, sorted(set(values)))
    except BadRequest as err:
        raise ValueError(err.message) from None


def parse_label_selector(text: str | None) -> Selector:
    """Parse the string form; ``""``/``None`` match everything. Raises ``BadRequest``."""
    if not text:
        return EVERYTHING
    try:
        reqs = _Parser(text).parse()
    except ValueError as err:
        raise BadRequest(str(err)) from None
    return Selector(_sorted(reqs))


# ---------------------------------------------------------------------------------------------
# Field selectors


@dataclass(frozen=True, slots=True)
class FieldRequirement:
    """One term: ``field=value`` (upstream ``hasTerm``; ``==`` is the same term) or ``field!=value``
    (``notHasTerm``)."""

    field: str
    operator: Literal["=", "!="]
    value: str

    def matches(self, fields: Mapping[str, str]) -> bool:
        have = fields.get(self.field, "")
        return have != self.value if self.operator == "!=" else have == self.value

    def __str__(self) -> str:
        return f"{self.field}{self.operator}{_escape(self.value)}"  # only the value is escaped


@dataclass(frozen=True, slots=True)
class FieldSelector:
    """A conjunction of field terms, in the order upstream's parser sorts them (``andTerm``)."""

    requirements: tuple[FieldRequirement, ...] = ()

    def matches(self, fields: Mapping[str, str]) -> bool:
        return all(r.matches(fields) for r in self.requirements)

    @property
    def empty(self) -> bool:
        return not self.requirements

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.field for r in self.requirements))

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


# Semantics of k8s.io/apimachinery pkg/fields/selector.go (splitTerms, splitTerm, UnescapeValue,
# parseSelector), read at the 1.37 tree (commit eed236ce).
_ESCAPES = {"\\": "\\\\", ",": "\\,", "=": "\\="}


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


def _split_terms(text: str) -> list[str]:
    """Split on commas not preceded by a backslash escape; the escapes stay in the terms."""
    terms, start, in_slash = [], 0, False
    for i, c in enumerate(text):
        if in_slash:
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, Literal["=", "!="], str] | None:
    """The first ``!=``, ``==`` or ``=`` in the term, escaped or not (upstream does not skip escapes
    here: a backslash before ``=`` only protects it in the value, which is checked afterwards)."""
    for i in range(len(term)):
        for op in ("!=", "==", "="):
            if term.startswith(op, i):
                return term[:i], ("!=" if op == "!=" else "="), term[i + len(op):]
    return None


def _unescape(text: str) -> str:
    """Upstream ``UnescapeValue``: ``\\\\``, ``\\,`` and ``\\=`` are escapes, any other backslash
    sequence and any bare ``,`` or ``=`` are errors (Go prints the bare rune with ``%v``: its code)."""
    if not any(c in text for c in "\\,="):
        return text
    out: list[str] = []
    in_slash = False
    for c in text:
        if in_slash:
            if c not in "\\,=":
                raise ValueError(f"invalid field selector: invalid escape sequence: \\{c}")
            out.append(c)
            in_slash = False
        elif c == "\\":
            in_slash = True
        elif c in ",=":
            raise ValueError(f"invalid field selector: unescaped character in value: {ord(c)}")
        else:
            out.append(c)
    if in_slash:
        raise ValueError("invalid field selector: invalid escape sequence: \\")
    return "".join(out)


def parse_field_selector(text: str | None) -> FieldSelector:
    """Upstream ``fields.ParseSelector``: terms sorted as strings, empty ones skipped, the left side
    kept as written, the value unescaped. Raises ``BadRequest``."""
    if not text:
        return FieldSelector()
    reqs: list[FieldRequirement] = []
    for term in sorted(_split_terms(text)):
        if term == "":
            continue
        parts = _split_term(term)
        if parts is None:
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{term}'")
        name, op, value = parts
        try:
            reqs.append(FieldRequirement(name, op, _unescape(value)))
        except ValueError as err:
            raise BadRequest(str(err)) from None
    return FieldSelector(tuple(reqs))


# Field label conversion, as the API server applies it to a list's field selector (upstream
# ``Scheme.ConvertFieldLabel``; the answer to an unsupported label is a BadRequest carrying the
# conversion function's own error). Per group-resource: label → wire path read from the object.
# Kinds listed here have their own conversion function: core ones in kubernetes
# pkg/apis/core/v1/conversion.go, Job in pkg/apis/batch/v1/conversion.go, ResourceSlice in
# pkg/apis/resource/v1/conversion.go, and custom resources' ``selectableFields``.
_FIELD_LABELS: dict[str, dict[str, str]] = {
    "pods": {
        "spec.nodeName": "spec.nodeName", "spec.restartPolicy": "spec.restartPolicy",
        "spec.schedulerName": "spec.schedulerName", "spec.serviceAccountName": "spec.serviceAccountName",
        "spec.hostNetwork": "spec.hostNetwork", "status.phase": "status.phase",
        "status.podIP": "status.podIP", "status.nominatedNodeName": "status.nominatedNodeName",
        "spec.host": "spec.nodeName",  # old v1 clients' name, converted to spec.nodeName
        "status.podIPs": "",  # accepted, but not in the pod's field set (ToSelectableFields): always ""
    },
    "events": {
        "involvedObject.kind": "involvedObject.kind", "involvedObject.namespace": "involvedObject.namespace",
        "involvedObject.name": "involvedObject.name", "involvedObject.uid": "involvedObject.uid",
        "involvedObject.apiVersion": "involvedObject.apiVersion",
        "involvedObject.resourceVersion": "involvedObject.resourceVersion",
        "involvedObject.fieldPath": "involvedObject.fieldPath", "reason": "reason",
        "reportingComponent": "reportingComponent", "source": "source.component", "type": "type",
    },
    "nodes": {"spec.unschedulable": "spec.unschedulable"},
    "namespaces": {"status.phase": "status.phase"},
    "services": {"spec.clusterIP": "spec.clusterIP", "spec.type": "spec.type"},
    "secrets": {"type": "type"},
    "jobs.batch": {"status.successful": "status.succeeded"},
    # pkg/registry/resource/resourceslice/strategy.go ToSelectableFields (kubectl describe node lists by it)
    "resourceslices.resource.k8s.io": {"spec.nodeName": "spec.nodeName", "spec.driver": "spec.driver"},
    # the Workload CRD's selectableFields (kueue v0.19.2 apis/kueue/v1beta2/workload_types.go)
    "workloads.kueue.x-k8s.io": {"status.admission.clusterQueue": "status.admission.clusterQueue"},
}
_META_LABELS = {"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace"}
# conversion functions that do not accept metadata.namespace (the Node, Namespace, ResourceSlice ones)
_WITHOUT_NAMESPACE = frozenset({"nodes", "namespaces", "resourceslices.resource.k8s.io"})
_NOT_SUPPORTED = "field label not supported: {}"
_MESSAGES = {
    "jobs.batch": 'field label "{}" not supported for batchv1.Job',
    "resourceslices.resource.k8s.io": ("field label not supported for resource.k8s.io/v1, "
                                       "Kind=ResourceSlice: {}"),
}
# runtime.DefaultMetaV1FieldSelectorConversion: a built-in kind without its own function
_DEFAULT_MESSAGE = '"{}" is not a known field selector: only "metadata.name", "metadata.namespace"'


def supported_field_labels(info: ApiInfo) -> dict[str, str]:
    """Field label → wire path for one kind (every label its field set can hold)."""
    return {**_META_LABELS, **_FIELD_LABELS.get(info.group_resource, {})}


def _unsupported_message(info: ApiInfo, custom_resource: bool) -> str:
    gr = info.group_resource
    if custom_resource or gr in _FIELD_LABELS:
        return _MESSAGES.get(gr, _NOT_SUPPORTED)
    return _DEFAULT_MESSAGE


def check_field_selector(selector: FieldSelector, info: ApiInfo, *, custom_resource: bool = False) -> None:
    """Raise the kind's conversion error (a ``BadRequest``) for the first label it does not support.
    A custom resource is converted by the CRD converter (apiextensions-apiserver
    ``crConverter.ConvertFieldLabel``): ``metadata.namespace`` only when namespaced."""
    supported = supported_field_labels(info)
    no_namespace = info.group_resource in _WITHOUT_NAMESPACE or (custom_resource and not info.namespaced)
    for name in selector.fields:
        if name not in supported or (no_namespace and name == "metadata.namespace"):
            raise BadRequest(_unsupported_message(info, custom_resource).format(name))


@cache
def _attribute_path(model: type, wire_path: str) -> tuple[str, ...] | None:
    """Python attribute names for a dotted wire path, resolved through pydantic aliases."""
    names: list[str] = []
    current: Any = model
    for segment in wire_path.split("."):
        fields = getattr(current, "model_fields", None)
        if fields is None:
            return None
        match = next((n for n, f in fields.items() if (f.alias or n) == segment or n == segment), None)
        if match is None:
            return None
        names.append(match)
        current = _model_type(fields[match].annotation)
    return tuple(names)


def _model_type(annotation: Any) -> Any:
    """The pydantic model inside ``X | None`` (or ``None`` when there is none)."""
    if hasattr(annotation, "model_fields"):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if hasattr(arg, "model_fields"):
            return arg
    return None


def _render(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def field_values(obj: Resource, labels: Iterable[str]) -> dict[str, str]:
    """The values of the given (supported) field labels on ``obj``; absent fields read as ``""``
    (Go zero values: ``false`` for booleans, ``0`` for counts, as upstream's field sets do)."""
    info = type(obj).api_info
    supported = supported_field_labels(info)
    out: dict[str, str] = {}
    for label in labels:
        path = _attribute_path(type(obj), supported.get(label, label))
        value: Any = obj
        for name in path or ():
            value = getattr(value, name, None)
            if value is None:
                break
        if path is None:
            value = None
        if value is None and label == "status.successful":
            value = 0
        if value is None and label in ("spec.unschedulable", "spec.hostNetwork"):
            value = False
        out[label] = _render(value)
    return out
