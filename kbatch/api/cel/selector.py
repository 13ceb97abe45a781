"""DRA device selectors: compile a CEL expression once, evaluate it against devices.

Upstream: ``k8s.io/dynamic-resource-allocation/cel/compile.go``. The environment declares one
variable, ``device``, with ``driver`` (string), ``allowMultipleAllocations`` (bool), ``attributes``
(domain → id → int | bool | string | ``kubernetes.Semver``) and ``capacity`` (domain → id →
``kubernetes.Quantity``); an attribute or capacity name without a domain belongs to the device's
driver. The libraries are those of Kubernetes' base environment at 1.37 that the runtime can carry:
:mod:`.library` (quantity, semver, lists, :mod:`.regex`, :mod:`.network`), the runtime's strings
(version 2), optional, bindings, sets, lists and two-variable comprehension extensions.

* :func:`compile_selector` type-checks an expression: errors read ``compilation failed: ERROR:
  <input>:1:1: undeclared reference to 'x' (in container '')`` plus the caret lines, as cel-go's; the
  result must be ``bool`` (or dynamic: an attribute value), else "must evaluate to bool or the
  unknown type, not int". Compiled selectors are cached by expression (upstream ``cel.Cache``).
* :func:`prepare_device` converts a device to the runtime's activation once, so that every selector
  evaluated on it (a class's and a request's) shares the conversion.
* :meth:`Selector.matches` evaluates one device; a domain the device lacks reads as an empty map
  (upstream ``newStringInterfaceMapWithDefault``: kbatch evaluates again with the missing key added
  as an empty domain); a runtime error (a missing map key, a bad
  conversion) raises :class:`SelectorRuntimeError`, with upstream's hint for missing keys
  (``EnhanceRuntimeError``). Upstream's evaluation is a pure function of the device, so kbatch
  memoises results per (expression, device content).

Differences: ``device`` is declared as a map of dynamic values (the runtime cannot declare an object
type with map-of-map fields), so a typo such as ``device.atributes`` is a runtime error, not a
compile error; messages of the C++ runtime differ slightly from cel-go's (``Key not found in map``
for ``no such key``; member overloads print as ``'(kubernetes.Quantity, int)'``); the estimated
cost limit is approximated by :mod:`.cost`; the runtime limit (``CELSelectorExpressionMaxCost``, "operation
cancelled: actual cost limit exceeded") meters kbatch's count (:mod:`.budget`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kbatch.api.cel.budget import PER_CALL_LIMIT_EXCEEDED, Meter, metered
from kbatch.api.cel.cost import estimate_cost
from kbatch.api.cel.library import function_declarations
from kbatch.api.cel.values import make_quantity, make_semver
from kbatch.api.resource_v1.constants import CEL_SELECTOR_EXPRESSION_MAX_COST

__all__ = [
    "CompileError",
    "DeviceInput",
    "PreparedDevice",
    "Selector",
    "SelectorRuntimeError",
    "compile_selector",
    "prepare_device",
    "split_qualified_name",
]

_NO_SUCH_KEY_HINT = (
    ". consider using CEL optional chaining (.? followed by orValue()) or guarding the "
    "check with has() for optional fields"
)


class CompileError(ValueError):
    """A selector that does not compile: ``detail`` is upstream's ``cel.Error.Detail``."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class SelectorRuntimeError(RuntimeError):
    """Evaluating a selector failed (upstream: the CEL runtime error, allocation stops)."""


@dataclass(frozen=True, slots=True)
class DeviceInput:
    """What a selector sees of a device (upstream ``cel.Device``). ``attributes``/``capacity`` map
    qualified names to attribute values / quantities (kbatch models)."""

    driver: str
    attributes: Mapping[str, Any]
    capacity: Mapping[str, Any]
    allow_multiple_allocations: bool = False


