"""The text filters a pipeline's consumers are: ``grep``, ``wc``, ``head``, ``tail``, ``sort``,
``tr``, ``cut`` and ``rev``, on their standard input or file operands, as GNU coreutils/grep run them in
the C locale (a container sets no ``LANG``). Each is pure: ``(args, stdin, read) -> (output,
errors, status)``, where ``read(path)`` is a file's content (None: missing).

Only the options listed in :data:`OPTIONS` are modelled; :func:`modelled_filter` says whether a
command line stays inside them, and one that does not is "anything else" (the create-time warning
names it). Messages are GNU's (``grep: F: No such file or directory``, status 2 for grep, 1 for the
others). Where busybox differs: ``wc`` pads its columns differently when it prints several.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["FILTERS", "OPTIONS", "modelled_filter", "run_filter"]

Read = Callable[[str], "str | None"]
Result = tuple[str, list[str], int]

OPTIONS: dict[str, tuple[str, str]] = {
    # name: (flags without a value, flags taking a value)
    "grep": ("vicqnxwFEsGh", "e"),
    "wc": ("lwcm", ""),
    "head": ("", "nc"),
    "tail": ("", "nc"),
    "sort": ("rnu", ""),
    "tr": ("ds", ""),
    "cut": ("s", "dfcb"),
    "rev": ("", ""),
}
FILTERS = frozenset(OPTIONS)


def _parse(name: str, args: list[str]) -> tuple[dict[str, str], list[str]] | None:
    """Options (flag → value, ``""`` for a plain flag) and operands; None when an option is not
    modelled. ``-5`` is ``-n 5`` for head and tail."""
    plain, valued = OPTIONS[name]
    opts: dict[str, str] = {}
    operands: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            operands.extend(args[index:])
            break
        if not arg.startswith("-") or arg == "-" or operands:
            operands.append(arg)
            continue
        if name in ("head", "tail") and re.fullmatch(r"-\d+", arg):
            opts["n"] = arg[1:]
            continue
        pos = 1
        while pos < len(arg):
            flag = arg[pos]
            if flag in valued:
                value = arg[pos + 1:]
                if not value:
                    if index >= len(args):
                        return None
                    value, index = args[index], index + 1
                opts[flag] = value
                break
            if flag not in plain:
                return None
            opts[flag] = ""
            pos += 1
    return opts, operands


def modelled_filter(argv: list[str]) -> bool:
    """Is this filter command line (unexpanded: a word with ``$`` is taken as fine) modelled?"""
    if argv[0] not in OPTIONS:
        return False
    parsed = _parse(argv[0], [a for a in argv[1:] if "$" not in a])
    if parsed is None:
        return False
    opts, operands = parsed
    if argv[0] == "tr":
        return 1 <= len(operands) <= 2 and not ("d" in opts and len(operands) > 1 and "s" not in opts)
    if argv[0] == "cut":
        return ("f" in opts) != ("c" in opts or "b" in opts)
    return True


def run_filter(name: str, args: list[str], stdin: str, read: Read) -> Result:
    parsed = _parse(name, args)
    if parsed is None:
        return "", [f"{name}: invalid option"], 2 if name == "grep" else 1
    opts, operands = parsed
    if name == "grep":
        return _grep(opts, operands, stdin, read)
    if name == "tr":
        return _tr(opts, operands, stdin)
    texts, errors = _inputs(name, operands, stdin, read)
    status = 1 if errors else 0
    if name == "rev":
        return _rev(texts), [e.replace("rev: ", "rev: cannot open ", 1) for e in errors], status
    if name == "wc":
        return _wc(opts, texts, stdin_only=not operands), errors, status
    if name in ("head", "tail") and "c" in opts:
        return _bytes(name, opts["c"], texts, len(operands) > 1), errors, status
    if name in ("head", "tail"):
        return _head_tail(name, opts.get("n", "10"), texts, len(operands) > 1), errors, status
    if name == "sort":
        return _sort(opts, "".join(t for _, t in texts)), errors, status
    return _cut(opts, "".join(t for _, t in texts)), errors, status


def _inputs(name: str, operands: list[str], stdin: str,
            read: Read) -> tuple[list[tuple[str, str]], list[str]]:
    texts: list[tuple[str, str]] = []
    errors: list[str] = []
    for operand in operands or ["-"]:
        content = stdin if operand == "-" else read(operand)
        if content is None:
            errors.append(f"{name}: {operand}: No such file or directory")
            continue
        texts.append((operand, content))
    return texts, errors


def _lines(text: str) -> list[str]:
    """The lines of ``text`` without their newlines (a last line without one counts)."""
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


def _rev(texts: list[tuple[str, str]]) -> str:
    """util-linux ``rev [FILE…]`` (busybox's alike): each line's characters in reverse order, the
    newline kept where it was (kubernetes/website ``application/job/indexed-job.yaml`` runs
    ``rev /input/data.txt``); a missing file is ``rev: cannot open F: …`` and status 1."""
    out = []
    for _, text in texts:  # lines end at "\n" only (str.splitlines would split at "\r" too)
        lines = text.split("\n")
        out.append("\n".join(line[::-1] for line in lines))
    return "".join(out)


# --- grep ---------------------------------------------------------------------------------------
def _grep(opts: dict[str, str], operands: list[str], stdin: str, read: Read) -> Result:
    if "e" in opts:
        pattern = opts["e"]
    elif operands:
        pattern, operands = operands[0], operands[1:]
    else:
        return "", ["Usage: grep [OPTION]... PATTERNS [FILE]..."], 2
    try:
        regex = _regex(pattern, opts)
    except re.error:
        return "", ["grep: Invalid regular expression"], 2
    out: list[str] = []
    errors: list[str] = []
    matched = False
    many = len(operands) > 1 and "h" not in opts
    for operand in operands or ["-"]:
        content = stdin if operand == "-" else read(operand)
        if content is None:
            if "s" not in opts:
                errors.append(f"grep: {operand}: No such file or directory")
            continue
        prefix = ("(standard input)" if operand == "-" else operand) + ":" if many else ""
        count = 0
        for number, line in enumerate(_lines(content), 1):
            if (regex.search(line) is not None) == ("v" in opts):
                continue
            count += 1
            if "c" not in opts and "q" not in opts:
                out.append(f"{prefix}{number}:{line}\n" if "n" in opts else f"{prefix}{line}\n")
        matched = matched or count > 0
        if "c" in opts and "q" not in opts:
            out.append(f"{prefix}{count}\n")
        if matched and "q" in opts:
            return "", [], 0
    return "".join(out), errors, 2 if errors and not ("q" in opts and matched) else 0 if matched else 1


def _regex(pattern: str, opts: dict[str, str]) -> re.Pattern[str]:
    body = re.escape(pattern) if "F" in opts else pattern if "E" in opts else _bre(pattern)
    if "x" in opts:
        body = f"^(?:{body})$"
    elif "w" in opts:
        body = rf"(?<![\w])(?:{body})(?![\w])"
    return re.compile(body, re.IGNORECASE if "i" in opts else 0)


def _bre(pattern: str) -> str:
    """A POSIX basic regular expression as Python's: ``\\( \\) \\{ \\} \\| \\+ \\?`` are the
    operators, the bare characters literal; ``*`` first is literal."""
    out: list[str] = []
    pos = 0
    while pos < len(pattern):
        ch = pattern[pos]
        if ch == "\\" and pos + 1 < len(pattern):
            nxt = pattern[pos + 1]
            out.append(nxt if nxt in "(){}|+?" else "\\" + nxt)
            pos += 2
            continue
        if ch == "[":
            end = pattern.find("]", pos + 2 if pattern[pos + 1:pos + 2] in ("]", "^") else pos + 1)
            if end > 0:
                out.append(_bracket(pattern[pos:end + 1]))
                pos = end + 1
                continue
        if ch in "(){}|+?" or (ch == "*" and not out):
            out.append("\\" + ch)
        else:
            out.append(ch)
        pos += 1
    return "".join(out)


_CLASSES = {"[:alpha:]": "a-zA-Z", "[:digit:]": "0-9", "[:alnum:]": "a-zA-Z0-9", "[:upper:]": "A-Z",
            "[:lower:]": "a-z", "[:space:]": r" \t\n\r\f\v", "[:blank:]": r" \t", "[:xdigit:]": "0-9A-Fa-f",
            "[:punct:]": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")}


def _bracket(text: str) -> str:
    for name, chars in _CLASSES.items():
        text = text.replace(name, chars)
    return text.replace("\\", "\\\\")


# --- wc, head, tail, sort, cut ------------------------------------------------------------------
def _wc(opts: dict[str, str], texts: list[tuple[str, str]], stdin_only: bool) -> str:
    wanted = [f for f in "lwcm" if f in opts] or ["l", "w", "c"]
    rows = [([_count(flag, text) for flag in wanted], "" if stdin_only else name) for name, text in texts]
    if len(rows) > 1:
        rows.append(([sum(r[0][i] for r in rows) for i in range(len(wanted))], "total"))
    width = 1 if len(wanted) == 1 and len(rows) == 1 else \
        7 if stdin_only else max(len(str(n)) for counts, _ in rows for n in counts)
    return "".join(" ".join(str(n).rjust(width) for n in counts) + (f" {name}" if name else "") + "\n"
                   for counts, name in rows)


def _count(flag: str, text: str) -> int:
    if flag == "l":
        return text.count("\n")
    if flag == "w":
        return len(text.split())
    return len(text.encode()) if flag == "c" else len(text)


def _head_tail(name: str, count: str, texts: list[tuple[str, str]], headers: bool) -> str:
    out: list[str] = []
    for index, (operand, text) in enumerate(texts):
        if headers:
            out.append(("\n" if index else "") + f"==> {operand} <==\n")
        lines = text.splitlines(keepends=True)
        try:
            number = int(count.lstrip("+"))
        except ValueError:
            number = 10
        if name == "head":
            picked = lines[:number] if not count.startswith("-") else lines[:max(0, len(lines) + number)]
        elif count.startswith("+"):
            picked = lines[max(0, number - 1):]
        else:
            picked = lines[len(lines) - abs(number):] if number else []
        out.extend(picked)
    return "".join(out)


def _bytes(name: str, count: str, texts: list[tuple[str, str]], headers: bool) -> str:
    """GNU ``head -c [-]N`` (the first N bytes; all but the last N) and ``tail -c [+]N`` (the last N;
    from the N-th on), of each input in the C locale."""
    out: list[str] = []
    try:
        number = int(count.lstrip("+-"))
    except ValueError:
        number = 0
    for index, (operand, text) in enumerate(texts):
        if headers:
            out.append(("\n" if index else "") + f"==> {operand} <==\n")
        data = text.encode()
        if name == "head":
            picked = data[:max(0, len(data) - number)] if count.startswith("-") else data[:number]
        else:
            picked = data[max(0, number - 1):] if count.startswith("+") else data[len(data) - number:]
            picked = picked if number or count.startswith("+") else b""
        out.append(picked.decode(errors="replace"))
    return "".join(out)


def _sort(opts: dict[str, str], text: str) -> str:
    lines = _lines(text)
    if "n" in opts:
        lines.sort(key=lambda line: (_leading_number(line), line.encode()))
    else:
        lines.sort(key=lambda line: line.encode())
    if "r" in opts:
        lines.reverse()
    if "u" in opts:
        seen: list[str] = []
        for line in lines:
            key = _leading_number(line) if "n" in opts else line
            if not seen or (_leading_number(seen[-1]) if "n" in opts else seen[-1]) != key:
                seen.append(line)
        lines = seen
    return "".join(line + "\n" for line in lines)


def _leading_number(line: str) -> float:
    found = re.match(r"\s*(-?\d*\.?\d+)", line)
    return float(found.group(1)) if found else 0.0


def _cut(opts: dict[str, str], text: str) -> str:
    ranges = _ranges(opts.get("f") or opts.get("c") or opts.get("b") or "")
    out: list[str] = []
    for line in _lines(text):
        if "f" in opts:
            delimiter = opts.get("d", "\t")[:1] or "\t"
            if delimiter not in line:
                if "s" not in opts:
                    out.append(line + "\n")
                continue
            fields = line.split(delimiter)
            out.append(delimiter.join(f for i, f in enumerate(fields, 1) if _in(i, ranges)) + "\n")
        else:
            out.append("".join(c for i, c in enumerate(line, 1) if _in(i, ranges)) + "\n")
    return "".join(out)


def _ranges(spec: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for part in spec.split(","):
        first, dash, last = part.partition("-")
        try:
            low = int(first) if first else 1
            high = (int(last) if last else 1 << 30) if dash else low
        except ValueError:
            continue
        ranges.append((low, high))
    return ranges


def _in(index: int, ranges: list[tuple[int, int]]) -> bool:
    return any(low <= index <= high for low, high in ranges)


# --- tr ------------------------------------------------------------------------------------------
def _tr(opts: dict[str, str], operands: list[str], stdin: str) -> Result:
    first = _set(operands[0]) if operands else ""
    if "d" in opts:
        kept = "".join(c for c in stdin if c not in first)
        return (_squeeze(kept, _set(operands[1])) if "s" in opts and len(operands) > 1 else kept), [], 0
    if len(operands) < 2:
        return (_squeeze(stdin, first) if "s" in opts else stdin), [], 0
    second = _set(operands[1])
    if not second:
        return "", ["tr: when not truncating set1, string2 must be non-empty"], 1
    second = second + second[-1] * max(0, len(first) - len(second))
    table = {ord(a): b for a, b in zip(first, second, strict=False)}
    out = stdin.translate(table)
    return (_squeeze(out, second) if "s" in opts else out), [], 0


def _squeeze(text: str, chars: str) -> str:
    out: list[str] = []
    for ch in text:
        if not (out and out[-1] == ch and ch in chars):
            out.append(ch)
    return "".join(out)


_TR_CLASSES = {"[:lower:]": "abcdefghijklmnopqrstuvwxyz", "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
               "[:digit:]": "0123456789", "[:space:]": " \t\n\r\f\v", "[:blank:]": " \t"}
_TR_CLASSES["[:alpha:]"] = _TR_CLASSES["[:upper:]"] + _TR_CLASSES["[:lower:]"]
_TR_CLASSES["[:alnum:]"] = _TR_CLASSES["[:digit:]"] + _TR_CLASSES["[:alpha:]"]
_TR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "f": "\f", "v": "\v", "a": "\a", "b": "\b"}


def _set(spec: str) -> str:
    """A ``tr`` set: classes, ranges ``a-z``, escapes."""
    for name, members in _TR_CLASSES.items():
        spec = spec.replace(name, members.replace("\\", "\\\\").replace("-", "\\055"))
    chars: list[str] = []
    pos = 0
    while pos < len(spec):
        ch = spec[pos]
        if ch == "\\" and pos + 1 < len(spec):
            octal = re.match(r"[0-7]{1,3}", spec[pos + 1:])
            if octal:
                ch, pos = chr(int(octal.group(0), 8)), pos + 1 + len(octal.group(0))
            else:
                ch, pos = _TR_ESCAPES.get(spec[pos + 1], spec[pos + 1]), pos + 2
        else:
            pos += 1
        if spec[pos:pos + 1] == "-" and pos + 1 < len(spec):
            end = spec[pos + 1]
            chars.extend(chr(c) for c in range(ord(ch), ord(end) + 1))
            pos += 2
        else:
            chars.append(ch)
    return "".join(chars)
