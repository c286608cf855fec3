"""Glue's glob patterns (crawler and S3-source ``exclusions``) as regular expressions."""

from __future__ import annotations

import re


def glob_to_regex(pattern: str) -> str:
    """Translate one Glue exclude glob into a regular expression matching a whole relative path.

    Args:
        pattern: the glob, e.g. ``**/_temporary/**``, ``*.tmp``, ``2015/0[1-3]/**``, ``*.{csv,avro}``.

    Returns:
        The regex text (anchor it with ``fullmatch``).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    depth = 0  # inside {...}
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "*":
            if pattern.startswith("**", i):
                i += 2
                if pattern.startswith("/", i):  # "**/" also matches no folder at all
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                negate = body.startswith("!")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = end + 1
                continue
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(ch))
        i += 1
    out.extend(")" * depth)
    return "".join(out)