def split_qualified_name(name: str, driver: str) -> tuple[str, str]:
    """``domain/id`` -> (domain, id); a bare ``id`` belongs to ``driver`` (upstream
    ``parseQualifiedName``)."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


_lock = threading.Lock()


# The cel-go extensions of Kubernetes' base environment (k8s.io/apiserver/pkg/cel/environment/base.go)
# that the runtime ships in its configuration form: ext.Sets (1.29), ext.TwoVarComprehensions (1.32),
# ext.Lists(ListsVersion(3)) (1.34; the runtime's "lists" 2 has version 3's functions, version 3 only
# adds cost estimates). Strings is ext.Strings(StringsVersion(2)) (1.29), cel.bind is ext.Bindings (DRA's
# compile.go, 1.31), optional types are cel.OptionalTypes (1.28). cel-go's ext.Math is not in the base
# environment, so math.* is undeclared, as upstream's.
_EXTENSIONS_YAML = """extensions:
  - name: sets
  - name: lists
    version: 2
  - name: two-var-comprehensions
"""


@functools.cache
def _environment() -> tuple[Any, Any]:
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

    from kbatch.api.cel.values import pool

    env = cel.NewEnv(
        pool(),
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables={"device": cel.Type.Map(cel.Type.STRING, cel.Type.DYN)},
        extensions=[
            ext_strings.ExtStrings(2),
            ext_optional.ExtOptional(),
            ext_bindings.ExtBindings(),
        ],
        functions=function_declarations(cel),
    )
    return cel, env


def _clean(message: str) -> str:
    """The checker's issues without the runtime's status code decorations."""
    for prefix in ("INVALID_ARGUMENT: ", "UNKNOWN: ", "INTERNAL: "):
        if message.startswith(prefix):
            message = message[len(prefix) :]
    for suffix in (" [INVALID_ARGUMENT]", " [UNKNOWN]", " [INTERNAL]"):
        if message.endswith(suffix):
            message = message[: -len(suffix)]
    return message


def compile_in(env: Any, expression: str) -> tuple[Any, int]:
    """``expression`` compiled in ``env`` under the runtime's lock, with its comprehensions ordered
    and metered (:mod:`.iteration`), and its cost outside comprehensions; :class:`CompileError` with
    cel-go's detail as upstream words it (``compilation failed: ERROR: <input>:…``)."""
    from kbatch.api.cel.iteration import rewrite

    with _lock:
        try:
            compiled = env.compile(expression)
        except RuntimeError as err:
            raise CompileError("compilation failed: " + _clean(str(err))) from None
        return rewrite(env, compiled)


@functools.lru_cache(maxsize=1024)
def compile_selector(expression: str) -> Selector:
    """The compiled selector (cached); :class:`CompileError` when it does not compile."""
    cel, env = _environment()
    compiled, cost = compile_in(env, expression)
    out = compiled.return_type()
    if out not in (cel.Type.BOOL, cel.Type.DYN):
        raise CompileError(f"must evaluate to bool or the unknown type, not {_type_name(out)}")
    return Selector(expression, compiled, estimate_cost(expression), cost)


def _type_name(t: Any) -> str:
    name = t.name()
    return {
        "bool": "bool",
        "int": "int",
        "uint": "uint",
        "double": "double",
        "string": "string",
        "bytes": "bytes",
        "null_type": "null_type",
    }.get(name.lower(), name.lower() if name.isupper() else name)


def _attribute_value(attribute: Any) -> Any:
    if attribute.version is not None:
        return make_semver(attribute.version)
    value = attribute.value()
    if value is None:
        raise SelectorRuntimeError("unsupported attribute value")
    return value


@functools.lru_cache(maxsize=1024)
def _exact(quantity: Any) -> Fraction:
    """A capacity's exact value (devices of one model share a few quantities)."""
    exact: Fraction = quantity.as_fraction()
    return exact


def _variables(device: DeviceInput) -> dict[str, Any]:
    attributes: dict[str, dict[str, Any]] = {}
    for name in sorted(device.attributes):
        domain, ident = split_qualified_name(name, device.driver)
        attributes.setdefault(domain, {})[ident] = _attribute_value(device.attributes[name])
    capacity: dict[str, dict[str, Any]] = {}
    for name in sorted(device.capacity):
        domain, ident = split_qualified_name(name, device.driver)
        capacity.setdefault(domain, {})[ident] = make_quantity(_exact(device.capacity[name]))
    return {
        "device": {
            "driver": device.driver,
            "allowMultipleAllocations": device.allow_multiple_allocations,
            "attributes": attributes,
            "capacity": capacity,
        }
    }


