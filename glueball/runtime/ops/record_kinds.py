"""What a Map function sets its record's fields to, read from its bytecode where that is certain.

Map's output schema comes from what the function returns for a sample of the input, run in the driver
(:mod:`glueball.runtime.ops.record_map`): a Spark job of its own before the plan is built. For a function this
reader follows to its end on every path, the kinds of value each field may be set to are known without running it,
and that job is not needed. The reader walks every path of the function's bytecode (each conditional jump both ways,
forward jumps only) with the kinds each value may have — ``None``, ``bool``, ``int``, ``float``, ``str`` — starting
from the record's fields as their Spark types hand them over (long, integer, short and byte columns as ``int``,
double and float as ``float``, strings, booleans; every one may be ``None``). It knows:

- constants of those kinds; f-strings; the record's fields read by constant names (``record["name"]``,
  ``record.get("name")``, ``"name" in record``), fields the path set before included; local variables;
- arithmetic (``+ - * / // %``), comparisons, ``is``, ``in``, ``not``, ``and``/``or``, conditional expressions and
  ``if``/``else``; the builtins ``round``, ``abs``, ``int``, ``float``, ``str``, ``bool``, ``len``, ``min``, ``max``
  (when the function's globals do not rebind them) and the common ``str`` methods;
- ``record["name"] = value`` with a constant name, ``return record`` and ``return None`` (an error record).

An operation that raises for some kinds (``None * 100``) leaves those kinds out of its result: such a record
becomes an error record, not a value. Anything else — another call, an attribute, a global or a closure's
variable, a loop, ``try``, a deletion, a field of another type (timestamps, decimals, structs), a value that may
be of two kinds (``1 if x else 1.5``), bytecode of a Python this reader does not know — and the answer is None:
the sample decides, as before. A set value whose kind the reader got wrong would still fail the job by name when
it meets its column (``record_shapes.Misfit``), never be stored as another type.
"""

from __future__ import annotations

import builtins
import dis
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from glueball.runtime.ops.field_reads import _bytecode

if TYPE_CHECKING:
    from pyspark.sql.types import DataType

__all__ = ["Paths", "set_kinds"]

NONE, BOOL, INT, FLOAT, STR = "none", "bool", "int", "float", "str"
Kinds = frozenset[str]
_NUMBERS = frozenset({BOOL, INT, FLOAT})
_MAX_PATHS = 256
_MAX_STEPS = 4_000
_STR_METHODS = {
    **dict.fromkeys(("upper", "lower", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold", "replace",
                     "zfill", "swapcase"), STR),
    **dict.fromkeys(("startswith", "endswith", "isdigit", "isalpha", "isalnum", "isnumeric", "isspace", "islower",
                     "isupper", "isdecimal"), BOOL),
    **dict.fromkeys(("find", "rfind", "count"), INT),
}
_BUILTINS = ("round", "abs", "int", "float", "str", "bool", "len", "min", "max")


class _Unknown(Exception):
    """The reader cannot be certain: the sample decides."""


class _Raises(Exception):
    """Every run of this path raises: its records are error records."""


class _Record:
    """The record the function was handed."""


@dataclass(frozen=True)
class _Builtin:
    name: str


@dataclass(frozen=True)
class _Method:
    name: str  # a str method, or "get" of the record


@dataclass(frozen=True)
class _Literal:
    """A constant string: a value of kind ``str`` that can also name a field."""

    text: str


_RECORD = _Record()
_NULL = object()  # what 3.11's LOAD_GLOBAL and LOAD_METHOD push below a callable


@dataclass
class _State:
    at: int  # index of the next instruction
    stack: list[Any] = field(default_factory=list)
    local: dict[str, Any] = field(default_factory=dict)
    sets: dict[str, Kinds] = field(default_factory=dict)

    def fork(self, at: int) -> _State:
        return _State(at, list(self.stack), dict(self.local), dict(self.sets))


@dataclass(frozen=True)
class Paths:
    """What the record-returning paths of a function do: the kinds each sets each field to (a field a path does
    not set is missing from its dict)."""

    sets: list[dict[str, Kinds]]


