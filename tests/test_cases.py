"""Loading corpus cases: each case is checked against the schema and against its own home,
and every bad line is reported as FILE:LINE: /pointer: problem."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from jiayu.cases import load_cases
from jiayu.errors import CorpusError
from jiayu.jsonfile import load_schema

DEMO = Path(__file__).resolve().parents[1] / "corpus" / "homes" / "demo.json"
SCHEMA = Path(__file__).resolve().parents[1] / "jiayu" / "schemas" / "case.schema.json"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "homes").mkdir()
    shutil.copy(DEMO, tmp_path / "homes" / "demo.json")
    return tmp_path / "cases.jsonl"


def case(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "c1",
        "home": "homes/demo.json",
        "text": "打开客厅灯",
        "expect": {"outcome": "executed"},
    }
    return {**base, **changes}


def write(path: Path, *lines: dict[str, Any] | str) -> None:
    text = (x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines)
    path.write_text("\n".join(text) + "\n", encoding="utf-8")


def problems(path: Path) -> list[str]:
    with pytest.raises(CorpusError) as raised:
        load_cases(path)
    assert [str(p) for p in raised.value.problems] == str(raised.value).splitlines()
    return str(raised.value).splitlines()


def test_a_valid_case_loads_with_every_field(corpus: Path) -> None:
    write(
        corpus,
        case(history=["关灯"], state={"light_living": {"on": True}}, area="living", tags=["x"]),
    )
    (loaded,) = load_cases(corpus)
    assert loaded.id == "c1"
    assert loaded.home == (corpus.parent / "homes" / "demo.json").resolve()
    assert loaded.history == ("关灯",)
    assert loaded.state == {"light_living": {"on": True}}
    assert loaded.area == "living"
    assert loaded.tags == ("x",)
    assert loaded.source == f"{corpus}:1"


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        pytest.param(
            {"state": {"light_attic": {"on": True}}},
            '/state/light_attic: "light_attic" is not a device id',
            id="unknown device",
        ),
        pytest.param(
            {"state": {"light_living": {"colour": "white"}}},
            '/state/light_living/colour: unknown attribute "colour"',
            id="unknown attribute",
        ),
        pytest.param(
            {"state": {"light_living": {"on": "yes"}}},
            '/state/light_living/on: "yes" is not a boolean',
            id="wrong type",
        ),
        pytest.param(
            {"state": {"light_living": {"brightness": 120}}},
            "/state/light_living/brightness: 120 is not within 0–100",
            id="out of range",
        ),
        pytest.param(
            {"state": {"light_living": {"locked": True}}},
            '/state/light_living/locked: attribute "locked" needs capability "lock"',
            id="attribute the device cannot have",
        ),
        pytest.param(
            {"area": "garage"},
            '/area: "garage" is not a room id',
            id="area not a room",
        ),
        pytest.param(
            {"home": "homes/missing.json"},
            '/home: home "homes/missing.json" cannot be used: cannot read: No such file or'
            " directory",
            id="missing home",
        ),
    ],
)
def test_a_case_is_checked_against_its_home(
    corpus: Path, changes: dict[str, Any], line: str
) -> None:
    write(corpus, case(id="fine"), case(**changes))
    assert problems(corpus) == [f"{corpus}:2: {line}"]


def test_an_invalid_home_is_reported_on_each_line_that_uses_it(corpus: Path) -> None:
    data = json.loads(DEMO.read_text(encoding="utf-8"))
    data["devices"][3]["room"] = "garage"
    data["devices"][4]["room"] = "attic"
    (corpus.parent / "homes" / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    write(corpus, case(home="homes/bad.json"), "", case(id="c2", home="homes/bad.json"))
    said = 'home "homes/bad.json" cannot be used: /devices/3/room: "garage" is not a room id'
    assert problems(corpus) == [
        f"{corpus}:1: /home: {said} (and 1 more)",
        f"{corpus}:3: /home: {said} (and 1 more)",
    ]


def test_every_bad_line_is_reported_with_its_line(corpus: Path) -> None:
    write(
        corpus,
        case(),
        "[" * 1000 + "]" * 1000,
        '{"id": "n", "text": NaN}',
        '{"id": %s}' % ("1" * 5000),
        '{"id": "\\udc00"}',
        case(),
        case(id="c3", expect={"outcome": "done"}),
        "{",
    )
    found = problems(corpus)
    assert found[:5] == [
        f"{corpus}:2: /: nests deeper than 64 levels",
        f"{corpus}:3: /text: not a finite number",
        f"{corpus}:4: /id: integer of more than 20 digits",
        f"{corpus}:5: /id: lone surrogate in a string (not Unicode text)",
        f'{corpus}:6: /id: duplicate case id "c1"',
    ]
    assert found[5].startswith(f'{corpus}:7: /expect/outcome: "done" is not one of')
    assert found[6] == f"{corpus}:8: /: invalid JSON at line 1, column 2: " + (
        "Expecting property name enclosed in double quotes"
    )
    assert len(found) == 7


def test_a_line_separator_inside_a_string_does_not_end_the_line(corpus: Path) -> None:
    write(corpus, case(text="打开客厅灯\u2028"), case(id="c2"))
    assert [c.source for c in load_cases(corpus)] == [f"{corpus}:1", f"{corpus}:2"]


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "cases.jsonl"
    os.mkfifo(fifo)
    assert problems(fifo) == [f"{fifo}: /: not a regular file"]


def test_a_file_that_is_not_utf8_is_refused(corpus: Path) -> None:
    corpus.write_bytes(b'{"id": "\xff"}\n')
    assert problems(corpus) == [f"{corpus}: /: not UTF-8 text: invalid start byte at byte 8"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)
_FIELDS = st.sampled_from(
    ["id", "home", "text", "history", "state", "area", "tags", "note", "expect", "x"]
)
_EXPECT_FIELDS = st.sampled_from(
    ["outcome", "commands", "ordered", "options", "answers", "compact", "reply_contains", "x"]
)
_FULL = Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_the_fast_check_agrees_with_jsonschema(data: st.DataObject) -> None:
    line = case(
        expect={
            "outcome": ["executed", "noop"],
            "commands": [{"device": "light_living", "command": "turn_on", "params": {}}],
            "compact": [{"a": "打开", "s": "客厅", "n": "灯", "t": "Light", "q": "one"}],
        }
    )
    where = data.draw(st.sampled_from(["top", "expect", "command", "compact"]))
    target = {
        "top": line,
        "expect": line["expect"],
        "command": line["expect"]["commands"][0],
        "compact": line["expect"]["compact"][0],
    }[where]
    keys = _FIELDS if where == "top" else _EXPECT_FIELDS
    key = data.draw(keys | st.sampled_from(sorted(target)))
    target[key] = data.draw(_JSON | st.sampled_from(["executed", "turn_on", "Light", "all"]))
    assert (load_schema("case").errors(line) == []) == _FULL.is_valid(line)
