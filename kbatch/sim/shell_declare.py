"""The builtins that declare, export, protect and unset a simulated script's variables, and the
assignment words of a command (:mod:`kbatch.sim.shell_vars` keeps the variables).

* ``NAME=V``, ``NAME+=V``, ``NAME[SUB]=V`` (POSIX "Shell Command Language" 2.9.1; ``+=`` and
  subscripts bash's): :func:`assign_words`. A read-only variable refuses and the script ends, with
  dash's ``sh: NAME: is read only`` and status 2 (``bash -c``: ``bash: NAME: readonly variable``,
  status 1).
* ``export [-n] [-p] NAME[=V]…``, ``readonly [-p] NAME[=V]…`` (XCU ``export``, ``readonly``): the
  assignment made, the attribute set; ``-p`` prints them as the shell would read them back (dash:
  ``export NAME='v'``; bash: ``declare -x NAME="v"``); every variable of the container's
  environment is exported. A read-only one refuses (dash: a special builtin's error, the script
  ends with 2; bash: status 1).
* ``declare`` / ``typeset`` ``[-aAilrux] [-g] [-p] [NAME[=V]…]`` (bash(1) ``declare``; dash has
  neither): the attributes (``+x`` takes one away), an integer's value arithmetic, ``-a`` / ``-A`` an
  indexed / associative array (``declare -A m=([k]=v)``); in a function a name is the call's own
  unless ``-g``; ``-p`` prints each as bash does (``declare -ai n=([0]="1")``, ``declare -A
  m=([k]="v" )``; ``NAME: not found``, status 1, for an unset one); ``-f`` prints the functions
  as bash does (:mod:`kbatch.sim.shell_print`), ``-F`` their names (``declare -f NAME``); ``-n``
  makes a name reference (:mod:`kbatch.sim.shell_nameref`).
* ``local [OPTIONS] NAME[=V]…`` (dash, bash): as ``declare`` in the running function. As dash,
  ``local X`` keeps the value ``X`` had; bash (``bash -c``) unsets it. Outside a function dash ends
  the script (``sh: local: not in a function``, 2); bash answers 1 and goes on.
* ``unset [-v|-f] NAME…`` (XCU ``unset``; ``unset 'a[1]'`` bash's): a variable with its elements
  and attributes, an element, or (``-f``) a function.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping

from kbatch.sim.shell_arith import ArithError
from kbatch.sim.shell_input import Input
from kbatch.sim.shell_nameref import bad_reference, circular, declared_name, local_name, unset_target
from kbatch.sim.shell_print import function_text
from kbatch.sim.shell_quote import double_quote
from kbatch.sim.shell_run import Shell
from kbatch.sim.shell_transform import array_value
from kbatch.sim.shell_vars import (
    ARRAY_KEY,
    DECLARED,
    CircularReference,
    ReadonlyError,
    assign,
    attributes,
    deref,
    drop,
    plain,
    set_attributes,
    snapshot,
    unset_element,
)

__all__ = ["DECLARE_COMMANDS", "arith_failed", "assign_words", "declare_internal"]

_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?)(\+?)=(.*)$", re.DOTALL)
_NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*)\])?$", re.DOTALL)
_FLAGS = "aAinrxlu"  # the order ``declare -p`` writes them in (bash ``var_attribute_string``)
_UNEXPORTED = "-"  # an attribute letter: an environment variable ``export -n`` took the export from
Command = Callable[[Shell, list[str], MutableMapping[str, str], Input], None]


def _fail(shell: Shell, message: str, status: int, fatal: bool) -> None:
    shell.error(message)
    shell.status = status
    shell.exited = shell.exited or fatal


def assign_words(shell: Shell, words: list[str], scope: MutableMapping[str, str]) -> bool:
    """An assignment-only command's words, in order; False when one failed (the script ended)."""
    for word in words:
        name, equals, value = word.partition("=")
        if equals and plain(scope, name):  # the usual ``i=1``: nothing to honour
            scope[name] = value
            continue
        found = _WORD.match(word)
        if found is None:
            continue
        if not _assign(shell, scope, found.group(1), found.group(3), found.group(2) == "+", ""):
            return False
    return True


