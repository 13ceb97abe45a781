"""CEL for ValidatingAdmissionPolicy: compile an expression once, evaluate it on a request.

Upstream: ``k8s.io/apiserver/pkg/admission/plugin/cel`` (``compile.go``, ``activation.go``). The
environment declares ``object``, ``oldObject``, ``request``, ``namespaceObject`` (dynamic values:
kbatch has no OpenAPI schemas to type them, as upstream has none for a CRD without one),
``variables`` (name → value) and, only when the policy has a ``paramKind``, ``params``; the libraries
are those of :mod:`.selector` (Kubernetes' base environment: quantity, semver, lists, regex, strings,
sets, optional, bindings, two-variable comprehensions).

* :func:`compile_expression` type-checks: ``compilation failed: ERROR: <input>:1:1: undeclared
  reference to 'x' (in container '')`` plus the caret lines, or ``must evaluate to bool but got int``
  (``CompileCELExpression``); compiled expressions are cached.
* :meth:`Expression.evaluate` answers the value or raises :class:`EvaluationError` whose text is
  upstream's ``expression '<expr>' resulted in error: <cause>``.

Differences (docs/admission-policy.md): ``authorizer`` is not declared (an expression naming it does
not compile); no cost estimate or runtime budget; the runtime's messages differ slightly from cel-go's.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from kbatch.api.cel.selector import (
    _EXTENSIONS_YAML,
    _NO_SUCH_KEY_HINT,
    CompileError,
    _lock,
    _runtime_message,
    _type_name,
    compile_in,
)

__all__ = ["CompileError", "EvaluationError", "Expression", "compile_expression"]

# one lock and one extension set with DRA's selectors: the same runtime, Kubernetes' base environment

_OBJECT_VARIABLES = ("object", "oldObject", "request", "namespaceObject")


class EvaluationError(RuntimeError):
    """An expression failed at run time (upstream's ``ErrorTypeInvalid`` evaluation error)."""


@functools.cache
def _environment(has_params: bool) -> tuple[Any, Any]:
    from cel_expr_python import cel
    from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

    from kbatch.api.cel.library import function_declarations
    from kbatch.api.cel.values import pool

    declared: dict[str, Any] = {name: cel.Type.DYN for name in _OBJECT_VARIABLES}
    declared["variables"] = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
    if has_params:
        declared["params"] = cel.Type.DYN
    env = cel.NewEnv(
        pool(),
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables=declared,
        extensions=[ext_strings.ExtStrings(2), ext_optional.ExtOptional(), ext_bindings.ExtBindings()],
        functions=function_declarations(cel),
    )
    return cel, env


@functools.lru_cache(maxsize=4096)
def compile_expression(expression: str, has_params: bool, returns: str = "bool") -> Expression:
    """The compiled expression; ``returns`` is ``bool``, ``string`` or ``any`` (a variable).
    :class:`CompileError` carries upstream's detail."""
    cel, env = _environment(has_params)
    compiled = compile_in(env, expression)
    out = compiled.return_type()
    wanted = {"bool": cel.Type.BOOL, "string": cel.Type.STRING}.get(returns)
    if wanted is not None and out not in (wanted, cel.Type.DYN):
        raise CompileError(f"must evaluate to {returns} but got {_type_name(out)}")
    return Expression(expression, has_params, compiled)


class Expression:
    """A compiled admission expression."""

    __slots__ = ("_compiled", "expression", "has_params")

    def __init__(self, expression: str, has_params: bool, compiled: Any) -> None:
        self.expression, self.has_params, self._compiled = expression, has_params, compiled

    def evaluate(self, data: Mapping[str, Any]) -> Any:
        """The value on ``data`` (the variables as JSON values); :class:`EvaluationError` when it fails."""
        cel, env = _environment(self.has_params)
        with _lock:
            try:
                result = self._compiled.eval(activation=env.Activation(data=dict(data)))
            except RuntimeError as err:
                raise self._failed(str(err)) from None
        if result.type() == cel.Type.ERROR:
            raise self._failed(str(result.value()))
        return result.value()

    def _failed(self, cause: str) -> EvaluationError:
        # DRA's hint for a missing key (EnhanceRuntimeError) is not part of admission's messages
        message = _runtime_message(cause).removesuffix(_NO_SUCH_KEY_HINT)
        return EvaluationError(f"expression '{self.expression}' resulted in error: {message}")