def set_kinds(function: Callable[..., Any], fields: dict[str, DataType]) -> Paths | None:
    """The fields ``function`` sets on each of its paths that return the record, and the kinds of their values;
    None when that is not certain (see the module notes). ``fields``: the record's fields and their types."""
    read = _bytecode(function)
    if read is None:
        return None
    instructions, record = read
    target = function.__func__ if isinstance(function, types.MethodType) else function
    if getattr(target.__code__, "co_exceptiontable", b""):  # a try: a raise would not make an error record
        return None
    try:
        reader = _Reader(target, instructions, record, {name: _field_kinds(t) for name, t in fields.items()})
        returned = reader.walk()
    except _Unknown:
        return None
    return Paths(returned) if returned else None


def _field_kinds(data_type: DataType) -> Kinds | None:
    from pyspark.sql import types as T

    if isinstance(data_type, T.LongType | T.IntegerType | T.ShortType | T.ByteType):
        return frozenset({INT, NONE})
    if isinstance(data_type, T.DoubleType | T.FloatType):
        return frozenset({FLOAT, NONE})
    if isinstance(data_type, T.StringType):
        return frozenset({STR, NONE})
    if isinstance(data_type, T.BooleanType):
        return frozenset({BOOL, NONE})
    return None


def _const(value: Any) -> Kinds | _Literal:
    if type(value) is str:
        return _Literal(value)
    if value is None:
        return frozenset({NONE})
    for kind, python in ((BOOL, bool), (INT, int), (FLOAT, float), (STR, str)):
        if type(value) is python:
            return frozenset({kind})
    raise _Unknown


def _kinds(value: Any) -> Kinds:
    if isinstance(value, frozenset):
        return value
    if isinstance(value, _Literal):
        return frozenset({STR})
    raise _Unknown


def _name(key: Any) -> str:
    """A field named by a constant string."""
    if isinstance(key, _Literal):
        return key.text
    raise _Unknown


def _pairwise(a: Any, b: Any, result: Callable[[str, str], str | None]) -> Kinds:
    """The kinds of ``a op b`` over every pair of kinds, those that raise left out."""
    out = {kind for x in _kinds(a) for y in _kinds(b) if (kind := result(x, y)) is not None}
    if not out:
        raise _Raises
    return frozenset(out)


def _arithmetic(op: str) -> Callable[[str, str], str | None]:
    def result(x: str, y: str) -> str | None:
        if x in _NUMBERS and y in _NUMBERS:
            if op == "/":
                return FLOAT
            if op in ("+", "-", "*", "//", "%"):
                return FLOAT if FLOAT in (x, y) else INT
            return None
        if op == "+" and x == y == STR:
            return STR
        if op == "*" and {x, y} <= {STR, INT, BOOL} and STR in (x, y) and (x != STR or y != STR):
            return STR
        if op == "%" and x == STR:
            return STR
        return None
    return result


def _ordering(x: str, y: str) -> str | None:
    return BOOL if (x in _NUMBERS and y in _NUMBERS) or x == y == STR else None