def _assign(shell: Shell, scope: MutableMapping[str, str], target: str, value: str, append: bool,
            builtin: str) -> bool:
    """One assignment; a read-only variable or a bad number is an error (see above)."""
    try:
        assign(scope, target, value, append)
    except ReadonlyError as error:
        _refuse(shell, str(error), builtin)
        return False
    except ArithError as error:
        arith_failed(shell, error)
        return False
    except CircularReference as error:
        return circular(shell, target.partition("[")[0], builtin, error.warn)
    return True


def arith_failed(shell: Shell, error: ArithError) -> None:
    """A subscript or an integer's value that is no arithmetic (``a[1/0]=x``, ``a=([x y]=1)``):
    dash ends the script with 2; bash prints its ``evalerror`` words and abandons the command
    line with status 1 (expr.c ``evalerror`` → ``jump_to_top_level (DISCARD)``), which for a
    ``bash -c`` script is the rest of the script."""
    if shell.bash:
        _fail(shell, f"bash: {error.bash_text or f'arithmetic expression: {error}'}", 1, True)
    else:
        _fail(shell, f"sh: arithmetic expression: {error}", 2, True)


def _refuse(shell: Shell, name: str, builtin: str) -> None:
    """A read-only ``name`` refused: an assignment word ends the script (bash: status 1), a
    builtin answers 1 under bash and ends dash's script with 2 (a special builtin's error)."""
    where = f"{builtin}: " if builtin else ""
    if shell.bash:  # its ``export`` and ``readonly`` do not name themselves
        where = "" if builtin in ("export", "readonly") else where
        _fail(shell, f"bash: {where}{name}: readonly variable", 1, not builtin)
    else:
        _fail(shell, f"sh: {where}{name}: is read only", 2, True)


def _options(args: list[str]) -> tuple[str, str, list[str]]:
    """The letters turned on (``-ai``) and off (``+x``), and the operands."""
    on, off, index = "", "", 0
    while index < len(args) and args[index][:1] in "-+" and len(args[index]) > 1:
        if args[index] == "--":
            index += 1
            break
        if args[index][0] == "-":
            on += args[index][1:]
        else:
            off += args[index][1:]
        index += 1
    return on, off, args[index:]


def _declare(shell: Shell, args: list[str], scope: MutableMapping[str, str], builtin: str) -> None:
    on, off, operands = _options(args)
    shell.status = 0
    if "f" in on or "F" in on:
        _functions(shell, operands, "F" in on)
        return
    if "p" in on:
        _print(shell, operands, scope, builtin, on.replace("p", ""))
        return
    declaring = builtin in ("declare", "typeset", "")  # "": bash's internal one (:func:`declare_internal`)
    local = builtin == "local" or (declaring and bool(shell.frames) and "g" not in on)
    if local and not _localize(shell, operands, scope, "n" in on + off):
        return
    letters = "".join(ch for ch in on if ch in _FLAGS and ch != "r")
    for operand in operands:
        found = _WORD.match(operand)
        name = (found.group(1) if found else operand).partition("[")[0]
        if found is None and (name := declared_name(shell, scope, name, on + off, builtin)) is None:
            continue
        if "r" in attributes(scope, name) and (found or off or letters):
            _refuse(shell, name, builtin)
            if shell.exited:
                return
            continue
        if "n" in letters and found is not None:  # ``declare -n r=x``: the reference itself is set
            if (message := bad_reference(name, found.group(3))) is not None:
                _fail(shell, f"bash: {builtin}: {message}", 1, False)
                continue
            set_attributes(scope, name, letters, off + DECLARED)
            scope[name] = found.group(3)
            continue
        known = found or name in scope or attributes(scope, name)  # ``e=(); declare -a e``: still assigned
        set_attributes(scope, name, letters + ("" if known else DECLARED), off)
        if "a" in letters and name in scope and ARRAY_KEY.format(name, 0) not in scope:
            scope[ARRAY_KEY.format(name, 0)] = scope[name]
        if found is not None and _string_compound(scope, found.group(1), found.group(3)):
            from kbatch.sim.shell_compound import assign_array  # it runs declarations itself
            compound = (name, found.group(2) == "+", found.group(3)[1:-1])
            if not assign_array(shell, compound, scope, traced=False):
                return
        elif found is not None and not _assign(shell, scope, found.group(1), found.group(3),
                                               found.group(2) == "+", builtin):
            return
        if "r" in on:  # ``declare -r x=1``: assigned, then protected
            set_attributes(scope, name, "r")


