"""CEL for admission policies (validating and mutating): compile an expression once, evaluate it on a
request.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/cel`` (``compile.go``, ``activation.go``). The
environment declares ``object``, ``oldObject``, ``request``, ``namespaceObject`` (dynamic values:
kbatch has no OpenAPI schemas to type them, as upstream has none for a CRD without one),
``variables`` (name → value), ``authorizer`` and ``authorizer.requestResource`` (:mod:`.authz`) and,
only when the policy has a ``paramKind``, ``params``; the libraries are those of :mod:`.selector`
(Kubernetes' base environment: quantity, semver, lists, regex, strings, sets, optional, bindings,
two-variable comprehensions). A MutatingAdmissionPolicy's environment adds the object types
(:mod:`.object_literals`) and ``jsonpatch.escapeKey``.

* :func:`compile_expression` type-checks: ``compilation failed: ERROR: <input>:1:1: undeclared
  reference to 'x' (in container '')`` plus the caret lines, or ``must evaluate to bool but got int``
  (``CompileCELExpression``); compiled expressions are cached.
* :meth:`Expression.evaluate` answers the value or raises :class:`EvaluationError` whose text is
  upstream's ``expression '<expr>' resulted in error: <cause>``.

* Cost (:mod:`.budget`): one evaluation stops at ``PerCallLimit`` ("operation cancelled: actual cost
  limit exceeded"); with a :class:`Budget`, an evaluation that costs more than is left raises
  :class:`OutOfBudget`.

Differences (docs/admission-policy.md): ``authorizer`` is declared for every expression (upstream: not
in ``messageExpression``); the cost is kbatch's count (:mod:`.budget`), and there is no compile-time
estimate; the runtime's messages differ slightly from cel-go's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from kbatch.api.cel.budget import (
    OUT_OF_BUDGET,
    PER_CALL_LIMIT,
    PER_CALL_LIMIT_EXCEEDED,
    Budget,
    Meter,
    metered,
)
from kbatch.api.cel.iteration import ordered_plain
from kbatch.api.cel.selector import (
    _EXTENSIONS_YAML,
    _NO_SUCH_KEY_HINT,
    CompileError,
    _lock,
    _runtime_message,
    _type_name,
    compile_in,
)

__all__ = ["Budget", "CompileError", "EvaluationError", "Expression", "OutOfBudget", "compile_expression"]

# one lock and one extension set with DRA's selectors: the same runtime, Kubernetes' base environment

_OBJECT_VARIABLES = ("object", "oldObject", "request", "namespaceObject")


class EvaluationError(RuntimeError):
    """An expression failed at run time (upstream's ``ErrorTypeInvalid`` evaluation error)."""


class OutOfBudget(EvaluationError):
    """The policy's cost budget ran out (upstream ``cel.ErrOutOfBudget``): no further expression of
    the policy runs."""


def _escape_key(key: str) -> str:
    """``jsonpatch.escapeKey`` (``pkg/cel/library/jsonpatch.go``): RFC 6901's ``~0`` and ``~1``."""
    return key.replace("~", "~0").replace("/", "~1")


def _patch_functions(cel: Any) -> list[Any]:
    """MutatingAdmissionPolicy's extra function (``compile.go`` ``hasPatchTypes``)."""
    overload = cel.Overload("string_jsonpatch_escapeKey_string", cel.Type.STRING, [cel.Type.STRING],
                            impl=_escape_key)
    return [cel.FunctionDecl("jsonpatch.escapeKey", [overload])]


@functools.cache
def _environment(has_params: bool, mutating: bool = False) -> tuple[Any, Any]:
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

    from kbatch.api.cel import authz
    from kbatch.api.cel.library import declarer, function_declarations
    from kbatch.api.cel.values import pool

    declared: dict[str, Any] = {name: cel.Type.DYN for name in _OBJECT_VARIABLES}
    declared["authorizer"] = cel.Type("kubernetes.authorization.Authorizer")
    declared["authorizer.requestResource"] = cel.Type("kubernetes.authorization.ResourceCheck")
    declared["variables"] = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
    if has_params:
        declared["params"] = cel.Type.DYN
    env = cel.NewEnv(
        pool(),
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables=declared,
        extensions=[ext_strings.ExtStrings(2), ext_optional.ExtOptional(), ext_bindings.ExtBindings()],
        functions=[*function_declarations(cel), *authz.declarations(declarer(cel), cel.Type),
                   *(_patch_functions(cel) if mutating else [])],
    )
    return cel, env


# a mutation's result: (the upstream type named in the error, the runtime's kind that may carry it)
_MUTATION_RESULTS = {"Object": "MAP", "list(JSONPatch)": "LIST"}


@functools.lru_cache(maxsize=4096)
def compile_expression(expression: str, has_params: bool, returns: str = "bool",
                       mutating: bool = False) -> Expression:
    """The compiled expression; ``returns`` is ``bool``, ``string``, ``any`` (a variable),
    ``Object`` or ``list(JSONPatch)`` (a mutation). ``mutating``: a MutatingAdmissionPolicy's
    expression (object literals, ``jsonpatch.escapeKey``; :mod:`.object_literals`).
    :class:`CompileError` carries upstream's detail."""
    from kbatch.api.cel.object_literals import rewrite

    cel, env = _environment(has_params, mutating)
    compiled, cost = compile_in(env, rewrite(expression) if mutating else expression)
    out = compiled.return_type()
    wanted = {"bool": cel.Type.BOOL, "string": cel.Type.STRING}.get(returns)
    if wanted is not None and out not in (wanted, cel.Type.DYN):
        raise CompileError(f"must evaluate to {returns} but got {_type_name(out)}")
    kind = _MUTATION_RESULTS.get(returns)
    if kind is not None and out != cel.Type.DYN and not str(out.name()).upper().startswith(kind):
        raise CompileError(f"must evaluate to {returns} but got {_type_name(out)}")
    return Expression(expression, (has_params, mutating), compiled, cost)


class Expression:
    """A compiled admission expression; ``cost``: what one evaluation costs outside comprehensions."""

    __slots__ = ("_compiled", "_environment", "cost", "expression")

    def __init__(self, expression: str, environment: tuple[bool, bool], compiled: Any, cost: int) -> None:
        self.expression, self._environment, self._compiled = expression, environment, compiled
        self.cost = cost

    def evaluate(self, data: Mapping[str, Any], budget: Budget | None = None) -> Any:
        """The value on ``data`` (the variables as JSON values); :class:`EvaluationError` when it
        fails or passes the per-call limit, :class:`OutOfBudget` when it costs more than is left of
        ``budget`` (which pays for it otherwise)."""
        return self._run(data, plain=False, budget=budget)

    def evaluate_plain(self, data: Mapping[str, Any], budget: Budget | None = None) -> Any:
        """The value as plain Python data (dicts, lists, scalars; a library type stays a message)."""
        return self._run(data, plain=True, budget=budget)

    def _run(self, data: Mapping[str, Any], plain: bool, budget: Budget | None) -> Any:
        cel, env = _environment(*self._environment)
        meter = Meter(PER_CALL_LIMIT, self.cost)
        with _lock:
            metered(meter)
            try:
                result = self._compiled.eval(activation=env.Activation(data=dict(data)))
            except RuntimeError as err:
                raise self._failed(str(err)) from None
            finally:
                metered(None)
            _charge(meter, budget)
            if meter.exceeded:  # whatever the expression made of the error spend() raised
                raise self._failed(PER_CALL_LIMIT_EXCEEDED)
            if result.type() == cel.Type.ERROR:
                raise self._failed(str(result.value()))
            return ordered_plain(result.plain_value()) if plain else result.value()

    def _failed(self, cause: str) -> EvaluationError:
        # DRA's hint for a missing key (EnhanceRuntimeError) is not part of admission's messages
        message = _runtime_message(cause).removesuffix(_NO_SUCH_KEY_HINT)
        return EvaluationError(f"expression '{self.expression}' resulted in error: {message}")


def _charge(meter: Meter, budget: Budget | None) -> None:
    """``activation.go`` ``Evaluate``: an evaluation that cost more than is left fails the policy;
    otherwise the budget pays for it."""
    if budget is None:
        return
    if meter.spent > budget.remaining:
        budget.remaining = -1
        raise OutOfBudget(OUT_OF_BUDGET)
    budget.remaining -= meter.spent
