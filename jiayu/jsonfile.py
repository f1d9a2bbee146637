"""JSON input files (homes, corpus cases): read within bounds, and checked against a schema.

Every file a user hands in goes through `read_text` and `parse_json`, so a FIFO, `/dev/zero`,
a 5,000-digit integer or JSON nested 1,000 deep gives the one-line error instead of a hang,
a MemoryError or a traceback (CONTRACTS.md §1).

`Schema` checks a document twice over only when it must: a check compiled from the schema
answers "valid" for the common, valid document in a fraction of jsonschema's time, and
jsonschema runs (for its error reports) only when that check finds something wrong.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from jiayu.errors import InputError, Problem, json_pointer

if TYPE_CHECKING:
    from importlib.abc import ResourceLoader

    from jsonschema import Draft202012Validator, ValidationError

MAX_BYTES = 64 * 1024 * 1024
"""Largest file read: a home of 100,000 devices is about 31 MB."""
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects; a home needs 5 levels."""
MAX_DIGITS = 20
"""Longest integer, in digits: more than any value a device takes, far below int's cost cliff."""

_Error = type[InputError]
_Path = tuple[str | int, ...]


def read_text(path: str | os.PathLike[str], source: str, error: _Error) -> str:
    """The text of a regular UTF-8 file of at most MAX_BYTES; `error` names what is wrong."""

    def fail(message: str) -> InputError:
        return error([Problem(source, "", message)])

    try:
        # Checked before opening: opening a FIFO for reading waits for a writer.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise fail("not a regular file")
        # Non-blocking, in case the path was swapped for a FIFO since.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise fail("not a regular file")
            if info.st_size > MAX_BYTES:
                raise fail(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
            data = file.read(MAX_BYTES + 1)
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from exc
    if len(data) > MAX_BYTES:  # it grew while we looked
        raise fail(f"larger than {MAX_BYTES // (1024 * 1024)} MB")
    try:
        # A BOM is skipped, as the JSON RFC allows parsers to.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise fail(f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc


_TOO_LONG = object()
"""Stands in, while parsing, for an integer too long to convert (Python refuses 4,300 digits)."""
_LARGEST = 10**MAX_DIGITS


def _int(text: str) -> int | object:
    return _TOO_LONG if len(text.lstrip("-")) > MAX_DIGITS else int(text)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_json(text: str, source: str, error: _Error) -> object:
    """The JSON value in `text`, refused (with `error`) when it nests deeper than MAX_DEPTH or
    holds a non-finite number, an integer of more than MAX_DIGITS digits or a lone surrogate."""
    try:
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            raise
        except ValueError:
            # An integer past Python's digit limit: parse again without converting it.
            value = json.loads(text, parse_int=_int)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise error([Problem(source, "", f"invalid JSON at {where}: {exc.msg}")]) from exc
    except RecursionError as exc:
        raise error([Problem(source, "", f"nests deeper than {MAX_DEPTH} levels")]) from exc
    depth, odd_number = _scan(value)
    if depth > MAX_DEPTH:
        raise error([Problem(source, "", f"nests deeper than {MAX_DEPTH} levels")])
    # Strings decoded from UTF-8 hold surrogates only through \u escapes.
    if odd_number or _SURROGATE_ESCAPE.search(text):
        problems = [Problem(source, json_pointer(p), m) for p, m in _refusals(value, ())]
        if problems:
            raise error(problems)
    return value


def _scan(value: object) -> tuple[int, bool]:
    """How deeply arrays and objects nest in `value` (counted up to MAX_DEPTH + 1), and
    whether it holds a number the file may not (non-finite, or too many digits)."""
    level = 0
    odd = False
    frontier: list[object] = [value]
    # Level by level, with no recursion and no path kept; a plain loop, as this runs over
    # every value of every file.
    while frontier and level <= MAX_DEPTH:
        level += 1
        below: list[object] = []
        for container in frontier:
            if type(container) is dict:
                items: Iterable[object] = container.values()
            elif type(container) is list:
                items = container
            else:
                items = (container,)
            for v in items:
                kind = type(v)
                if kind is dict or kind is list:
                    below.append(v)
                elif kind is float:
                    odd = odd or not math.isfinite(cast(float, v))
                elif kind is int:
                    odd = odd or not -_LARGEST < cast(int, v) < _LARGEST
                elif v is _TOO_LONG:
                    odd = True
        frontier = below
    return level - 1 if type(value) not in (dict, list) else level, odd


def _refusals(value: object, path: _Path) -> Iterator[tuple[_Path, str]]:
    # Recursion is bounded: _scan has checked the nesting.
    if isinstance(value, str):
        if _SURROGATE.search(value):
            yield path, "lone surrogate in a string (not Unicode text)"
    elif isinstance(value, float):
        if not math.isfinite(value):
            yield path, "not a finite number"
    elif value is _TOO_LONG or (isinstance(value, int) and not -_LARGEST < value < _LARGEST):
        yield path, f"integer of more than {MAX_DIGITS} digits"
    elif isinstance(value, dict):
        for key, item in value.items():
            if _SURROGATE.search(key):
                yield (*path, key), "lone surrogate in a key (not Unicode text)"
            yield from _refusals(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _refusals(item, (*path, i))


def read_json(path: str | os.PathLike[str], source: str, error: _Error) -> object:
    """The JSON value in a file, within every bound of `read_text` and `parse_json`."""
    return parse_json(read_text(path, source, error), source, error)


# --- schemas -------------------------------------------------------------------------------

_Check = Callable[[object], bool]


class Schema:
    """One of jiayu's JSON Schemas, compiled for a fast verdict and full error reports."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._fast = _Compiler(schema).compile(schema)
        self._validator: Draft202012Validator | None = None

    def valid(self, document: object) -> bool:
        """Whether the document fits, from the fast check alone."""
        return self._fast(document)

    def errors(self, document: object) -> list[ValidationError]:
        """Every way the document breaks the schema, in document order; empty if none."""
        if self._fast(document):
            return []
        return sorted(self._full().iter_errors(document), key=lambda e: path_key(e.absolute_path))

    def iter_errors(self, document: object) -> Iterator[ValidationError]:
        """The errors in jsonschema's own order (none, at once, when the fast check passes)."""
        if not self._fast(document):
            yield from self._full().iter_errors(document)

    def _full(self) -> Draft202012Validator:
        # jsonschema is imported only to explain a failure: it is a tenth of a second of
        # start-up that a valid home and valid commands never need.
        if self._validator is None:
            from jsonschema import Draft202012Validator

            self._validator = Draft202012Validator(self._schema)
        return self._validator


@cache
def load_schema(name: str) -> Schema:
    """The schema `jiayu/schemas/{name}.schema.json`, compiled once."""
    text = shipped_text("jiayu", f"schemas/{name}.schema.json")
    loaded: Mapping[str, Any] = json.loads(text)
    return Schema(loaded)


def shipped_text(package: str, name: str) -> str:
    """The UTF-8 text of the file `name` (a /-separated path) shipped in the package
    `package` (a schema, the grammar, its tables); OSError when there is none.

    Read by the package's own loader, from a directory or a zip alike, as pkgutil.get_data
    reads it, and neither module is imported for it: importlib.resources imports tempfile,
    and with it shutil, bz2, lzma and random (about 3 ms of a 70 ms start-up, for files read
    once each), pkgutil another 0.3 ms."""
    module = importlib.import_module(package)
    spec, file = module.__spec__, module.__file__
    if spec is None or file is None:  # a namespace package: never one of jiayu's
        raise FileNotFoundError(f"{package} has no files of its own to read {name} from")
    loader = cast("ResourceLoader", spec.loader)  # a file's or a zip's: both read data
    path = os.path.join(os.path.dirname(file), *name.split("/"))
    return loader.get_data(path).decode("utf-8")


def path_key(path: Sequence[str | int]) -> tuple[tuple[int, str], ...]:
    """Sort key for a JSON path: numerically by index, so /devices/10 comes after /devices/9."""
    return tuple((p, "") if isinstance(p, int) else (-1, p) for p in path)


# Keywords that only document; everything else must be understood by _Compiler.
_NOTES = frozenset({"$schema", "$id", "$defs", "title", "description", "$comment"})


class _Compiler:
    """Turns the schema keywords jiayu's schemas use into nested closures.

    Each closure answers only "certainly valid": wherever the answer is not plain
    (an enum of mixed types, unique items that are not strings) it says no, and
    jsonschema, which knows the whole standard, decides. A keyword it does not know
    fails here, when the schema is loaded, rather than passing silently.
    """

    def __init__(self, root: Mapping[str, Any]) -> None:
        self._root = root
        self._refs: dict[str, _Check] = {}

    def compile(self, schema: object) -> _Check:
        if schema is True:
            return _always
        if not isinstance(schema, Mapping):
            return _never
        keywords = {k for k in schema if k not in _NOTES}
        # The two shapes nearly every value of a home has, each as one closure.
        if schema.get("type") == "object" and keywords <= _OBJECT_KEYWORDS:
            return self._object(schema)
        if schema.get("type") == "string" and keywords <= _STRING_KEYWORDS:
            return _string(schema)
        checks = [self._keyword(k, v, schema) for k, v in schema.items() if k not in _NOTES]
        checks = [c for c in checks if c is not _always]
        if not checks:
            return _always
        if len(checks) == 1:
            return checks[0]

        def every(value: object) -> bool:
            for check in checks:  # noqa: SIM110 (a loop: all() would make a generator per value)
                if not check(value):
                    return False
            return True

        return every

    def _ref(self, ref: str) -> _Check:
        if ref not in self._refs:
            prefix = "#/$defs/"
            if not ref.startswith(prefix):
                raise ValueError(f"unsupported $ref {ref}")
            target = self._root["$defs"][ref[len(prefix) :]]
            # Through a cell, so a schema may refer to itself.
            cell: list[_Check] = []
            self._refs[ref] = lambda value: cell[0](value)
            cell.append(self.compile(target))
            self._refs[ref] = cell[0]
        return self._refs[ref]

    def _keyword(self, key: str, arg: Any, schema: Mapping[str, Any]) -> _Check:
        match key:
            case "$ref":
                return self._ref(arg)
            case "type":
                names = [arg] if isinstance(arg, str) else list(arg)
                tests = [_TYPES[n] for n in names]
                if len(tests) == 1:
                    return tests[0]
                return lambda v: any(t(v) for t in tests)
            case "const":
                return _equal_to([arg])
            case "enum":
                return _equal_to(arg)
            case "pattern":
                search = re.compile(arg).search
                return lambda v: not isinstance(v, str) or search(v) is not None
            case "minLength":
                return lambda v: not isinstance(v, str) or len(v) >= arg
            case "maxLength":
                return lambda v: not isinstance(v, str) or len(v) <= arg
            case "minimum":
                return lambda v: not _is_number(v) or v >= arg
            case "maximum":
                return lambda v: not _is_number(v) or v <= arg
            case "minItems":
                return lambda v: not isinstance(v, list) or len(v) >= arg
            case "uniqueItems":
                return _unique if arg else _always
            case "items":
                return _items(self.compile(arg))
            case "required":
                needed = frozenset(arg)
                return lambda v: not isinstance(v, dict) or needed <= v.keys()
            case "properties":
                return self._properties(arg, schema.get("additionalProperties", True))
            case "additionalProperties":
                if "properties" in schema:
                    return _always  # checked with the properties
                return self._properties({}, arg)
            case "if":
                test = self.compile(arg)
                then = self.compile(schema.get("then", True))
                other = self.compile(schema.get("else", True))
                return lambda v: then(v) if test(v) else other(v)
            case "then" | "else":
                return _always  # checked with "if"
        raise ValueError(f"schema keyword {key!r} is not supported by the fast check")

    def _object(self, schema: Mapping[str, Any]) -> _Check:
        known = {k: self.compile(s) for k, s in schema.get("properties", {}).items()}
        other = self.compile(schema.get("additionalProperties", True))
        needed = frozenset(schema.get("required", ()))

        def check(value: object) -> bool:
            if not isinstance(value, dict) or not needed <= value.keys():
                return False
            for k, v in value.items():  # noqa: SIM110 (as in compile)
                if not known.get(k, other)(v):
                    return False
            return True

        return check

    def _properties(self, properties: Mapping[str, Any], additional: object) -> _Check:
        known = {k: self.compile(s) for k, s in properties.items()}
        other = self.compile(additional)

        def check(value: object) -> bool:
            if not isinstance(value, dict):
                return True
            for k, v in value.items():  # noqa: SIM110 (as in compile)
                if not known.get(k, other)(v):
                    return False
            return True

        return check


def _items(item: _Check) -> _Check:
    def check(value: object) -> bool:
        if not isinstance(value, list):
            return True
        return all(map(item, value))

    return check


_OBJECT_KEYWORDS = frozenset({"type", "required", "properties", "additionalProperties"})
_STRING_KEYWORDS = frozenset({"type", "pattern", "minLength", "maxLength"})


def _string(schema: Mapping[str, Any]) -> _Check:
    shortest = schema.get("minLength", 0)
    longest = schema.get("maxLength", math.inf)
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def check(value: object) -> bool:
        return (
            isinstance(value, str)
            and shortest <= len(value) <= longest
            and (search is None or search(value) is not None)
        )

    return check


def _always(value: object) -> bool:
    return True


def _never(value: object) -> bool:
    return False


def _is_number(value: object) -> bool:
    # bool is an int in Python, but not a number in JSON.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: Mapping[str, _Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": _is_number,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
}
"""JSON Schema's types. An integer is any number with no fractional part (2020-12: 0.0 is
one), as jsonschema, which explains a failure, says: a check stricter than the explanation
would refuse with no reason to give."""


def _equal_to(allowed: Sequence[object]) -> _Check:
    if all(isinstance(a, str) for a in allowed):
        strings = frozenset(allowed)
        return lambda v: isinstance(v, str) and v in strings
    if all(_is_number(a) for a in allowed):
        numbers = tuple(allowed)
        return lambda v: _is_number(v) and v in numbers
    return _never  # mixed kinds: jsonschema's equality rules decide


def _unique(value: object) -> bool:
    if not isinstance(value, list):
        return True
    # Strings only: JSON equality differs from Python's for 1 and true, 1 and 1.0.
    return all(isinstance(v, str) for v in value) and len(set(value)) == len(value)
