"""Corpus case files (CONTRACTS.md §3): read, validated, every bad line reported."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from jiayu.errors import CorpusError, Problem, json_pointer
from jiayu.executor.catalog import schema_message


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


@lru_cache(maxsize=1)
def _case_validator() -> Draft202012Validator:
    schema = json.loads(
        resources.files("jiayu").joinpath("schemas/case.schema.json").read_text("utf-8")
    )
    return Draft202012Validator(schema)


def load_cases(path: str | Path) -> list[Case]:
    """Read and validate a JSONL corpus file; CorpusError lists every bad line."""
    path = Path(path)
    problems: list[Problem] = []
    cases: list[Case] = []
    seen: set[str] = set()
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise CorpusError([Problem(str(path), "", f"cannot read: {err}")]) from err
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        source = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(Problem(source, "", f"invalid JSON: {err.msg} at column {err.colno}"))
            continue
        errors = sorted(_case_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
        for error in errors:
            problems.append(
                Problem(source, json_pointer(error.absolute_path), schema_message(error))
            )
        if errors:
            continue
        if data["id"] in seen:
            problems.append(Problem(source, "/id", f'duplicate case id "{data["id"]}"'))
        seen.add(data["id"])
        cases.append(
            Case(
                data["id"],
                (path.parent / data["home"]).resolve(),
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
