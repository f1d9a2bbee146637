"""The phrase book (grammar/phrases.py): every key is said somewhere, every caller passes
exactly the fields its template names, and the modules converted to it hold no Chinese."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import get_args

import pytest

from jiayu.executor.hubs.base import Fault
from jiayu.grammar.phrases import (
    FAULT_WORDS,
    JOINS,
    TEMPLATES,
    UNKNOWN_WORDS,
    WORDS,
    _phrase,
    say,
)
from jiayu.home import load_home
from jiayu.ir import Command
from jiayu.planner.replies import done_phrase, in_state, state_word

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("jiayu", "grammar", "compiler", "resolver", "planner", "executor", "corpus")

GUARDED = (
    "resolver/resolve.py",
    "planner/replies.py",
    "planner/plan.py",
    "planner/clauses.py",
    "planner/conditions.py",
    "planner/queries.py",
    "planner/delayed.py",
    "planner/preferences.py",
    "planner/dialogue.py",
    "planner/finish.py",
    "compiler/understand.py",
    "jiayu/drivers.py",
    "jiayu/runtime.py",
)
"""Modules whose every reply word comes from the phrase book: no Chinese in their string
literals. A module joins this list once its replies are converted."""

_CJK = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
"""CJK ideographs, CJK punctuation (、) and full-width forms (，？): reply text, all of it."""


@dataclass(frozen=True)
class Call:
    """One `say(...)` in the source: the keys it may say and the fields it passes."""

    where: str
    keys: tuple[str, ...]
    fields: frozenset[str]


def _sources() -> Iterator[Path]:
    for folder in SOURCE_DIRS:
        yield from sorted((ROOT / folder).rglob("*.py"))


def _imports_say(tree: ast.Module) -> bool:
    # Only the phrase book's own `say`: the engine's Draft.say is another thing.
    return any(
        isinstance(node, ast.ImportFrom)
        and node.module == "jiayu.grammar.phrases"
        and any(alias.name in ("say", "phrase") for alias in node.names)
        for node in ast.walk(tree)
    )


def _bound_phrases(tree: ast.Module) -> dict[str, str]:
    """Module names bound to a phrase's function (`_ALL = phrase("done.all")`): a call of one
    is a `say` of that key."""
    return {
        node.targets[0].id: node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "phrase"
        and node.value.args
        and isinstance(node.value.args[0], ast.Constant)
        and isinstance(node.value.args[0].value, str)
    }


def _said_keys(node: ast.Call, bound: dict[str, str]) -> tuple[str, ...] | None:
    """The keys a call says: every string in a `say` call's key expression (the key may be
    chosen: a if x else b, {0: a}.get(n, b)), or a bound phrase's key; None for any other
    call."""
    if not isinstance(node.func, ast.Name):
        return None
    if node.func.id in bound:
        return (bound[node.func.id],)
    if node.func.id != "say" or not node.args:
        return None
    return tuple(
        c.value
        for c in ast.walk(node.args[0])
        if isinstance(c, ast.Constant) and isinstance(c.value, str)
    )


def _calls() -> list[Call]:
    calls: list[Call] = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path != ROOT / "grammar" / "phrases.py" and not _imports_say(tree):
            continue
        bound = _bound_phrases(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            keys = _said_keys(node, bound)
            if keys is None:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            assert all(k.arg is not None for k in node.keywords), f"{where}: say(**values)"
            fields = frozenset(k.arg for k in node.keywords if k.arg is not None)
            calls.append(Call(where, keys, fields))
    return calls


CALLS = _calls()


def _fields(template: str) -> frozenset[str]:
    """The values a template takes: the root of each field ({at.month} takes `at`)."""
    return frozenset(
        re.split(r"[.\[]", name)[0]
        for _, name, _, _ in string.Formatter().parse(template)
        if name is not None
    )


def _specs(template: str) -> set[str]:
    return {spec for _, name, spec, _ in string.Formatter().parse(template) if name and spec}


def test_every_call_names_its_keys_literally() -> None:
    # A key built at run time could not be checked here, nor found by the next test.
    for call in CALLS:
        assert call.keys, f"{call.where}: the key is not a literal"
        unknown = [k for k in call.keys if k not in TEMPLATES]
        assert not unknown, f"{call.where}: no such phrase {unknown}"


def test_every_key_is_said_somewhere() -> None:
    said = {key for call in CALLS for key in call.keys}
    assert set(TEMPLATES) - said == set()


@pytest.mark.parametrize("call", CALLS, ids=lambda c: c.where)
def test_callers_pass_exactly_the_fields_of_the_template(call: Call) -> None:
    for key in call.keys:
        assert _fields(TEMPLATES[key]) == call.fields, f"{call.where}: {key}"


def test_every_word_table_and_join_is_named_by_a_template() -> None:
    specs = set().union(*(_specs(t) for t in TEMPLATES.values()))
    assert set(WORDS) | set(JOINS) <= specs
    assert set(UNKNOWN_WORDS) <= set(WORDS)
    assert not set(WORDS) & set(JOINS)  # a spec means one thing


_SAMPLES: dict[str, object] = {
    "at": datetime(2024, 5, 1, 7, 5),
    "names": ["客厅灯", "卧室灯"],
    "rooms": ["客厅", "卧室"],
    "places": ["客厅"],
    "parts": ["已打开客厅灯"],
}


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_every_template_formats(key: str) -> None:
    values = {name: _SAMPLES.get(name, "值") for name in _fields(TEMPLATES[key])}
    said = say(key, **values)
    assert said and "{" not in said and "}" not in said


def test_the_builder_looks_up_words_and_joins_lists() -> None:
    assert say("ask.which_device", action="on") == "要打开哪个设备？"
    assert say("ask.which_device", action=None) == "要操作哪个设备？"  # a table's own default
    assert say("what.read", attribute="wattage") == "读取wattage"  # else the value itself
    assert say("ask.which_count", found=3, noun="灯", action="off", count=2) == (
        "找到 3 个灯，要关闭哪两个？"
    )
    assert say("ask.one_of", names=["甲"]) == "甲？"
    assert say("ask.one_of", names=["甲", "乙", "丙"]) == "甲、乙还是丙？"
    assert say("names.listed", names=["甲", "乙", "丙"]) == "甲、乙和丙"
    assert say("done.all", parts=[]) == ""
    assert say("when.date", at=datetime(2024, 5, 9, 7, 5)) == "5月9日07:05"
    assert say("value.number", number="26", attribute="target_temperature") == "26度"


def test_the_builder_is_strict() -> None:
    with pytest.raises(KeyError):
        say("ask.no_such_phrase")
    with pytest.raises(KeyError):
        say("ask.which_device")  # its field is missing
    with pytest.raises(TypeError):
        say("ask.which_device", action="on", noun="灯")  # a value it never says


def _chinese_literals(source: str) -> list[tuple[int, str]]:
    """String literals with CJK in them, by line; docstrings (a string standing alone as a
    statement) are prose, not replies, and comments are not in the tree at all."""
    tree = ast.parse(source)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in prose
        and _CJK.search(node.value)
    ]


def test_the_guard_sees_chinese_in_any_literal_but_not_in_prose() -> None:
    source = '''
"""模块：docstring."""
X = 1
"""属性 docstring."""
def f(name: str) -> str:
    """函数 docstring."""
    # 注释
    a = "open"
    b = f"已打开{name}"
    return a + b + "，"
'''
    assert [line for line, _ in _chinese_literals(source)] == [9, 10]


@pytest.mark.parametrize("module", GUARDED)
def test_converted_modules_hold_no_reply_words(module: str) -> None:
    found = _chinese_literals((ROOT / module).read_text(encoding="utf-8"))
    assert not found, f"{module}: reply words belong in grammar/phrases.py: {found}"


def _acknowledged_calls() -> tuple[set[str], set[str]]:
    """Keys the planner says inside `Acknowledged(...)`, and every key it says."""
    wrapped: set[str] = set()
    said: set[str] = set()
    for path in sorted((ROOT / "planner").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = _bound_phrases(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            inner = node.args[0] if node.args else None
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "Acknowledged"
                and isinstance(inner, ast.Call)
            ):
                wrapped |= set(_said_keys(inner, bound) or ())
            else:
                said |= set(_said_keys(node, bound) or ())
    return wrapped, said


def test_every_planner_phrase_that_says_ok_is_marked_so() -> None:
    # A turn's reply is led by 好的 unless its first phrase already says it: known by the
    # Acknowledged mark, so a phrase opening with 好的 and not marked would say it twice.
    ok = say("done.ok").rstrip("。")
    wrapped, said = _acknowledged_calls()
    opening = {k for k in said if TEMPLATES[k].startswith(ok)}
    # Said before anything is sent (announce), and the leader itself.
    assert opening - wrapped == {"doing.scene", "done.ok_then"}
    assert wrapped <= opening


def test_a_done_phrase_has_three_tenses() -> None:
    home = load_home(ROOT / "corpus" / "homes" / "demo.json")
    by_name = {d.name: d.id for d in home.devices}
    light, ac = by_name["客厅灯"], by_name["客厅空调"]
    sent = [Command(light, "turn_off", {}), Command(ac, "set_temperature", {"value": 26})]
    assert done_phrase(home, None, sent) == "已关闭客厅灯，已把客厅空调温度调到26度"
    assert done_phrase(home, None, sent, "doing") == "正在关闭客厅灯，正在把客厅空调温度调到26度"
    assert done_phrase(home, None, sent, "later") == "关闭客厅灯，把客厅空调温度调到26度"


def test_a_fault_is_said_in_words_and_an_unknown_one_as_it_is() -> None:
    assert say("failed.device", name="灯", reason="offline") == "灯没有执行：设备离线"
    assert say("failed.device", name="灯", reason="busy") == "灯没有执行：busy"
    assert set(FAULT_WORDS) == set(get_args(Fault))  # every fault a hub may name is said


@pytest.mark.parametrize("attribute", [*sorted(WORDS["state_yes"]), "no_such_attribute"])
def test_states_compare_as_their_words_do(attribute: str) -> None:
    # Queries compare a read with the state asked about by value (in_state), not by the
    # words said for them: the same only while no attribute says both states alike.
    assert state_word(attribute, True) != state_word(attribute, False)
    assert in_state(30) and in_state(True) and not in_state(0) and not in_state(None)


def test_every_template_becomes_a_phrase_function() -> None:
    # Each template is turned into Python once, on first use; one that cannot be (a field
    # that is no identifier) would fail only when said, perhaps in a rare reply.
    for key in TEMPLATES:
        assert callable(_phrase(key)), key