def _functions(shell: Shell, names: list[str], names_only: bool) -> None:
    """``declare -f [NAME…]``: each function (sorted) as bash prints it (:mod:`kbatch.sim.shell_print`),
    ``-F`` its name alone (``declare -f NAME`` without operands); status 1 when a NAME is no function
    (bash ``builtins/declare.def``)."""
    for name in names or sorted(shell.functions):
        if name not in shell.functions:
            shell.status = 1
        elif names_only:
            shell.out(f"{'' if names else 'declare -f '}{name}\n")
        else:
            shell.out(function_text(name, shell.functions[name]) + "\n")


def _localize(shell: Shell, operands: list[str], scope: MutableMapping[str, str], reference: bool) -> bool:
    """The operands' names become the running call's own (their state put back when it returns)."""
    if not shell.frames:
        if shell.bash:
            _fail(shell, "bash: local: can only be used in a function", 1, False)
        else:
            _fail(shell, "sh: local: not in a function", 2, True)
        return False
    frame = shell.frames[-1]
    for operand in operands:
        name = operand.partition("=")[0].partition("[")[0].rstrip("+")
        if not reference:  # ``local r`` of a reference: the variable it names becomes the call's own
            name = local_name(scope, name)
        if name not in frame:
            frame[name] = snapshot(scope, name)
            if shell.bash and "=" not in operand:
                drop(scope, name)
    return True


def _print(shell: Shell, names: list[str], scope: MutableMapping[str, str], builtin: str, only: str) -> None:
    """``declare -p`` / ``export -p`` / ``readonly -p``: each variable as the shell reads it back."""
    if not names:
        names = sorted(name for name in _variables(scope)
                       if all(ch in _letters(shell, scope, name) for ch in only))
    for name in names:
        if name not in scope and not attributes(scope, name):
            shell.error(f"{'bash' if shell.bash else 'sh'}: {builtin}: {name}: not found")
            shell.status = 1
            continue
        shell.out(_declaration(shell, scope, name, builtin) + "\n")


def _variables(scope: MutableMapping[str, str]) -> set[str]:
    names = {key for key in scope if _NAME.match(key) and "[" not in key}
    return names | {key[2:] for key in scope if key.startswith("=@")}


def _letters(shell: Shell, scope: MutableMapping[str, str], name: str) -> str:
    """``name``'s attribute letters in ``declare``'s order; the environment's variables exported."""
    letters = attributes(scope, name)
    if name in shell.environ and _UNEXPORTED not in letters:
        letters += "x"
    return "".join(ch for ch in _FLAGS if ch in letters)


def _declaration(shell: Shell, scope: MutableMapping[str, str], name: str, builtin: str) -> str:
    letters = _letters(shell, scope, name)
    if not shell.bash:  # dash: ``export NAME='v'``
        value = scope.get(name)
        quoted = "" if value is None else "='" + value.replace("'", "'\"'\"'") + "'"
        return f"{builtin} {name}{quoted}"
    head = f"declare -{letters or '-'} {name}"
    if "a" in letters or "A" in letters:
        value = array_value(scope, name)
        return head if value is None else f"{head}={value}"
    value = scope.get(name)
    return head if value is None else f"{head}={double_quote(value)}"


