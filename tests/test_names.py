"""Names are matched after the same normaliser as what is said (CONTRACTS.md §1): a device
named `TV`, `iPad充电器`, `ＡＢ灯` or `書房檯燈` is reached by saying it, and the home, the
lexicon, the name index, bare names and room prefixes all agree, through `plain_name`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from jiayu.engine import Engine
from jiayu.home import Home, parse_home
from jiayu.resolver.names import NameIndex
from jiayu.text import plain_name


def home(*devices: dict[str, Any], rooms: list[dict[str, Any]] | None = None) -> Home:
    return parse_home(
        {
            "version": 1,
            "name": "测试之家",
            "rooms": rooms or [{"id": "study", "name": "书房"}, {"id": "living", "name": "客厅"}],
            "devices": list(devices),
        },
        "test",
    )


def device(device_id: str, name: str, room: str = "living", **more: Any) -> dict[str, Any]:
    return {
        "id": device_id,
        "name": name,
        "room": room,
        "type": "Light",
        "capabilities": ["onoff"],
        **more,
    }


def sent(result: Any) -> list[tuple[str, str]]:
    return [(c["device"], c["command"]) for c in result.commands]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("TV", "打开tv"),
        ("TV", "打开TV"),
        ("iPad充电器", "打开ipad充电器"),
        ("ＡＢ灯", "打开AB灯"),
        ("ＡＢ灯", "打开ＡＢ灯"),
        ("書房檯燈", "打开书房台灯"),
        ("書房檯燈", "打开書房檯燈"),
        ("阅\u200b读灯", "打开阅读灯"),
    ],
)
def test_a_name_is_reached_as_it_is_said(name: str, said: str) -> None:
    # Another light in the same room, so only the name can pick the target.
    engine = Engine(home(device("target", name, "study"), device("other", "书房吸顶灯", "study")))
    result = engine.turn(said)
    assert result.outcome == "executed", result.reply
    assert sent(result) == [("target", "turn_on")]


def test_a_traditional_name_is_not_confused_with_a_shorter_simplified_one() -> None:
    # The lamp named in traditional characters used to be unreachable, so 打开書房檯燈 fell to
    # the other study light.
    engine = Engine(home(device("ceiling", "书房灯", "study"), device("lamp", "書房檯燈", "study")))
    assert sent(engine.turn("打开書房檯燈")) == [("lamp", "turn_on")]
    assert sent(engine.turn("关掉书房台灯")) == [("lamp", "turn_off")]


def test_a_traditional_alias_is_reached() -> None:
    engine = Engine(home(device("lamp", "落地灯", aliases=["閱讀燈"]), device("ceiling", "吸顶灯")))
    assert sent(engine.turn("打开阅读灯")) == [("lamp", "turn_on")]


def test_the_bare_name_after_a_room_said_differently_is_found() -> None:
    # Room 書房 (traditional) and device 书房ＴＶ: the bare name is tv, so 书房的TV finds it.
    rooms = [{"id": "study", "name": "書房"}, {"id": "living", "name": "客厅"}]
    tv = device("tv", "书房ＴＶ", "study")
    built = home(tv, device("tv2", "客厅TV"), rooms=rooms)
    assert built.bare_name(built.device("tv")) == "tv"
    assert built.bare_name(built.device("tv2")) == "tv"
    assert set(NameIndex(built).lookup("TV").devices) == {"tv", "tv2"}  # type: ignore[union-attr]
    engine = Engine(built)
    assert sent(engine.turn("打开书房的TV")) == [("tv", "turn_on")]


def test_one_form_everywhere() -> None:
    assert plain_name("書房 的 ＴＶ\u200b") == "书房tv"
    built = home(device("tv", "ＴＶ"))
    index = NameIndex(built)
    assert index.exact("tv") == index.exact("TV") == index.exact("ＴＶ")
    assert index.exact("tv") is not None


def test_fuzzy_data_is_built_once_on_first_need_from_any_thread() -> None:
    built = home(device("ceiling", "吸顶灯"), device("lamp", "書房檯燈", "study"))
    index = NameIndex(built)
    assert index._fuzzy is None  # nothing fuzzy is paid for at build
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(index.fuzzy, ["书房抬灯"] * 16))
    assert all(f == found[0] for f in found)
    assert found[0][0][1].devices == ("lamp",)
    data = index._fuzzy
    index.warm()
    assert index._fuzzy is data
