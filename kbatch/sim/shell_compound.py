"""bash's compound assignments in a simulated script: ``NAME=(WORD…)`` and ``NAME+=(WORD…)`` alone,
among other assignment words (``a=(x y) b=2``), or as operands of a declaration builtin
(``declare -a a=(x) b=2``, ``local``, ``typeset``, ``export``, ``readonly``); bash(1) "Arrays".

* A command of assignment words makes them one after the other, each expanded once the one
  before is made: ``b=1 a=(…) b=2`` assigns ``b``, then ``a``, then ``b`` again, and ``x=1 y=$x``
  gives ``y`` 1, in dash too (bash traces each on its own line, a compound one as written; dash
  the command once). An arithmetic error in a subscript abandons the rest (expr.c
  ``evalerror`` → ``DISCARD``): the assignments before it stay, those after it are not made.
* A declaration's compound operands are made while its words are expanded, before the builtin
  runs (subst.c ``expand_declaration_argument``): each by an internal ``declare`` of the name with
  the options that change values (``-i -l -u``, ``-a``/``-A``, ``-g``; ``make_internal_declare``,
  a ``declare`` under ``local`` too: outside a function ``local a=(1)`` still makes ``a``),
  traced as ``a=('x' ['k']='v')``, then assigned; the builtin then runs with the name in the
  operand's place (``declare -a a b=2``), so ``declare -r`` protects the array after it is made.
  A refusal there (a read-only name) is fatal, as the expansion's error it is.
* The words inside the parentheses (arrayfunc.c ``expand_compound_array_assignment``): a word
  ``[K]=V`` or ``[K]+=V`` (``[`` unquoted, read to its ``]`` blanks and all: parse.y under
  ``PST_COMPASSIGN``) is an assignment word: ``K`` and ``V`` are expanded but neither split into
  fields nor globbed (``W_NOSPLIT``; ``quote_array_assignment_chars``: ``W_NOGLOB``); every other
  word is expanded as a command's argument (split, globbed; ``x=$v`` too). A brace expansion
  (``[0]={a,b}``) makes plain words of an element word, as bash's comes first.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from kbatch.sim.shell_arith import ArithError
from kbatch.sim.shell_arrays import Item, set_array, subscript_blanks
from kbatch.sim.shell_brace import brace_words
from kbatch.sim.shell_expand import dequote
from kbatch.sim.shell_quote import single_quote
from kbatch.sim.shell_redirect import run_with_redirections
from kbatch.sim.shell_run import Shell, expand_text, pathnames
from kbatch.sim.shell_scan import COMMENT, FREE, scan
from kbatch.sim.shell_trace import trace, trace_line
from kbatch.sim.shell_vars import DECLARATIONS, ReadonlyError, is_assoc
from kbatch.sim.shell_words import command_words

__all__ = ["assign_array", "compound_words", "run_compound_words"]

_COMPOUND = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)\)$", re.DOTALL)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")
_LATER_ASSIGNMENT = re.compile(r"\s[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")  # a second one, maybe
_INTERNAL = "ilu"  # the options ``make_internal_declare`` passes on (bash's ``I`` and ``c``: none here)
_NO_SUBSCRIPT = "must use subscript when assigning associative array"
Compound = tuple[str, bool, str]
"""``(name, appends, words as written)`` of ``NAME[+]=(WORDS)``."""


def raw_words(text: str) -> list[str]:
    """``text``'s words as written, split at its unquoted blanks outside any nesting (a
    ``NAME=( … )`` one word); comments left out."""
    out: list[str] = []
    word: list[str] = []
    for _, ch, depth, kind in scan(text, comments=True):
        if kind == COMMENT:
            continue
        if kind == FREE and depth == 0 and ch in " \t\n":
            if word:
                out.append("".join(word))
                word = []
            continue
        word.append(ch)
    if word:
        out.append("".join(word))
    return out


def compound_words(command: str) -> list[str] | None:
    """The words of a command that makes a compound assignment among others (assignment words
    only, or a declaration builtin's operands), or of assignment words a later one of which
    expands something an earlier one may set (``x=1 y=$x``: dash and bash assign in turn), those
    with redirections too (``x=1 y=$x >/dev/null``, ``x=1 >$x``); None for any other command."""
    compound, command = "=(" in command, command.strip()
    if not compound and not (("$" in command or "`" in command) and _ASSIGNMENT.match(command)
                             and (_LATER_ASSIGNMENT.search(command) or ">" in command or "<" in command)):
        return None
    words = raw_words(command)
    if compound and not any(_COMPOUND.match(word) for word in words):
        return None
    assignments, redirections = _redirections(words)
    if assignments and all(_ASSIGNMENT.match(word) for word in assignments) and (
            compound or len(assignments) > 1 or redirections):
        return words
    return words if compound and words[0] in DECLARATIONS else None


_REDIRECTION = re.compile(r"^(?:\d*|&)(?:>>?|<(?!<)|>&|<&|>\|)")  # a redirection as written (no heredoc)


def _redirections(words: list[str]) -> tuple[list[str], list[str]]:
    """``words`` (as written) parted into the other words and the redirections (an operator
    written apart from its target takes the next word: ``> f``)."""
    others: list[str] = []
    found: list[str] = []
    pos = 0
    while pos < len(words):
        word = words[pos]
        pos += 1
        if (op := _REDIRECTION.match(word)) is None:
            others.append(word)
            continue
        found.append(word)
        if op.end() == len(word) and pos < len(words):
            found.append(words[pos])
            pos += 1
    return others, found


def run_compound_words(shell: Shell, words: list[str], scope: MutableMapping[str, str]) -> str | None:
    """Run :func:`compound_words`'s command: assignment words each in turn (None: nothing left to
    run); a declaration's compound operands, answering the declaration left to run with their
    names in their place (None: the shell has exited)."""
    if words[0] in DECLARATIONS:
        return _declaration(shell, words, scope)
    words, redirections = _redirections(words)
    if not redirections:
        _assign_in_turn(shell, words, scope)
    elif shell.bash:  # ``execute_null_command``: the assignments, then the redirections, expanded after them
        if _assign_in_turn(shell, words, scope):
            run_with_redirections(shell, " ".join(redirections), scope, lambda: None)
    else:  # dash opens the redirections first, the assignments' expansions inside them
        run_with_redirections(shell, " ".join(redirections), scope,
                              lambda: _assign_in_turn(shell, words, scope))
    return None


def _assign_in_turn(shell: Shell, words: list[str], scope: MutableMapping[str, str]) -> bool:
    """Assignment words (as written) each expanded and made in turn; False when one failed."""
    made: list[str] = []  # dash traces them on one line, once made
    for word in words:
        if (found := _COMPOUND.match(word)) is not None:
            done = assign_array(shell, (found.group(1), found.group(2) == "+", found.group(3)), scope)
        else:
            text = expand_text(shell, word, scope, fields=True)
            if text is None:
                return False
            argv = [w.text for w in command_words(text)]
            if shell.bash:
                trace(shell, argv, scope)
            made += argv
            done = assign_words(shell, argv, scope)
        if not done:
            return False
    if not shell.bash:
        trace(shell, made, scope)
    shell.status = shell.substituted or 0
    return True


def _declaration(shell: Shell, words: list[str], scope: MutableMapping[str, str]) -> str | None:
    start = 1
    while start < len(words) and words[start][:1] in "-+" and words[start][1:].isalpha():
        start += 1
    on = "".join(word[1:] for word in words[1:start] if word[0] == "-")
    off = "".join(word[1:] for word in words[1:start] if word[0] == "+")
    internal = [f"{sign}{letters}" for sign, letters in
                (("-", "".join(ch for ch in on if ch in _INTERNAL + "aAg")),
                 ("+", "".join(ch for ch in off if ch in _INTERNAL))) if letters]
    left = words[:start]
    for word in words[start:]:
        found = _COMPOUND.match(word)
        if found is None:
            left.append(word)
            continue
        name = found.group(1)
        declare_internal(shell, [*internal, name], scope)
        if shell.exited or not assign_array(shell, (name, found.group(2) == "+", found.group(3)), scope,
                                            quoted_trace=True):
            return None
        left.append(name)
    return " ".join(left)


def assign_array(shell: Shell, compound: Compound, scope: MutableMapping[str, str],
                 quoted_trace: bool = False, traced: bool = True) -> bool:
    """``NAME=(WORDS)`` (see above); False when it failed (the shell has exited). bash traces the
    words as written, or (``quoted_trace``: a declaration's) expanded and single-quoted; not at
    all when not ``traced`` (``declare -a 'a=(…)'``: only the ``declare``)."""
    name, append, text = compound
    assigning = f"{name}{'+' if append else ''}="
    if shell.bash and traced and not quoted_trace:
        trace_line(shell, f"{assigning}({text})", scope)
    words = _Words(shell, scope, is_assoc(scope, name), quoted_trace)
    if not words.read(name, raw_words(subscript_blanks(text))):  # ``[two words]=x``: one word
        return False
    if quoted_trace:
        trace_line(shell, f"{assigning}({' '.join(words.traced)})", scope)
    elif not shell.bash and traced:
        trace(shell, [f"{assigning}({' '.join(value for _, value, _ in words.items)})"], scope)
    for message in words.errors:
        shell.error(f"bash: {message}")
    try:
        set_array(scope, name, words.items, append)
    except ReadonlyError:
        return assign_words(shell, [f"{name}=()"], scope)  # refused as the assignment is
    except ArithError as error:  # ``a=([1/0]=x)``: as ``a[1/0]=x`` is
        arith_failed(shell, error)
        return False
    shell.status = shell.substituted or 0
    return True


class _Words:
    """A compound assignment's words read into elements (``items``: ``(key, value, appends)``, key
    None for a word with no ``[K]=``), with their trace (``traced``: a declaration's, each single-quoted)
    and the errors an associative array's words make (arrayfunc.c ``assign_compound_array_list``):
    a word with no ``[K]=`` (``NAME: W: must use subscript when assigning associative array``), an
    empty key (``W: bad array subscript``), W as written (a declaration's: expanded and quoted).
    An associative array's words whose first has no ``[K]=`` are key-value pairs instead (bash 5.2,
    ``assign_assoc_from_kvlist``): each expanded as one word, a last key alone given ``""``."""

    def __init__(self, shell: Shell, scope: MutableMapping[str, str], assoc: bool, quoted: bool) -> None:
        self.shell, self.scope, self.assoc, self.quoted = shell, scope, assoc, quoted
        self.items: list[Item] = []
        self.traced: list[str] = []
        self.errors: list[str] = []

    def one(self, text: str) -> str | None:
        """``text`` expanded as one word (not split, not globbed)."""
        expanded = expand_text(self.shell, text, self.scope, fields=True, assigning=True)
        return None if expanded is None else dequote(expanded)

    def read(self, name: str, words: list[str]) -> bool:
        """The words read; False when an expansion failed (the shell has exited)."""
        if self.assoc and words and _element(words[0]) is None:
            return self._pairs(words)
        for word in words:
            braced = brace_words(word) if self.shell.bash and "{" in word else word
            element = _element(word) if braced == word else None
            if element is not None:
                if (key := self.one(element[0])) is None or (value := self.one(element[2])) is None:
                    return False
                traced = f"[{single_quote(key)}]{'+' if element[1] else ''}={single_quote(value)}"
                if self.assoc and not key:
                    self.errors.append(f"{traced if self.quoted else word}: bad array subscript")
                else:
                    self.items.append((key, value, element[1]))
                self.traced.append(traced)
                continue
            if self.assoc:  # refused as written (subst.c ``expand_oneword``: not expanded)
                self.traced.append(single_quote(word))
                self.errors.append(f"{name}: {single_quote(word) if self.quoted else word}: {_NO_SUBSCRIPT}")
                continue
            expanded = expand_text(self.shell, braced, self.scope, fields=True, assigning=False)
            if expanded is None:
                return False
            for value in pathnames(self.shell, command_words(expanded)):
                self.items.append((None, value, False))
                self.traced.append(single_quote(value))
        return True

    def _pairs(self, words: list[str]) -> bool:
        for at in range(0, len(words), 2):
            key = self.one(words[at])
            value = self.one(words[at + 1]) if at + 1 < len(words) else ""
            if key is None or value is None:
                return False
            self.traced += [single_quote(key)] + ([single_quote(value)] if at + 1 < len(words) else [])
            if not key:
                self.errors.append(f"{single_quote(key) if self.quoted else words[at]}: bad array subscript")
                continue
            self.items.append((key, value, False))
        return True


def _element(word: str) -> tuple[str, bool, str] | None:
    """``[K]=V`` / ``[K]+=V`` as written: ``(K, appends, V)``, the ``[`` unquoted and the ``]`` the
    first unquoted one followed by ``=`` or ``+=``; None for another word."""
    if word[:1] != "[":
        return None
    for pos, ch, _, kind in scan(word, 1, nest=False):
        if ch != "]" or kind != FREE:
            continue
        if word[pos + 1:pos + 2] == "=":
            return word[1:pos], False, word[pos + 2:]
        if word[pos + 1:pos + 3] == "+=":
            return word[1:pos], True, word[pos + 3:]
    return None


from kbatch.sim.shell_declare import arith_failed, assign_words, declare_internal  # noqa: E402  (they take a Shell)