def _export(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    _mark(shell, args, scope, "export", "x")


def _readonly(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    _mark(shell, args, scope, "readonly", "r")


def _mark(shell: Shell, args: list[str], scope: MutableMapping[str, str], builtin: str, letter: str) -> None:
    """``export`` / ``readonly``: each operand assigned (when it has ``=``) and given ``letter``;
    ``export -n`` takes the export away; ``-p`` (or no operand) prints them."""
    on, _, operands = _options(args)
    shell.status = 0
    if "p" in on or not operands:
        _print(shell, operands, scope, builtin, letter)
        return
    for operand in operands:
        found = _WORD.match(operand)
        name = found.group(1) if found else operand
        if found is not None and not _assign(shell, scope, name, found.group(3), found.group(2) == "+",
                                             builtin):
            return
        name = deref(scope, name)  # ``export r`` of a reference exports its variable
        if "n" in on:
            set_attributes(scope, name, _UNEXPORTED if name in shell.environ else "", remove=letter)
        else:
            set_attributes(scope, name, letter, remove=_UNEXPORTED)


def _unset(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
    on, _, operands = _options(args)
    shell.status = 0
    for operand in operands:
        if "f" in on:
            shell.functions.pop(operand, None)
            continue
        found = _NAME.match(operand)
        if found is None:
            continue
        name, subscript = found.groups()
        try:
            if "n" not in on:  # ``unset r`` unsets the variable a reference names; ``unset -n r`` it
                name, _, rest = unset_target(shell, scope, name).partition("[")
                subscript = rest[:-1] if rest else subscript
            elif "n" not in attributes(scope, name):  # ``unset -n x`` of no reference: nothing
                continue
            if subscript is not None:
                unset_element(scope, name, subscript)
            elif "r" in attributes(scope, name):
                raise ReadonlyError(name)
            else:
                drop(scope, name)
        except ArithError as error:  # ``unset 'a[1/0]'``: as ``a[1/0]=x``
            arith_failed(shell, error)
            return
        except ReadonlyError:
            if shell.bash:
                _fail(shell, f"bash: unset: {name}: cannot unset: readonly variable", 1, False)
                continue
            _fail(shell, f"sh: unset: {name}: is read only", 2, True)
            return


def _string_compound(scope: MutableMapping[str, str], target: str, value: str) -> bool:
    """``declare -a 'a=(1 2)'``, ``declare -A m=$v`` with ``v='([k]=v)'``: a value that reads
    ``(…)`` given to an array (made so by the options or already one) is a compound assignment,
    its words expanded once more (``builtins/declare.def``: ``compound_array_assign``)."""
    return value[:1] == "(" and value[-1:] == ")" and "[" not in target and \
        any(ch in attributes(scope, target) for ch in "aA")


def declare_internal(shell: Shell, args: list[str], scope: MutableMapping[str, str]) -> None:
    """The ``declare`` bash runs for a declaration's compound operand before assigning it (subst.c
    ``make_internal_declare`` calls ``declare_builtin`` whatever the command: ``local a=(1)``
    outside a function makes a global ``a``; ``args``: the options it passes on and the name): a
    refusal names no builtin and ends the script, an expansion's error."""
    _declare(shell, args, scope, "")


def _builtin(name: str) -> Command:
    def run(shell: Shell, args: list[str], scope: MutableMapping[str, str], stdin: Input) -> None:
        _declare(shell, args, scope, name)
    return run


DECLARE_COMMANDS: dict[str, Command] = {
    "declare": _builtin("declare"), "typeset": _builtin("typeset"), "local": _builtin("local"),
    "export": _export, "readonly": _readonly, "unset": _unset,
}