class _Reader:
    def __init__(self, function: Callable[..., Any], instructions: list[dis.Instruction], record: str,
                 fields: dict[str, Kinds | None]) -> None:
        self.instructions = instructions
        self.index = {instruction.offset: i for i, instruction in enumerate(instructions)}
        self.record = record
        self.fields = fields
        self.globals: dict[str, Any] = getattr(function, "__globals__", {})
        own = getattr(function, "__builtins__", builtins)  # the builtins the function's frame gets
        self.builtins: dict[str, Any] = own if isinstance(own, dict) else vars(own)

    def walk(self) -> list[dict[str, Kinds]]:
        pending = [_State(0)]
        returned: list[dict[str, Kinds]] = []
        paths = steps = 0
        while pending:
            state = pending.pop()
            paths += 1
            if paths > _MAX_PATHS:
                raise _Unknown
            try:
                while True:
                    steps += 1
                    if steps > _MAX_STEPS or state.at >= len(self.instructions):
                        raise _Unknown
                    outcome = self.step(state, pending)
                    if outcome is not None:
                        if outcome:
                            returned.append(state.sets)
                        break
            except _Raises:
                continue
        return returned

    def _target(self, instruction: dis.Instruction) -> int:
        at = self.index.get(instruction.argval)
        if at is None or instruction.argval <= instruction.offset:  # backward: a loop
            raise _Unknown
        return at

    def _field(self, state: _State, key: Any) -> Kinds:
        name = _name(key)
        if name in state.sets:
            return state.sets[name]
        kinds = self.fields.get(name)
        if kinds is None:  # not a field of the record, or of a type this reader does not follow
            raise _Unknown
        return kinds

    def step(self, state: _State, pending: list[_State]) -> bool | None:  # noqa: C901 - one opcode per branch
        """Run one instruction; True or False when the path ended returning the record or not."""
        instruction = self.instructions[state.at]
        op, stack = instruction.opname, state.stack
        state.at += 1
        if op in ("RESUME", "NOP", "PRECALL", "CACHE", "EXTENDED_ARG"):
            return None
        if op in ("LOAD_FAST", "LOAD_FAST_CHECK"):
            if instruction.argval == self.record:
                stack.append(_RECORD)
            elif instruction.argval in state.local:
                stack.append(state.local[instruction.argval])
            else:
                raise _Unknown
        elif op == "STORE_FAST":
            if instruction.argval == self.record:
                raise _Unknown
            state.local[instruction.argval] = stack.pop()
        elif op == "LOAD_CONST":
            stack.append(_const(instruction.argval))
        elif op == "LOAD_GLOBAL":
            name = instruction.argval
            if name not in _BUILTINS or name in self.globals or \
                    self.builtins.get(name) is not getattr(builtins, name):
                raise _Unknown
            if instruction.arg is not None and instruction.arg & 1:
                stack.append(_NULL)
            stack.append(_Builtin(name))
        elif op == "PUSH_NULL":
            stack.append(_NULL)
        elif op == "LOAD_METHOD" or (op == "LOAD_ATTR" and instruction.arg is not None and instruction.arg & 1):
            owner = stack.pop()
            if owner is _RECORD and instruction.argval == "get":
                stack.extend([_Method("get"), _RECORD])
            elif isinstance(owner, frozenset) and instruction.argval in _STR_METHODS:
                if STR not in owner:  # no other kind has the method
                    raise _Raises
                stack.extend([_Method(instruction.argval), owner])
            else:
                raise _Unknown
        elif op == "KW_NAMES":
            raise _Unknown
        elif op == "CALL":
            count = instruction.argval
            arguments = [stack.pop() for _ in range(count)][::-1]
            second, first = stack.pop(), stack.pop()
            stack.append(self._call(state, first, second, arguments))
        elif op == "BINARY_SUBSCR":
            key, owner = stack.pop(), stack.pop()
            if owner is not _RECORD:
                raise _Unknown
            stack.append(self._field(state, key))
        elif op == "STORE_SUBSCR":
            key, owner, value = stack.pop(), stack.pop(), stack.pop()
            if owner is not _RECORD:
                raise _Unknown
            state.sets[_name(key)] = _kinds(value)
        elif op == "BINARY_OP":
            symbol = instruction.argrepr.rstrip("=") if instruction.argrepr.endswith("=") and \
                instruction.argrepr not in ("==", "!=", "<=", ">=") else instruction.argrepr
            right, left = stack.pop(), stack.pop()
            if symbol not in ("+", "-", "*", "/", "//", "%"):
                raise _Unknown
            stack.append(_pairwise(left, right, _arithmetic(symbol)))
        elif op == "COMPARE_OP":
            right, left = stack.pop(), stack.pop()
            if instruction.argval in ("==", "!="):
                _kinds(left), _kinds(right)
                stack.append(frozenset({BOOL}))
            elif instruction.argval in ("<", "<=", ">", ">="):
                stack.append(_pairwise(left, right, _ordering))
            else:
                raise _Unknown
        elif op == "IS_OP":
            stack.pop(), stack.pop()
            stack.append(frozenset({BOOL}))
        elif op == "CONTAINS_OP":
            container, item = stack.pop(), stack.pop()
            if container is _RECORD:
                _name(item)
            elif _kinds(container) - {NONE} != {STR} or _kinds(item) - {NONE} != {STR}:
                raise _Unknown
            stack.append(frozenset({BOOL}))
        elif op == "UNARY_NOT":
            _kinds(stack.pop())
            stack.append(frozenset({BOOL}))
        elif op in ("UNARY_NEGATIVE", "UNARY_POSITIVE"):
            value = _kinds(stack.pop())
            out = frozenset(INT if kind == BOOL else kind for kind in value if kind in _NUMBERS)
            if not out:
                raise _Raises
            stack.append(out)
        elif op == "FORMAT_VALUE":  # an f-string's field: text, whatever it formats (or it raises)
            if instruction.arg is not None and instruction.arg & 0x04:
                _kinds(stack.pop())  # the format spec
            _kinds(stack.pop())
            stack.append(frozenset({STR}))
        elif op == "BUILD_STRING":
            for _ in range(instruction.argval):
                _kinds(stack.pop())
            stack.append(frozenset({STR}))
        elif op == "POP_TOP":
            stack.pop()
        elif op == "COPY":
            stack.append(stack[-instruction.argval])
        elif op == "SWAP":
            stack[-1], stack[-instruction.argval] = stack[-instruction.argval], stack[-1]
        elif op in ("JUMP_FORWARD", "JUMP"):
            state.at = self._target(instruction)
        elif op.startswith("POP_JUMP_") and op.endswith(("_IF_NONE", "_IF_NOT_NONE")):
            value = _kinds(stack.pop())
            target = self._target(instruction)
            jumps = {NONE} if op.endswith("_IF_NONE") else value - {NONE}
            stays = value - {NONE} if op.endswith("_IF_NONE") else {NONE}
            self._branch(state, pending, target, bool(value & jumps), bool(value & stays))
        elif op.startswith("POP_JUMP_") and op.endswith(("_IF_FALSE", "_IF_TRUE")):
            _kinds(stack.pop())
            self._branch(state, pending, self._target(instruction), True, True)
        elif op in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):  # `and` / `or`: the value kept where it jumps
            value = _kinds(stack[-1])
            jumped = state.fork(self._target(instruction))
            if op == "JUMP_IF_TRUE_OR_POP":  # kept when true: never None
                jumped.stack[-1] = value - {NONE}
            if jumped.stack[-1]:
                pending.append(jumped)
            stack.pop()
        elif op == "RETURN_VALUE":
            return self._returned(stack.pop())
        elif op == "RETURN_CONST":
            return self._returned(_const(instruction.argval))
        else:
            raise _Unknown
        return None

    def _branch(self, state: _State, pending: list[_State], target: int, jumps: bool, stays: bool) -> None:
        if jumps and stays:
            pending.append(state.fork(target))
        elif jumps:
            state.at = target
        elif not stays:
            raise _Raises

    def _returned(self, value: Any) -> bool:
        if value is _RECORD:
            return True
        if isinstance(value, frozenset) and value == frozenset({NONE}):
            return False  # an error record
        raise _Unknown

    def _call(self, state: _State, first: Any, second: Any, arguments: list[Any]) -> Kinds:
        if isinstance(first, _Method):
            if first.name == "get":
                if second is not _RECORD or len(arguments) != 1:
                    raise _Unknown
                return self._field(state, arguments[0])
            return frozenset({_STR_METHODS[first.name]})
        if first is not _NULL or not isinstance(second, _Builtin):  # a builtin is loaded above a NULL
            raise _Unknown
        return _builtin(second.name, [_kinds(argument) for argument in arguments])