class PreparedDevice:
    """A device as the CEL runtime reads it (its activation), built once by :func:`prepare_device`
    and read by any number of evaluations; ``variables`` are the activation's data."""

    __slots__ = ("activation", "variables")

    def __init__(self, activation: Any, variables: dict[str, Any]) -> None:
        self.activation, self.variables = activation, variables

    def with_domain(self, domain: str) -> PreparedDevice:
        """The device with ``domain`` added, empty, to its attributes and capacity: what upstream's
        ``newStringInterfaceMapWithDefault`` answers for a domain the device does not have."""
        device = self.variables["device"]
        variables = {
            "device": {
                **device,
                "attributes": {**device["attributes"], domain: device["attributes"].get(domain, {})},
                "capacity": {**device["capacity"], domain: device["capacity"].get(domain, {})},
            }
        }
        _, env = _environment()
        with _lock:
            return PreparedDevice(env.Activation(data=variables), variables)


def prepare_device(device: DeviceInput) -> PreparedDevice:
    """The device's activation; :class:`SelectorRuntimeError` for an attribute the runtime cannot
    represent (raised where upstream's evaluation would fail)."""
    _, env = _environment()
    variables = _variables(device)
    with _lock:
        return PreparedDevice(env.Activation(data=variables), variables)


class Selector:
    """A compiled device selector. ``max_cost`` is its estimated worst-case cost; ``cost`` what an
    evaluation costs outside comprehensions (:mod:`.budget`)."""

    __slots__ = ("_compiled", "cost", "expression", "max_cost")

    def __init__(self, expression: str, compiled: Any, max_cost: int, cost: int = 0) -> None:
        self.expression, self._compiled, self.max_cost, self.cost = expression, compiled, max_cost, cost

    def __reduce__(self) -> tuple[Any, ...]:  # pickles by expression (a control plane is pickled)
        return (compile_selector, (self.expression,))

    def matches(self, device: DeviceInput | PreparedDevice) -> bool:
        prepared = device if isinstance(device, PreparedDevice) else prepare_device(device)
        cel, _ = _environment()
        added: set[str] = set()
        while True:
            result = _metered_eval(self._compiled, prepared, self.cost)
            kind = result.type()
            value = result.value()
            if kind != cel.Type.ERROR:
                break
            # Upstream's attributes and capacity maps answer an empty map for a domain the device
            # lacks (compile.go newStringInterfaceMapWithDefault), so ``device.attributes["x"].?y``
            # is none and ``device.attributes["x"].y`` fails on ``y``: evaluate again with the
            # missing key as an empty domain, once per key
            key = _missing_key(str(value))
            if key is None or key in added:
                raise SelectorRuntimeError(_runtime_message(str(value)))
            added.add(key)
            prepared = prepared.with_domain(key)
        if kind != cel.Type.BOOL:
            raise SelectorRuntimeError(
                f"CEL result of type {_type_name(kind)} could not be converted to bool"
            )
        return bool(value)


def _metered_eval(compiled: Any, prepared: PreparedDevice, cost: int) -> Any:
    """One evaluation under the runtime cost limit upstream sets on a selector's program
    (``cel.CostLimit(CELSelectorExpressionMaxCost)``, dynamic-resource-allocation ``cel/compile.go``)."""
    meter = Meter(CEL_SELECTOR_EXPRESSION_MAX_COST, cost)
    with _lock:
        metered(meter)
        try:
            result = compiled.eval(activation=prepared.activation)
        except RuntimeError as err:  # a plan error (no implementation of a declared function)
            raise SelectorRuntimeError(_runtime_message(str(err))) from None
        finally:
            metered(None)
    if meter.exceeded:
        raise SelectorRuntimeError(PER_CALL_LIMIT_EXCEEDED)
    return result


def _missing_key(message: str) -> str | None:
    """The key of a runtime "no such key" error (None for other errors)."""
    message = _clean(message)
    for prefix in ("NOT_FOUND: Key not found in map : ", "NOT_FOUND: "):
        if message.startswith(prefix):
            return message[len(prefix) :].strip().strip('"')
    return None


def _runtime_message(message: str) -> str:
    message = _clean(message)
    for prefix in ("NOT_FOUND: Key not found in map : ", "NOT_FOUND: "):
        if message.startswith(prefix):
            key = message[len(prefix) :].strip().strip('"')
            return f"no such key: {key}{_NO_SUCH_KEY_HINT}"
    return message.split(": ", 1)[1] if message.split(": ", 1)[0].isupper() and ": " in message else message
