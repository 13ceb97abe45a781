"""bash's ways of quoting a value to be read back (``lib/sh/shquote.c``), shared by the trace,
``declare -p`` and the ``${P@Q}`` / ``${P@K}`` / ``${P@A}`` transformations.

* :func:`single_quote`: ``${P@Q}``'s ``'…'`` with each ``'`` as ``'\\''`` (a lone one ``\\'``),
  bash's ``$'…'`` when the
  value holds a byte that is not printable ASCII (``sh_quote_reusable``).
* :func:`double_quote`: ``declare -p``'s and ``${a[@]@K}``'s ``"…"`` with ``\\ " $ ``` backslashed
  (``sh_double_quote``), ``$'…'`` likewise.
* :func:`bash_quote`: the trace's words, quoted only when they need it; :func:`key_quote` an
  associative array's key as ``declare -p`` and ``@K`` write it.
"""

from __future__ import annotations

from kbatch.sim.shell_printf import ansi_c_quote

__all__ = ["bash_quote", "double_quote", "key_quote", "single_quote"]

_METAS = frozenset(" \t\n'\"\\|&;()<>!{}*[?]^$`")


def _unprintable(value: str) -> bool:
    return any(not " " <= ch <= "~" for ch in value)


def single_quote(value: str) -> str:
    """``value`` as ``${P@Q}`` quotes it."""
    if _unprintable(value):
        return ansi_c_quote(value)
    return _single(value)


def _single(value: str) -> str:
    """``sh_single_quote``: a lone ``'`` is ``\\'``."""
    return "\\'" if value == "'" else "'" + value.replace("'", "'\\''") + "'"


def double_quote(value: str) -> str:
    """A value as ``declare -p`` writes it: double-quoted with ``\\ " $ ``` backslashed, or bash's
    ``$'…'`` when it holds a newline or a byte that is not printable ASCII."""
    if _unprintable(value):
        return ansi_c_quote(value)
    return '"' + "".join("\\" + ch if ch in '\\"$`' else ch for ch in value) + '"'


def bash_quote(word: str) -> str:
    """``word`` as bash's trace writes it (``sh_contains_shell_metas`` then ``sh_single_quote``, or
    ``ansic_shouldquote`` then ``ansic_quote``; ``lib/sh/shquote.c``): ``''`` when empty, single
    quotes around a word holding a shell metacharacter (``~`` first or after ``=`` / ``:``, ``#``
    first), ``$'…'`` around one holding a byte that is not printable ASCII, else as it is."""
    if not word:
        return "''"
    if _has_metas(word):
        return _single(word)
    if _unprintable(word):
        return ansi_c_quote(word)
    return word


def key_quote(key: str) -> str:
    """An associative array's key: double-quoted when the trace would quote it, else as it is."""
    return double_quote(key) if bash_quote(key) != key else key


def _has_metas(word: str) -> bool:
    for pos, ch in enumerate(word):
        if ch in _METAS or (ch == "~" and (pos == 0 or word[pos - 1] in "=:")) or (ch == "#" and pos == 0):
            return True
    return False