def _builtin(name: str, arguments: list[Kinds]) -> Kinds:
    """The kinds a call of the builtin ``name`` returns when it does not raise."""
    given = [argument - {NONE} for argument in arguments]
    if name in ("min", "max"):
        if len(given) < 2:
            raise _Unknown
        out = frozenset().union(*given)
    elif len(given) == 2 and name == "round":  # ndigits None rounds to an int, as with no ndigits
        out = frozenset(INT if kind in (INT, BOOL) or not given[1] else kind for kind in given[0] if kind in _NUMBERS)
        if NONE in arguments[1] and given[1] and FLOAT in given[0]:
            out |= {INT}
    elif len(given) != 1:
        raise _Unknown
    elif name == "round":
        out = frozenset({INT}) if given[0] & _NUMBERS else frozenset()
    elif name == "abs":
        out = frozenset(INT if kind == BOOL else kind for kind in given[0] if kind in _NUMBERS)
    elif name == "int":
        out = frozenset({INT}) if given[0] else frozenset()
    elif name == "float":
        out = frozenset({FLOAT}) if given[0] else frozenset()
    elif name == "str":
        return frozenset({STR})
    elif name == "bool":
        return frozenset({BOOL})
    elif name == "len":
        out = frozenset({INT}) if STR in given[0] else frozenset()
    else:
        raise _Unknown
    if not out:
        raise _Raises
    return out
