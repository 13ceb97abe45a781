"""Pathname expansion of a simulated script's words against the container's files.

POSIX "Shell Command Language" 2.6.6 and 2.13.3: after field splitting, a word holding an unquoted
``*``, ``?`` or a bracket expression ``[…]`` is a pattern; it is replaced by the pathnames it
matches, sorted (the C locale's byte order: no ``LANG`` in a container), or left as written when
none matches (dash, bash without ``nullglob``). ``/`` is never matched by a pattern character, and
a name's leading ``.`` only by a literal one (2.13.3); ``set -f`` turns expansion off (2.6.6).
Quoted or escaped characters match themselves (2.13.1): :func:`kbatch.sim.shell_syntax.command_words`
marks the unquoted ones with :data:`STAR`, :data:`QUESTION` and :data:`BRACKET`, which stand for
pattern characters here; every other character is literal.

Bracket expressions (2.13.1, XBD 9.3.5): a leading ``!`` (or bash's ``^``) negates, a ``]`` first
is literal, ``a-z`` ranges (code point order, the C locale's), ``[:alpha:]``-style classes. A ``[``
without its closing ``]`` is a literal ``[`` (so ``[ -f x ]`` is no pattern).

The files (:class:`kbatch.sim.files.FileSystem`) are the container's mounts, its own layer and the
image directories; names starting with ``.`` are not kept there, so ``.*`` matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kbatch.sim.files import FileSystem, resolve

__all__ = ["BRACKET", "MARKS", "MAX_PATHS", "QUESTION", "STAR", "expand_pathname", "literal", "pattern_regex"]

STAR, QUESTION, BRACKET = "\ue7f0", "\ue7f1", "\ue7f2"
"""Unquoted ``*``, ``?``, ``[`` in a word (private-use characters no script is expected to hold)."""
MARKS = {"*": STAR, "?": QUESTION, "[": BRACKET}
_UNMARK = str.maketrans({mark: ch for ch, mark in MARKS.items()})
MAX_PATHS = 100_000
"""Pathnames one word may expand to (past it the word is left as written)."""
_CLASSES = {
    "alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
    "xdigit": "0-9A-Fa-f", "cntrl": "\\x00-\\x1f\\x7f", "print": " -~", "graph": "!-~",
}


def literal(word: str) -> str:
    """The word as written (its pattern characters back as ``*``, ``?``, ``[``)."""
    return word.translate(_UNMARK)


def _bracket(pattern: str, start: int) -> tuple[str, int] | None:
    """The regex class of the bracket expression whose ``[`` is before ``start``, and the index past
    its ``]``; None when it has no closing ``]`` (then the ``[`` is literal)."""
    text = literal(pattern)
    pos, negate = start, False
    if pos < len(text) and text[pos] in "!^":
        negate, pos = True, pos + 1
    parts: list[str] = []
    first = pos
    while pos < len(text):
        ch = text[pos]
        if ch == "]" and pos > first:
            body = "".join(parts)
            return (f"[^/{body}]" if negate else f"[{body}]"), pos + 1
        if ch == "[" and text.startswith("[:", pos):
            end = text.find(":]", pos + 2)
            name = text[pos + 2:end] if end > 0 else ""
            if name in _CLASSES:
                parts.append(_CLASSES[name])
                pos = end + 2
                continue
        if text.startswith("-", pos + 1) and pos + 2 < len(text) and text[pos + 2] != "]":
            low, high = ch, text[pos + 2]
            parts.append(f"{re.escape(low)}-{re.escape(high)}" if low <= high else "")
            pos += 3
            continue
        parts.append(re.escape(ch))
        pos += 1
    return None


def pattern_regex(component: str) -> re.Pattern[str] | None:
    """The regular expression one path component's pattern matches, or None when it holds no
    pattern character (a ``[`` without ``]`` is none)."""
    out: list[str] = []
    magic = False
    pos = 0
    while pos < len(component):
        ch = component[pos]
        pos += 1
        if ch == STAR:
            out.append("[^/]*")
            magic = True
        elif ch == QUESTION:
            out.append("[^/]")
            magic = True
        elif ch == BRACKET and (found := _bracket(component, pos)) is not None:
            out.append(found[0])
            pos, magic = found[1], True
        else:
            out.append(re.escape(literal(ch)))
    return re.compile("".join(out), re.DOTALL) if magic else None


def expand_pathname(word: str, cwd: str, files: FileSystem) -> list[str] | None:
    """The pathnames ``word`` (with pattern marks) matches, sorted; None when it is no pattern or
    matches nothing (the word then stays as written)."""
    components = word.split("/")
    if not any(pattern_regex(c) is not None for c in components):
        return None
    found = [""] if components[0] else ["/"]
    for index, component in enumerate(components[1:] if not components[0] else components):
        last = index == len(components) - (1 if components[0] else 2)
        found = list(_step(found, component, cwd, files, last))
        if not found or len(found) > MAX_PATHS:
            return None
    return sorted(found)


def _join(prefix: str, name: str) -> str:
    return prefix + name if not prefix or prefix.endswith("/") else f"{prefix}/{name}"


def _step(prefixes: Iterable[str], component: str, cwd: str, files: FileSystem, last: bool) -> Iterable[str]:
    """The paths one more component leads to from each of ``prefixes`` (paths found so far)."""
    regex = pattern_regex(component)
    for prefix in prefixes:
        directory = resolve(cwd, prefix or ".")
        if regex is None:
            if component == "":  # ``dir/`` (a trailing slash: directories only) or ``a//b``
                if files.is_dir(directory):
                    yield prefix + "/"
                continue
            path = _join(prefix, literal(component))
            if files.exists(resolve(cwd, path)) if last else files.is_dir(resolve(cwd, path)):
                yield path
            continue
        names = files.listdir(directory) or ()
        for name in names:
            if name.startswith(".") and not component.startswith("."):
                continue
            if regex.fullmatch(name) and (last or files.is_dir(resolve(cwd, _join(prefix, name)))):
                yield _join(prefix, name)
