"""Which fields of its record a Filter or Map function reads, when that can be known for certain.

Filter and Map hand every record to a Python function. Sending the function only the fields it reads
(through Arrow, the rest of each row staying in the JVM) costs what a PySpark UDF on those columns
costs, instead of converting every column of every row. That is only right if the function can never
read another field, whatever the row: a field it did not read on some sample could be read on the next
row. So the fields are found by reading the function's bytecode, not by watching it run:

- the record is the function's first parameter (a bound method's first after ``self``);
- every use of that parameter must be one of ``record["name"]``, ``record.get("name"[, constant])``,
  ``"name" in record``, ``record["name"] = value`` or ``del record["name"]``, with ``"name"`` a constant
  string — then the fields read are exactly those names;
- for Map (``returned=True``) the record may also be returned as it is (``return record``): the fields it
  does not read are then the input's, unchanged, and need not be sent at all;
- anything else — the record passed to another function, returned, stored under another name, iterated,
  captured by a nested function or comprehension, subscripted with a computed key, any other attribute,
  an instruction this reader does not know (another Python version's bytecode) — and the answer is
  ``None``: every field is sent, as before.

``"name" in record`` and ``del record["name"]`` count the name as read: the record handed to the function
then has that field exactly when the full record has it. ``None`` is also the answer for callables that
are not plain Python functions (builtins, ``functools.partial``, objects with ``__call__``).
"""

from __future__ import annotations

import dis
import inspect
import types
from collections.abc import Callable
from typing import Any

__all__ = ["fields_changed", "fields_read"]

_LOADS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK"})
# a function that can see its caller's variables could reach the record without naming it
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "globals", "_getframe", "currentframe"})


def fields_read(function: Callable[..., Any], returned: bool = False) -> frozenset[str] | None:
    """The names of the record fields ``function`` may read, or None when that cannot be known for certain.

    ``returned``: returning the record itself (``return record``) is a known use, reading no field.
    """
    known = _known_uses(function, returned)
    return None if known is None else known[2]


def _known_uses(function: Callable[..., Any], returned: bool) -> tuple[list[dis.Instruction], str,
                                                                       frozenset[str]] | None:
    """The function's instructions, its record parameter and the fields it reads, when every use of the record
    is a known one (see :func:`fields_read`); else None."""
    read = _bytecode(function)
    if read is None:
        return None
    instructions, record = read
    names: set[str] = set()
    for index, instruction in enumerate(instructions):
        if instruction.opname in ("STORE_FAST", "DELETE_FAST") and instruction.argval == record:
            return None  # the parameter rebound: later loads are not the record
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD") and \
                instruction.argval in _FRAME_READERS:
            return None
        if instruction.opname in _LOADS and instruction.argval == record:
            name = _use(instructions, index, returned)
            if name is None:
                return None
            if name:
                names.add(name)
    return instructions, record, frozenset(names)


def fields_changed(function: Callable[..., Any]) -> frozenset[str] | None:
    """The fields a Map function may set or delete on its record, when that can be known for certain: every
    use of the record is one :func:`fields_read` knows, every field it sets or deletes is named by a constant
    (``record["name"] = value``, ``del record["name"]``), and it returns only that record or None. Else None
    (it may build and return another mapping, whose fields no reading of the bytecode can bound)."""
    known = _known_uses(function, returned=True)
    if known is None:
        return None
    instructions, record, _ = known
    names: set[str] = set()
    for index, instruction in enumerate(instructions):
        if instruction.opname == "RETURN_CONST" and instruction.argval is not None:
            return None
        if instruction.opname == "RETURN_VALUE":
            before = instructions[index - 1] if index else None
            # what is returned is what the instruction before it loaded, unless a jump lands on the return
            if before is None or instruction.is_jump_target or not (
                    (before.opname in _LOADS and before.argval == record)
                    or (before.opname == "LOAD_CONST" and before.argval is None)):
                return None
        if instruction.opname in _LOADS and instruction.argval == record:
            after = instructions[index + 1:index + 3]
            if len(after) == 2 and after[0].opname == "LOAD_CONST" and isinstance(after[0].argval, str) \
                    and after[1].opname in ("STORE_SUBSCR", "DELETE_SUBSCR"):
                names.add(after[0].argval)
    return frozenset(names)


def _bytecode(function: Callable[..., Any]) -> tuple[list[dis.Instruction], str] | None:
    """A plain Python function's instructions and the name of its record parameter, or None."""
    position = 0
    if inspect.ismethod(function):
        function, position = function.__func__, 1
    if not isinstance(function, types.FunctionType):
        return None
    code = function.__code__
    if code.co_argcount <= position or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE
                                                        | inspect.CO_ASYNC_GENERATOR):
        return None
    record = code.co_varnames[position]
    if record in code.co_cellvars:  # a nested function or comprehension sees it
        return None
    try:
        return list(dis.get_instructions(code)), record
    except Exception:  # noqa: BLE001 - bytecode this Python cannot show: not known
        return None


def _use(instructions: list[dis.Instruction], index: int, returned: bool = False) -> str | None:
    """The field a use of the record at ``index`` names ('' for a write or, ``returned``, the record
    returned), or None for any other use."""
    if returned and instructions[index + 1:index + 2] and instructions[index + 1].opname == "RETURN_VALUE":
        return ""
    found = _pattern(instructions, index)
    if found is None:
        return None
    name, length = found
    # no other path may jump into the middle of the pattern (with another key on the stack)
    if any(i.is_jump_target for i in instructions[index + 1:index + length]):
        return None
    return name


def _pattern(instructions: list[dis.Instruction], index: int) -> tuple[str, int] | None:
    """The field a known form of use names ('' for a write) and how many instructions it spans (the
    record's load included), or None."""
    after = instructions[index + 1:index + 6]
    ops = [i.opname for i in after]
    if ops[:1] == ["CONTAINS_OP"]:  # "name" in record: the name was loaded just before the record
        before = instructions[index - 1] if index else None
        if before is not None and before.opname == "LOAD_CONST" and isinstance(before.argval, str) \
                and not instructions[index].is_jump_target:
            return before.argval, 2
        return None
    if len(after) >= 2 and ops[0] == "LOAD_CONST" and isinstance(after[0].argval, str):
        if ops[1] in ("BINARY_SUBSCR", "DELETE_SUBSCR"):
            return str(after[0].argval), 3
        if ops[1] == "STORE_SUBSCR":
            return "", 3
        return None
    if ops[:1] in (["LOAD_METHOD"], ["LOAD_ATTR"]) and after[0].argval == "get" and len(after) >= 3 \
            and ops[1] == "LOAD_CONST" and isinstance(after[1].argval, str):
        key = str(after[1].argval)
        if ops[2:4] == ["PRECALL", "CALL"] and after[2].argval == 1:  # record.get("name")
            return key, 5
        if ops[2:3] == ["CALL"] and after[2].argval == 1:
            return key, 4
        if ops[2:3] == ["LOAD_CONST"] and len(after) >= 4:  # record.get("name", constant)
            if ops[3:5] == ["PRECALL", "CALL"] and after[3].argval == 2:
                return key, 6
            if ops[3:4] == ["CALL"] and after[3].argval == 2:
                return key, 5
    return None
