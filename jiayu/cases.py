"""Corpus case files (CONTRACTS.md §3): read, validated, every bad line reported.

A case is checked against its own home as well as the schema: its `state` like a home's
state (known devices, known attributes, values the device can hold), its `area` as one of
the home's rooms. A case that cannot run is an error in the corpus, reported with its
FILE:LINE, not a failure found later by the replay.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from jiayu.catalog import schema_message, state_error
from jiayu.errors import CorpusError, HomeError, Problem, json_pointer
from jiayu.home import Home, load_home
from jiayu.jsonfile import load_schema, parse_json, read_text


@dataclass(frozen=True)
class Case:
    """One corpus case, as validated."""

    id: str
    home: Path
    text: str
    history: tuple[str, ...]
    state: dict[str, dict[str, Any]]
    expect: dict[str, Any]
    tags: tuple[str, ...]
    area: str | None
    source: str


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """Read and validate a JSONL corpus file; CorpusError lists every bad line."""
    path = Path(path)
    text = read_text(path, str(path), CorpusError)
    problems: list[Problem] = []
    cases: list[Case] = []
    seen: set[str] = set()
    homes: dict[Path, Home | str] = {}
    # Lines end at "\n" only: JSON strings may hold U+2028, which splitlines() would cut at.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        source = f"{path}:{number}"
        try:
            data = parse_json(line.removesuffix("\r"), source, CorpusError)
        except CorpusError as err:
            problems.extend(err.problems)
            continue
        errors = load_schema("case").errors(data)
        problems.extend(
            Problem(source, json_pointer(e.absolute_path), schema_message(e)) for e in errors
        )
        if errors:
            continue
        data = cast(dict[str, Any], data)  # an object: the schema says so
        if data["id"] in seen:
            problems.append(Problem(source, "/id", f'duplicate case id "{data["id"]}"'))
        seen.add(data["id"])
        home_path = (path.parent / data["home"]).resolve()
        if home_path not in homes:
            homes[home_path] = _home(home_path, data["home"])
        home = homes[home_path]
        if isinstance(home, str):
            problems.append(Problem(source, "/home", home))
            continue
        found = [Problem(source, json_pointer(p), m) for p, m in _against_home(data, home)]
        problems.extend(found)
        if found:
            continue
        cases.append(
            Case(
                data["id"],
                home_path,
                data["text"],
                tuple(data.get("history", ())),
                data.get("state", {}),
                data["expect"],
                tuple(data.get("tags", ())),
                data.get("area"),
                source,
            )
        )
    if problems:
        raise CorpusError(problems)
    return cases


def _home(path: Path, named: str) -> Home | str:
    """The home at `path`, or why it cannot be used, in one line."""
    try:
        return load_home(path)
    except HomeError as err:
        first = err.problems[0]
        more = f" (and {len(err.problems) - 1} more)" if len(err.problems) > 1 else ""
        where = f"{first.pointer}: " if first.pointer else ""
        return f'home "{named}" cannot be used: {where}{first.message}{more}'


def _against_home(
    data: Mapping[str, Any], home: Home
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """What the case says that its home does not have: devices, attributes, values, rooms."""
    area = data.get("area")
    if area is not None and area not in {room.id for room in home.rooms}:
        yield ("area",), f'"{area}" is not a room id'
    for device_id, attributes in data.get("state", {}).items():
        try:
            device = home.device(device_id)
        except KeyError:
            yield ("state", device_id), f'"{device_id}" is not a device id'
            continue
        for attribute, value in attributes.items():
            if (error := state_error(device, attribute, value)) is not None:
                yield ("state", device_id, attribute), error
