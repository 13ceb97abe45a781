"""``python3 -c SCRIPT``: the few-line Python scripts of the Kubernetes docs' Job examples, run.

kubernetes.io's Job pages decide a pod's exit code with a few lines of Python read from the
completion index (kubernetes/website ``content/en/examples/controllers/``
``job-backoff-limit-per-index-example.yaml``, ``job-backoff-limit-per-index-failindex.yaml``,
``job-success-policy.yaml``): the failed and
completed indexes, the conditions and the logs the pages print follow from those exit codes. A
script is parsed with Python's own parser (:mod:`ast`) and run when every part of it is in the
subset below; any other script stays outside the vocabulary (the default duration, exit 0, and
the create-time warning of :mod:`kbatch.sim.unmodelled`).

The subset: ``import`` of ``os``, ``sys``, ``time``; assignments to names; ``if``/``elif``/``else``,
``pass``, ``for NAME in range(…)`` (or a list, tuple or string); ``print(…, sep=, end=, file=,
flush=)``, ``sys.exit([CODE])``, ``time.sleep`` of N seconds; expressions of constants, names, lists and
tuples, arithmetic, comparisons, ``and``/``or``/``not``, indexing, f-strings, the builtins ``int``,
``str``, ``float``, ``bool``, ``len``, ``abs``, ``min``, ``max``, ``range``, and ``os.environ[K]``,
``os.environ.get(K[, D])``, ``os.getenv(K[, D])``. Values are Python's, so is an error's message: a
runtime error ends the run as CPython's does, its traceback (without the source line) on standard
error and status 1; ``sys.exit(CODE)`` is CODE mod 256, ``sys.exit()`` 0 and ``sys.exit("msg")``
prints ``msg`` and is 1 (Python's ``SystemExit`` handling, ``Python/pythonrun.c``). Printing takes
no time, ``time.sleep`` its seconds; standard output is block-buffered as CPython's is on a pipe
(a line reaches the log at ``flush=True``, at 8 KiB held, or at exit, and is lost when a signal ends
the process) unless ``PYTHONUNBUFFERED`` is set; standard error is written at once. A run past
``MAX_STEPS`` statements and iterations, or holding a value or printing text beyond a megabyte, is
not followed (the default run, with a warning); PID 1 installs no ``SIGTERM`` handler, so the stop signal
acts as on any program without one (:meth:`kbatch.sim.shell_run.Shell.spend`).
"""

from __future__ import annotations

import ast
import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from kbatch.sim.container_run import ContainerRun
from kbatch.sim.shell_run import MAX_STEPS, Shell, _Files
from kbatch.sim.signals import StopSignal

__all__ = ["is_python", "modelled_python", "run_python"]

_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")
_MODULES = frozenset({"os", "sys", "time"})
_BUILTINS: dict[str, Any] = {f.__name__: f for f in (int, str, float, bool, len, abs, min, max, range)}
_CALLS = frozenset({"print", "sys.exit", "time.sleep", "os.environ.get", "os.getenv", *_BUILTINS})
_DOTTED = frozenset({"os.environ", "sys.stderr", "sys.stdout"})
_MAX_ITERATIONS = 10_000
_MAX_BYTES = 1_000_000  # a value's or the printed text's size the run follows
_BUFFER = 8_192  # io.DEFAULT_BUFFER_SIZE: held stdout bytes that flush on their own
_MAX_SCRIPT = 8_192  # characters of script parsed (and kept parsed)
_TOO_LARGE = ("the python3 -c script ran longer or grew larger than kbatch follows; kbatch ran it as an "
              "unknown command ({default:g}s, exit 0)")
_WIDE = re.compile(r"\d{6}")  # a format width or precision of 100,000 or more
_NODES = (ast.Module, ast.Import, ast.alias, ast.Assign, ast.AugAssign, ast.If, ast.Pass, ast.For,
          ast.Expr, ast.Constant, ast.Name, ast.Load, ast.Store, ast.List, ast.Tuple, ast.BinOp, ast.UnaryOp,
          ast.BoolOp, ast.Compare, ast.Subscript, ast.Call, ast.keyword, ast.Attribute, ast.JoinedStr,
          ast.FormattedValue, ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.IfExp)


