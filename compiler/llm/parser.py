"""Seed 001's command parser: utterance → the compact JSON array, strictly validated.

FR-1…FR-8 of seeds/001: one model call through an `LLMClient`, the system-prompt contract,
the injectable category enum, the action rule, two-step JSON extraction, strict validation,
and the standard UNKNOWN array (with a `command_parser.parse_failed` warning) on any failure.
`parse_commands` never raises.

Validation is by the seed's named predicates rather than a JSON Schema: a schema cannot say
that `c` is a Python int and not 1.0 (JSON Schema counts 1.0 as an integer), and the
predicates are several times faster on the turn's critical path.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from jiayu.compiler.llm.client import LLMClient, LLMError

logger = logging.getLogger(__name__)

ALLOWED_CATEGORIES: tuple[str, ...] = (
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
"""FR-3: the V1 enum, as the seed lists it."""

HOME_CATEGORIES: tuple[str, ...] = (
    *ALLOWED_CATEGORIES,
    "Sensor",
    "Lock",
    "Valve",
    "Heater",
    "Humidifier",
    "Purifier",
    "Vacuum",
    "Dehumidifier",
    "WaterHeater",
    "Dryer",
    "GarageDoor",
)
"""Every type a home file may use (CONTRACTS.md §1), injected through FR-3's override:
mapping a lock or a gas valve to Unknown would throw away the very hint that tells the
resolver and the risk gate what the model meant."""

UNKNOWN_COMMANDS: tuple[dict[str, Any], ...] = (
    {"a": "UNKNOWN", "s": "*", "n": "*", "t": "Unknown", "q": "one"},
)
"""FR-4: the standard answer to anything not understood (copied out by `_fallback`)."""

FIELDS = ("a", "s", "n", "t", "q", "c")
"""The only fields, in the order they are written."""
REQUIRED_FIELDS = frozenset(("a", "s", "n", "t", "q"))
QUANTIFIERS = frozenset(("one", "all", "any", "except"))
FIXED_ACTIONS = frozenset(("打开", "关闭", "静音", "取消静音"))
PREFIX_ACTIONS = ("设置", "查询")

DEFAULT_TOP_P = 0.8
DEFAULT_MAX_TOKENS = 512
"""A compact answer of a dozen objects fits in well under 512 tokens."""
RAW_RESPONSE_LIMIT = 500
"""FR-8: how much of the model's answer a warning carries."""

_SYSTEM_PROMPT = """你是智能家居指令解析器。把用户的中文指令解析为 JSON 数组。
规则：
1. 只输出 JSON 数组，不解释、不要代码块、不要多余文本。
2. 输出尽量紧凑：不要换行，字段间不需要空格。
3. 数组元素对象的字段只允许以下几个，并按此顺序输出：a,s,n,t,q,c。
4. a（动作，中文）：打开 / 关闭 / 静音 / 取消静音；设置用“设置<属性>=<值>”；查询用“查询<属性>”。
   属性：亮度、温度、色温、颜色、模式、风速、音量、位置、湿度、角度（百叶的角度）。
   值：数字（如 26、50%）；相对变化用 +数字 / -数字，不说数量时用 调高 / 调低\
（调暖 / 调冷 用于色温或温度）；极值用 最大 / 最小；模式用 制冷 / 制热 / 除湿 / 送风 / 自动，\
或风扇等的预设（如 自然风 / 睡眠风 / 强劲风）；风速用 低 / 中 / 高 / 自动；\
颜色用 红色 / 橙色 / 黄色 / 绿色 / 青色 / 蓝色 / 紫色 / 粉色。
   没有值的动作也写成“设置<属性>=<值>”：播放用 设置播放=播放 / 暂停 / 下一首 / 上一首；\
窗帘停下用 设置位置=停止；风扇摇头用 设置摇头=开 / 关；扫地机用 设置扫地=开始 / 暂停 / 回充；\
洗衣机、烘干机用 设置运行=开始 / 暂停 / 停止。
5. s（房间）：未知用 "*"；多个房间用 "," 分隔；排除的房间加 "!" 前缀（例 "*,!卧室"）。
6. n（设备名）：去掉房间词，保留修饰词；不确定用 "*"；\
泛指类型（如“所有灯”“三个插座”）填该类型的中文原文（如 "灯" "插座" "空调" "窗帘"），不要用 "*"。
7. t（类型）：只能是以下之一：{categories}；不确定用 "Unknown"。
8. q：one / all / any / except；泛指类型默认 all；不确定用 one。
9. c：只有明确说出数量时才输出，为整数；否则不输出该字段。
10. 多个动作或多个目标：拆成多个对象，按语序输出；每个对象只含一个动作和一个目标。
11. 用户用“它 / 那个 / 刚才那个”等指代且没有明确目标时：保留动作 a，并输出 s="*"、n="*"、\
t="Unknown"、q="one"。
12. 完全无法解析时输出：[{"a":"UNKNOWN","s":"*","n":"*","t":"Unknown","q":"one"}]
示例：
把客厅和卧室的灯关了 → [{"a":"关闭","s":"客厅,卧室","n":"灯","t":"Light","q":"all"}]
除了卧室把灯都打开，空调调到26度 → [{"a":"打开","s":"*,!卧室","n":"灯","t":"Light","q":"all"},\
{"a":"设置温度=26","s":"*","n":"空调","t":"AirConditioner","q":"one"}]
把它调亮一点 → [{"a":"设置亮度=调高","s":"*","n":"*","t":"Unknown","q":"one"}]
让扫地机器人回去充电 → [{"a":"设置扫地=回充","s":"*","n":"扫地机器人","t":"Vacuum","q":"one"}]"""
"""FR-2: the contract the model is held to; `{categories}` is filled in per call."""

