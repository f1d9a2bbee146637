"""The documents in the repository say what the code does: docs/contracts.md's table of
capabilities, commands, parameters, state attributes and limits is the catalog's, its examples
of a home file, a Result and a corpus case pass their schemas, and every relative link in the
README and docs/ names a file that is there."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from jiayu.catalog import ATTRIBUTE_CAPABILITIES, CAPABILITIES, COMMANDS, LIMIT_KEYS
from jiayu.home import parse_home

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "docs" / "contracts.md"
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]


def _table() -> dict[str, tuple[list[str], list[str], str]]:
    """capability → (commands, state attributes, limits key), as the document lists them."""
    rows: dict[str, tuple[list[str], list[str], str]] = {}
    for line in CONTRACTS.read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"`\w+`", cells[0]):
            continue
        commands = [c for c in re.findall(r"`(\w+)`(?:\s*\{|,|$)", cells[1])]
        attributes = re.findall(r"`(\w+)` \(|`(\w+)`$", cells[2])
        rows[cells[0].strip("`")] = (
            commands,
            [a or b for a, b in attributes] if attributes else re.findall(r"`(\w+)`", cells[2]),
            cells[3].strip("`"),
        )
    return rows


def test_the_contracts_table_is_the_catalog() -> None:
    table = _table()
    assert list(table) == list(CAPABILITIES)
    for capability, (commands, attributes, limit) in table.items():
        assert commands == list(CAPABILITIES[capability]), capability
        owned = [a for a, owners in ATTRIBUTE_CAPABILITIES.items() if capability in owners]
        assert attributes == owned, capability
        limits = [key for key, owner in LIMIT_KEYS.items() if owner == capability]
        assert ([limit] if limit else []) == limits, capability


def test_the_contracts_ranges_and_choices_are_the_catalogs() -> None:
    text = CONTRACTS.read_text("utf-8")
    for spec in COMMANDS.values():
        for param, schema in spec.params_schema["properties"].items():
            if "minimum" in schema:
                shown = f"`{param}`: {schema['type']} {schema['minimum']:g}–{schema['maximum']:g}"
                assert shown in text, f"{spec.name}: {shown}"
            if "enum" in schema:
                words = ", ".join(schema["enum"][:-1]) + " or " + schema["enum"][-1]
                assert f"`{param}`: {words}" in text, spec.name


_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_in_the_repository(document: Path) -> None:
    missing = [
        target
        for target in _LINK.findall(document.read_text("utf-8"))
        if "://" not in target and not (document.parent / target).exists()
    ]
    assert not missing, f"{document.name} links to what is not there: {missing}"


def test_no_document_cites_one_the_repository_does_not_ship() -> None:
    for document in DOCUMENTS:
        text = document.read_text("utf-8")
        assert "CONTRACTS.md" not in text and "../shared" not in text, document.name


def _json_blocks() -> list[Any]:
    text = CONTRACTS.read_text("utf-8")
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        (ROOT / "jiayu" / "schemas" / f"{name}.schema.json").read_text("utf-8")
    )
    return loaded


def test_the_contracts_examples_are_valid() -> None:
    home, result, case = _json_blocks()
    parse_home(home, "docs/contracts.md")  # HomeError names what is wrong
    assert list(Draft202012Validator(_schema("result")).iter_errors(result)) == []
    assert list(Draft202012Validator(_schema("case")).iter_errors(case)) == []
    assert set(result) == set(_schema("result")["properties"])  # it shows every field