class _Exit(Exception):
    def __init__(self, code: int, message: str | None = None) -> None:
        self.code, self.message = code, message


class _Unmodelled(Exception):
    """The run left the subset (a loop too long to follow): the default run instead."""


def is_python(words: Sequence[str]) -> bool:
    """Is ``words`` a ``python3 -c SCRIPT [ARG…]`` command line?"""
    return len(words) >= 3 and _PYTHON.match(words[0]) is not None and words[1] == "-c"


@functools.lru_cache(maxsize=256)
def _parse(script: str) -> ast.Module | None:
    """The script's tree when every node is in the subset, else None."""
    if len(script) > _MAX_SCRIPT:
        return None
    try:
        tree = ast.parse(script, "<string>")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree if all(_allowed(node) for node in ast.walk(tree)) and _values_in_place(tree) else None


def _values_in_place(tree: ast.Module) -> bool:
    """``os.environ`` only indexed, asked ``.get`` or tested with ``in``, and ``sys.stdout`` /
    ``sys.stderr`` only as ``print``'s ``file=``: the objects themselves are not modelled."""
    placed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) or (isinstance(node, ast.Attribute) and node.attr == "get"):
            placed.add(id(node.value))
        elif isinstance(node, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            placed.update(id(c) for c in node.comparators)
        elif isinstance(node, ast.keyword) and node.arg == "file":
            placed.add(id(node.value))
    return all(id(node) in placed for node in ast.walk(tree)
               if isinstance(node, ast.Attribute) and _dotted(node) in _DOTTED)


def _allowed(node: ast.AST) -> bool:
    if not isinstance(node, _NODES):
        return False
    if isinstance(node, ast.Import):
        return all(a.name in _MODULES and a.asname is None for a in node.names)
    if isinstance(node, ast.Call):
        return _dotted(node.func) in _CALLS
    if isinstance(node, ast.Attribute):
        return _dotted(node) in _DOTTED | _CALLS
    if isinstance(node, (ast.Assign, ast.For)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        loop_else = isinstance(node, ast.For) and bool(node.orelse)
        return all(isinstance(t, ast.Name) for t in targets) and not loop_else
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Name) and type(node.op) in _BINARY
    if isinstance(node, ast.BinOp):
        return type(node.op) in _BINARY
    if isinstance(node, ast.FormattedValue):  # a constant spec without a huge width
        spec = node.format_spec
        return spec is None or (isinstance(spec, ast.JoinedStr) and all(
            isinstance(v, ast.Constant) and not _WIDE.search(str(v.value)) for v in spec.values))
    return not isinstance(node, ast.Constant) or isinstance(node.value, (int, float, str, bool, type(None)))


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def modelled_python(words: Sequence[str]) -> bool:
    """Is this ``python3 -c`` command line's script inside the subset?"""
    return _parse(words[2]) is not None


def run_python(words: Sequence[str], env: Mapping[str, str], default: float,
               stop: StopSignal | None = None) -> ContainerRun | None:
    """The run of ``python3 -c SCRIPT``; None when the script is outside the subset. A run past
    ``MAX_STEPS`` statements and iterations, or holding a value or printing text beyond
    :data:`_MAX_BYTES`, is the default run with a warning (as a shell script past its step limit)."""
    tree = _parse(words[2])
    if tree is None:
        return None
    shell = Shell(default, _Files(None), stop=stop)
    runner = _Runner(shell, dict(env))
    try:
        runner.block(tree.body)
    except _Exit as done:
        shell.status = done.code
        if done.message is not None:
            shell.log(done.message)
    except (_Unmodelled, RecursionError, MemoryError):
        return ContainerRun(default, 0, warning=_TOO_LARGE.format(default=default))
    except (ArithmeticError, LookupError, NameError, TypeError, ValueError, AttributeError) as error:
        # the script's own error: CPython's report, status 1
        line = getattr(error, "line", runner.line)
        shell.log(f'Traceback (most recent call last):\n  File "<string>", line {line}, in <module>\n'
                  f"{type(error).__name__}: {error}\n")
        shell.status = 1
    else:
        shell.status = 0
    if not shell.signalled:  # the interpreter's exit flushes stdout; a signal's death loses it
        runner.flush()
    return shell.result()


class _Runner:
    """Statements and expressions of the subset, with Python's values."""

    def __init__(self, shell: Shell, env: dict[str, str]) -> None:
        self.shell, self.env, self.scope, self.line = shell, env, {**_BUILTINS, "print": print}, 1
        self.steps = self.printed = 0
        # stdout to a pipe is block-buffered (CPython's io.TextIOWrapper over a BufferedWriter): a
        # line reaches the log at a flush (flush=True, 8 KiB pending, exit); PYTHONUNBUFFERED writes
        # at once, and stderr is line-buffered
        self.buffered = not env.get("PYTHONUNBUFFERED")
        self.pending: list[str] = []

    def tick(self) -> None:
        """One statement or loop iteration more: past ``MAX_STEPS`` the run is not followed."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Unmodelled

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if self.shell.exited:
                return
            self.tick()
            self.line = stmt.lineno
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Import):
            self.scope.update({a.name: _Module(a.name) for a in stmt.names})
        elif isinstance(stmt, ast.Assign):
            value = self.expr(stmt.value)
            for target in stmt.targets:
                self.scope[target.id] = value  # type: ignore[attr-defined]
        elif isinstance(stmt, ast.AugAssign):
            name = stmt.target.id  # type: ignore[union-attr]
            self.scope[name] = _binary(stmt.op, self.name(name), self.expr(stmt.value))
        elif isinstance(stmt, ast.If):
            self.block(stmt.body if self.expr(stmt.test) else stmt.orelse)
        elif isinstance(stmt, ast.For):
            items = self.expr(stmt.iter)
            if len(items) > _MAX_ITERATIONS:  # a range is not built to be measured
                raise _Unmodelled
            for item in items:
                self.tick()
                self.scope[stmt.target.id] = item  # type: ignore[attr-defined]
                self.block(stmt.body)
                if self.shell.exited:
                    return
        elif isinstance(stmt, ast.Expr):
            self.expr(stmt.value)

    def name(self, name: str) -> Any:
        if name not in self.scope:
            raise NameError(f"name '{name}' is not defined")
        return self.scope[name]

    def expr(self, node: ast.expr) -> Any:  # one branch per node type of the subset
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.expr(e) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.BinOp):
            return _binary(node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self.expr(node.operand))
        if isinstance(node, ast.BoolOp):
            return self.bool_op(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            return self.expr(node.body) if self.expr(node.test) else self.expr(node.orelse)
        if isinstance(node, ast.Subscript):
            return self.expr(node.value)[self.expr(node.slice)]
        if isinstance(node, ast.JoinedStr):
            return _sized("".join(str(self.expr(v)) for v in node.values))
        if isinstance(node, ast.FormattedValue):
            spec = self.expr(node.format_spec) if node.format_spec is not None else ""
            return format(_CONVERT.get(node.conversion, _same)(self.expr(node.value)), spec)
        if isinstance(node, ast.Attribute):
            return self.attribute(_dotted(node))
        return self.call(node)  # type: ignore[arg-type]

    def bool_op(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for operand in node.values:
            value = self.expr(operand)
            if bool(value) == isinstance(node.op, ast.Or):
                return value
        return value

    def compare(self, node: ast.Compare) -> bool:
        left = self.expr(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.expr(comparator)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def attribute(self, dotted: str) -> Any:
        root = dotted.split(".", 1)[0]
        if not isinstance(self.name(root), _Module):
            raise AttributeError(f"'{type(self.name(root)).__name__}' object has no attribute")
        return self.env if dotted == "os.environ" else _Module(dotted)

    def call(self, node: ast.Call) -> Any:
        func = _dotted(node.func)
        if "." in func:
            self.attribute(func)
        else:
            self.name(func)
        args = [self.expr(a) for a in node.args]
        kwargs = {str(k.arg): self.expr(k.value) for k in node.keywords}
        if func == "print":
            sep, end = kwargs.get("sep", " "), kwargs.get("end", "\n")
            text = (" " if sep is None else str(sep)).join(str(a) for a in args)
            text += "\n" if end is None else str(end)
            self.printed += len(text)
            if self.printed > _MAX_BYTES:
                raise _Unmodelled  # no unbounded log
            self.write(text, _stderr(kwargs.get("file")) or bool(kwargs.get("flush")))
            return None
        if func == "sys.exit":
            value = args[0] if args else None
            if value is None or isinstance(value, int):
                raise _Exit(0 if value is None else value & 0xFF)
            raise _Exit(1, f"{value}\n")  # printed to stderr by the exit, after the buffered stdout
        if func == "time.sleep":
            seconds = _sleep_seconds(args[0])
            self.shell.spend(seconds)
            if self.shell.signalled:
                raise _Exit(self.shell.status)
            return None
        if func in ("os.environ.get", "os.getenv"):
            return self.env.get(args[0], args[1] if len(args) > 1 else None)
        if any(isinstance(a, range) and len(a) > _MAX_ITERATIONS for a in args):
            raise _Unmodelled  # ``max(range(10**12))``: not followed
        return _BUILTINS[func](*args, **kwargs)

    def write(self, text: str, now: bool) -> None:
        """Print ``text``: to the log at once when ``now`` (stderr, ``flush=True``) or unbuffered,
        else held until a flush; 8 KiB held flush on their own."""
        if self.buffered and not now and sum(map(len, self.pending)) + len(text) < _BUFFER:
            self.pending.append(text)
            return
        self.pending.append(text)
        self.flush()

    def flush(self) -> None:
        for text in self.pending:
            self.shell.log(text)
        self.pending.clear()


class _Module:
    def __init__(self, name: str) -> None:
        self.name = name


def _stderr(file: Any) -> bool:
    return isinstance(file, _Module) and file.name == "sys.stderr"


def _same(value: Any) -> Any:
    return value


def _sleep_seconds(value: Any) -> float:
    """``time.sleep``'s argument as CPython takes it (``Modules/timemodule.c``, ``_PyTime_FromObject``):
    a number, not NaN, not negative; an infinite one is not followed."""
    if isinstance(value, str) or not isinstance(value, (int, float)):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    if math.isnan(value):
        raise ValueError("Invalid value NaN (not a number)")
    if math.isinf(value):
        raise _Unmodelled
    if value < 0:
        raise ValueError("sleep length must be non-negative")
    return float(value)


def _sized(value: Any) -> Any:
    """``value`` when the run can hold it: no number, text or list beyond :data:`_MAX_BYTES`."""
    if (isinstance(value, int) and value.bit_length() > 8 * _MAX_BYTES) or (
            isinstance(value, (str, list, tuple)) and len(value) > _MAX_BYTES):
        raise _Unmodelled
    return value


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    if isinstance(op, ast.Pow) and isinstance(right, (int, float)) and \
            (abs(right) > 64 or (isinstance(left, int) and abs(left).bit_length() * abs(right) > 100_000)):
        raise _Unmodelled  # no unbounded numbers
    if isinstance(op, ast.Mult) and any(isinstance(v, int) and v > _MAX_ITERATIONS for v in (left, right)) \
            and any(isinstance(v, (str, list, tuple)) for v in (left, right)):
        raise _Unmodelled  # nor unbounded text
    if isinstance(op, ast.Mod) and isinstance(left, str) and _WIDE.search(left):
        raise _Unmodelled  # nor a printf width that allocates gigabytes
    return _sized(_BINARY[type(op)](left, right))


_CONVERT: dict[int, Any] = {ord("r"): repr, ord("s"): str, ord("a"): ascii}
_UNARY: dict[type, Any] = {ast.Not: lambda v: not v, ast.USub: lambda v: -v, ast.UAdd: lambda v: +v,
                           ast.Invert: lambda v: ~v}
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
           ast.Pow: lambda a, b: a ** b, ast.BitAnd: lambda a, b: a & b, ast.BitOr: lambda a, b: a | b,
           ast.BitXor: lambda a, b: a ^ b}
_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b,
            ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
            ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b}