_ARRAY = re.compile(r"\[.*\]", re.DOTALL)


def compact_json_dumps(value: Any) -> str:
    """The compact JSON text of a value: no spaces, no newlines, Chinese kept as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _fallback() -> list[dict[str, Any]]:
    return [dict(item) for item in UNKNOWN_COMMANDS]


def _is_valid_action(value: object) -> bool:
    """FR-5: one of the fixed words exactly, or 设置/查询 followed by something."""
    if not isinstance(value, str):
        return False
    if value in FIXED_ACTIONS:
        return True
    return any(value.startswith(p) and len(value) > len(p) for p in PREFIX_ACTIONS)


def _is_valid_nonempty_str(value: object) -> bool:
    """FR-6 (and n): a string with something in it besides spaces."""
    return isinstance(value, str) and bool(value.strip())


def _is_valid_category(value: object, allowed_categories: Sequence[str]) -> bool:
    return isinstance(value, str) and value in allowed_categories


def _is_valid_quantity(value: object) -> bool:
    return isinstance(value, str) and value in QUANTIFIERS


def _is_valid_count(value: object) -> bool:
    """An int and not a bool (True is an int in Python); 0 and negatives pass (seed §9)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _validate_command(item: object, allowed_categories: Sequence[str]) -> dict[str, Any] | None:
    """The object with its fields in canonical order, or None if it breaks the contract."""
    if not isinstance(item, dict):
        return None
    if not item.keys() <= set(FIELDS) or not item.keys() >= REQUIRED_FIELDS:
        return None
    if not (
        _is_valid_action(item["a"])
        and _is_valid_nonempty_str(item["s"])
        and _is_valid_nonempty_str(item["n"])
        and _is_valid_category(item["t"], allowed_categories)
        and _is_valid_quantity(item["q"])
        and ("c" not in item or _is_valid_count(item["c"]))
    ):
        return None
    # The order is how it is written, not what it means: a reordered object is kept, in order.
    return {key: item[key] for key in FIELDS if key in item}


def _validate_commands(
    value: object, allowed_categories: Sequence[str]
) -> list[dict[str, Any]] | None:
    """The validated array, or None if it is not a non-empty array of valid objects."""
    if not isinstance(value, list) or not value:
        return None
    out = []
    for item in value:
        valid = _validate_command(item, allowed_categories)
        if valid is None:
            return None
        out.append(valid)
    return out


def _extract_json(raw: str) -> Any:
    """FR-7: the whole answer as JSON, else its first `[` to its last `]`; ValueError if
    neither parses."""
    try:
        return json.loads(raw.strip())
    except ValueError:
        pass
    found = _ARRAY.search(raw)
    if found is None:
        raise ValueError("no JSON array in the answer")
    return json.loads(found.group(0))


def build_messages(
    text: str, allowed_categories: Sequence[str], context: str | None = None
) -> list[dict[str, str]]:
    """The messages of one call: the contract, the data block if any, the utterance.

    The data block is a system message of its own, after the contract, so nothing a device
    is called can be read as part of the rules; the user message is the utterance alone.
    (Seed 001's extension point: the five-turn history would go between the two.)"""
    system = _SYSTEM_PROMPT.replace("{categories}", "、".join(allowed_categories))
    messages = [{"role": "system", "content": system}]
    if context:
        messages.append({"role": "system", "content": context})
    messages.append({"role": "user", "content": text})
    return messages


def parse_commands(
    client: LLMClient,
    text: str,
    *,
    allowed_categories: Sequence[str] = ALLOWED_CATEGORIES,
    temperature: float = 0,
    top_p: float = DEFAULT_TOP_P,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    context: str | None = None,
) -> list[dict[str, Any]]:
    """The compact commands the model reads in `text`, or the UNKNOWN array; never raises."""
    messages = build_messages(text, allowed_categories, context)
    try:
        raw = client.complete(messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens)
    except LLMError as e:
        _warn("llm_error", text, detail=str(e))
        return _fallback()
    except Exception as e:  # a client outside this package may raise anything: never crash
        _warn("llm_error", text, detail=f"{type(e).__name__}: {e}")
        return _fallback()
    if not isinstance(raw, str):
        _warn("llm_error", text, detail="the client returned no text")
        return _fallback()
    try:
        parsed = _extract_json(raw)
    except (ValueError, RecursionError):
        _warn("json_parse_error", text, raw)
        return _fallback()
    if parsed == list(UNKNOWN_COMMANDS):
        return _fallback()  # the model said it did not understand: an answer, not a failure
    commands = _validate_commands(parsed, allowed_categories)
    if commands is None:
        _warn("validation_failed", text, raw)
        return _fallback()
    return commands


def _warn(failure_type: str, text: str, raw: str | None = None, detail: str = "") -> None:
    extra: dict[str, Any] = {"failure_type": failure_type, "input_text": text}
    if raw is not None:
        extra["raw_response"] = raw[:RAW_RESPONSE_LIMIT]
    if detail:
        extra["detail"] = detail[:RAW_RESPONSE_LIMIT]
    logger.warning("command_parser.parse_failed", extra=extra)
