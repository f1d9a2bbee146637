"""Seed 001's parser: T1 (validators), T2 (prompt and extraction), T3 (parse_commands).

The model is the remote side: `Scripted` stands in for it with fixed answers, the way the
seed's tests mock the LLM; everything of ours runs for real.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from jiayu.compiler.llm.client import LLMError
from jiayu.compiler.llm.parser import (
    _SYSTEM_PROMPT,
    ALLOWED_CATEGORIES,
    HOME_CATEGORIES,
    UNKNOWN_COMMANDS,
    _extract_json,
    _fallback,
    _is_valid_action,
    _is_valid_category,
    _is_valid_count,
    _is_valid_nonempty_str,
    _is_valid_quantity,
    _validate_command,
    _validate_commands,
    build_messages,
    compact_json_dumps,
    parse_commands,
)

UNKNOWN = [{"a": "UNKNOWN", "s": "*", "n": "*", "t": "Unknown", "q": "one"}]
LIGHTS_OFF = {"a": "关闭", "s": "客厅,卧室", "n": "灯", "t": "Light", "q": "all"}


class Scripted:
    """A model that answers each call with the next scripted text (or raises it)."""

    def __init__(self, *answers: str | Exception) -> None:
        self.answers = list(answers)
        self.calls: list[list[dict[str, str]]] = []

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float,
        top_p: float,
        max_tokens: int,
    ) -> str:
        self.calls.append([dict(m) for m in messages])
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


# --- T1: validators -----------------------------------------------------------------------


@pytest.mark.parametrize("action", ["打开", "关闭", "静音", "取消静音", "设置亮度=50", "查询温度"])
def test_valid_actions(action: str) -> None:
    assert _is_valid_action(action)


@pytest.mark.parametrize(
    "action", ["设置", "查询", "打开灯", "开", "UNKNOWN", "", " 打开", "关", 1, None, ["打开"]]
)
def test_invalid_actions(action: object) -> None:
    assert not _is_valid_action(action)


def test_nonempty_str() -> None:
    assert _is_valid_nonempty_str("*")
    assert _is_valid_nonempty_str("客厅,!卧室")
    for bad in ("", "  ", None, 3, ["客厅"]):
        assert not _is_valid_nonempty_str(bad)


def test_categories_are_injectable() -> None:
    assert _is_valid_category("Light", ALLOWED_CATEGORIES)
    assert not _is_valid_category("Lock", ALLOWED_CATEGORIES)
    assert _is_valid_category("Lock", HOME_CATEGORIES)
    assert not _is_valid_category("light", HOME_CATEGORIES)
    assert not _is_valid_category(None, HOME_CATEGORIES)
    assert ALLOWED_CATEGORIES == (
        "AirConditioner",
        "Blind",
        "Charger",
        "Fan",
        "Hub",
        "Light",
        "NetworkAudio",
        "Unknown",
        "Switch",
        "Television",
        "Washer",
        "SmartPlug",
    )


def test_quantity() -> None:
    for q in ("one", "all", "any", "except"):
        assert _is_valid_quantity(q)
    for bad in ("ONE", "some", "", None, 1):
        assert not _is_valid_quantity(bad)


def test_count_is_an_int_and_not_a_bool() -> None:
    for good in (0, -1, 3, 10**6):
        assert _is_valid_count(good)
    for bad in (True, False, 1.0, "3", None):
        assert not _is_valid_count(bad)


def test_validate_command_whitelist_required_and_order() -> None:
    assert _validate_command(LIGHTS_OFF, ALLOWED_CATEGORIES) == LIGHTS_OFF
    with_count = {"c": 2, "q": "all", "t": "Light", "n": "灯", "s": "*", "a": "打开"}
    fixed = _validate_command(with_count, ALLOWED_CATEGORIES)
    assert fixed is not None and list(fixed) == ["a", "s", "n", "t", "q", "c"]
    assert _validate_command({**LIGHTS_OFF, "device": "x"}, ALLOWED_CATEGORIES) is None
    for key in ("a", "s", "n", "t", "q"):
        partial = {k: v for k, v in LIGHTS_OFF.items() if k != key}
        assert _validate_command(partial, ALLOWED_CATEGORIES) is None
    assert _validate_command({**LIGHTS_OFF, "t": "Robot"}, ALLOWED_CATEGORIES) is None
    assert _validate_command({**LIGHTS_OFF, "q": "many"}, ALLOWED_CATEGORIES) is None
    assert _validate_command({**LIGHTS_OFF, "c": "2"}, ALLOWED_CATEGORIES) is None
    assert _validate_command({**LIGHTS_OFF, "c": True}, ALLOWED_CATEGORIES) is None
    assert _validate_command({**LIGHTS_OFF, "n": ""}, ALLOWED_CATEGORIES) is None
    assert _validate_command(["打开"], ALLOWED_CATEGORIES) is None


def test_validate_commands_needs_a_nonempty_array_of_valid_objects() -> None:
    assert _validate_commands([LIGHTS_OFF], ALLOWED_CATEGORIES) == [LIGHTS_OFF]
    assert _validate_commands([], ALLOWED_CATEGORIES) is None
    assert _validate_commands(LIGHTS_OFF, ALLOWED_CATEGORIES) is None
    assert _validate_commands([LIGHTS_OFF, "打开"], ALLOWED_CATEGORIES) is None
    assert _validate_commands([LIGHTS_OFF, {**LIGHTS_OFF, "q": "x"}], ALLOWED_CATEGORIES) is None


def test_compact_json_and_fallback() -> None:
    assert compact_json_dumps([LIGHTS_OFF]) == (
        '[{"a":"关闭","s":"客厅,卧室","n":"灯","t":"Light","q":"all"}]'
    )
    first = _fallback()
    first[0]["a"] = "打开"  # a copy: the constant cannot be changed through it
    assert _fallback() == UNKNOWN == list(UNKNOWN_COMMANDS)


# --- T2: prompt and extraction ------------------------------------------------------------


def test_system_prompt_carries_the_contract() -> None:
    assert "{categories}" in _SYSTEM_PROMPT
    messages = build_messages("开灯", HOME_CATEGORIES)
    system = messages[0]["content"]
    assert "{categories}" not in system
    assert all(category in system for category in HOME_CATEGORIES)
    for rule in ("只输出 JSON 数组", "a,s,n,t,q,c", "设置<属性>=<值>", "查询<属性>", '"!"'):
        assert rule in system
    assert compact_json_dumps(UNKNOWN) in system
    assert messages[-1] == {"role": "user", "content": "开灯"}
    assert len(build_messages("开灯", HOME_CATEGORIES, "DATA")) == 3


def test_extract_plain_json() -> None:
    assert _extract_json('  [{"a":"打开"}]\n') == [{"a": "打开"}]


@pytest.mark.parametrize(
    "raw",
    [
        '```json\n[{"a":"打开"}]\n```',
        '好的，结果如下：[{"a":"打开"}] 希望有帮助',
        'Here:\n[\n  {"a": "打开"}\n]',
    ],
)
def test_extract_from_fence_or_prose(raw: str) -> None:
    assert _extract_json(raw) == [{"a": "打开"}]


@pytest.mark.parametrize("raw", ["", "打开灯", "[not json]", "{'a': 1}", '[{"a":"打开"}'])
def test_extract_fails(raw: str) -> None:
    with pytest.raises(ValueError):
        _extract_json(raw)


# --- T3: parse_commands --------------------------------------------------------------------


def _failures(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == "command_parser.parse_failed"]


def test_parse_commands_success_uses_the_given_parameters() -> None:
    model = Scripted('[{"a":"关闭","s":"客厅,卧室","n":"灯","t":"Light","q":"all"}]')
    assert parse_commands(model, "把客厅和卧室的灯关了") == [LIGHTS_OFF]
    assert len(model.calls) == 1
    assert model.calls[0][-1]["content"] == "把客厅和卧室的灯关了"


def test_parse_commands_multiple_in_order() -> None:
    answer = (
        '[{"a":"打开","s":"*,!卧室","n":"灯","t":"Light","q":"all"},'
        '{"a":"设置温度=26","s":"*","n":"空调","t":"AirConditioner","q":"one"}]'
    )
    result = parse_commands(Scripted(answer), "除了卧室把灯都打开，空调调到26度")
    assert [c["a"] for c in result] == ["打开", "设置温度=26"]


def test_parse_commands_reference_form_is_kept() -> None:
    answer = '[{"a":"设置亮度=调高","s":"*","n":"*","t":"Unknown","q":"one"}]'
    assert parse_commands(Scripted(answer), "把它调亮一点")[0]["n"] == "*"


def test_model_unknown_is_an_answer_not_a_failure(caplog: pytest.LogCaptureFixture) -> None:
    assert parse_commands(Scripted(compact_json_dumps(UNKNOWN)), "今天天气") == UNKNOWN
    assert not _failures(caplog)


def test_llm_error_is_logged_without_raw_response(caplog: pytest.LogCaptureFixture) -> None:
    assert parse_commands(Scripted(LLMError("HTTP 429")), "开灯") == UNKNOWN
    (record,) = _failures(caplog)
    assert record.levelno == logging.WARNING
    assert record.failure_type == "llm_error"
    assert record.input_text == "开灯"
    assert not hasattr(record, "raw_response")


def test_any_client_exception_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    assert parse_commands(Scripted(RuntimeError("boom")), "开灯") == UNKNOWN
    assert _failures(caplog)[0].failure_type == "llm_error"


def test_json_parse_error_is_logged_with_raw_cut_to_500(
    caplog: pytest.LogCaptureFixture,
) -> None:
    raw = "我不知道" * 300
    assert parse_commands(Scripted(raw), "开灯") == UNKNOWN
    (record,) = _failures(caplog)
    assert record.failure_type == "json_parse_error"
    assert record.raw_response == raw[:500]


@pytest.mark.parametrize(
    "answer",
    [
        '{"a":"打开","s":"*","n":"灯","t":"Light","q":"all"}',  # not an array
        "[]",
        '["打开"]',
        '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"all","device":"x"}]',  # extra field
        '[{"a":"打开","s":"*","n":"灯","t":"Light"}]',  # q missing
        '[{"a":"开","s":"*","n":"灯","t":"Light","q":"all"}]',  # action not in the rule
        '[{"a":"设置","s":"*","n":"灯","t":"Light","q":"all"}]',  # prefix with nothing after
        '[{"a":"打开","s":"*","n":"灯","t":"Lamp","q":"all"}]',  # bad enum
        '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"some"}]',  # bad enum
        '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"all","c":"3"}]',  # c a string
        '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"all","c":true}]',  # c a bool
        '[{"a":"打开","s":"*","n":"灯","t":"Light","q":"all","c":2.0}]',  # c a float
        '[{"a":"打开","s":"","n":"灯","t":"Light","q":"all"}]',  # s empty
    ],
)
def test_validation_failures(answer: str, caplog: pytest.LogCaptureFixture) -> None:
    assert parse_commands(Scripted(answer), "开灯") == UNKNOWN
    (record,) = _failures(caplog)
    assert record.failure_type == "validation_failed"
    assert record.raw_response == answer[:500]


def test_lock_is_valid_only_when_injected() -> None:
    answer = '[{"a":"打开","s":"*","n":"门锁","t":"Lock","q":"one"}]'
    assert parse_commands(Scripted(answer), "开门") == UNKNOWN
    injected = parse_commands(Scripted(answer), "开门", allowed_categories=HOME_CATEGORIES)
    assert injected[0]["t"] == "Lock"


def test_parse_commands_never_raises_on_odd_answers() -> None:
    odd: list[Any] = ["[" * 100_000 + "]" * 100_000, "\x00[]", "[null]", "[[[]]]", "1e999"]
    for raw in odd:
        assert parse_commands(Scripted(raw), "开灯") == UNKNOWN
