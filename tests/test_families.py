"""Issue 21's structural families as properties, and the ones that need a runtime.

1. A count larger than the set is refused with the real number; no question ever names a
   count larger than what exists.
2. Several rooms and one bare name act on that name in each room.
3. A home's name (or a fixed word) is never split by a shorter verb inside it (玄关's 关).
4. 随便/任意 pick exactly one device.
8. 换个风格 / 算了不要了 stop a running background scene (seed 004).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jiayu.compiler.lexicon import Lexicon
from jiayu.engine import Engine
from jiayu.grammar.vocab import TABLES
from jiayu.home import Home, parse_home

SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

CHINESE_DIGITS = "一两三四五六七八九"
TYPE_WORDS = frozenset(TABLES["TYPE"])  # a type word is a set already, not a bare name
TYPES = {"灯": ("Light", "盏"), "插座": ("SmartPlug", "个"), "空调": ("AirConditioner", "台")}


def _set_of(home: Home, room: str | None, kind: str) -> list[str]:
    return [
        d.id
        for d in home.devices
        if d.serves_as(kind) and (room is None or d.room == room) and "onoff" in d.capabilities
    ]


# --- 1. counts --------------------------------------------------------------------------


@SETTINGS
@given(
    room=st.sampled_from([None, "living", "study", "bedroom", "kids", "balcony", "master"]),
    word=st.sampled_from(sorted(TYPES)),
    count=st.integers(min_value=1, max_value=9),
    verb=st.sampled_from(["打开{}", "关掉{}", "把{}关了", "{}都打开"]),
)
def test_a_count_never_asks_about_more_than_there_is(
    engine: Engine, room: str | None, word: str, count: int, verb: str
) -> None:
    home = engine.home
    kind, classifier = TYPES[word]
    place = home.room(room).name + "的" if room else ""
    text = verb.format(f"{place}{CHINESE_DIGITS[count - 1]}{classifier}{word}")
    result = engine.turn(text, session_id=f"count-{text}")
    there = len(_set_of(home, room, kind))
    if count > there:
        assert result.outcome == "rejected", (text, result.reply)
        assert result.commands == []
        assert f"只有 {there} 个" in result.reply if there else "没有找到" in result.reply
    if result.outcome == "clarify":
        asked = [CHINESE_DIGITS.index(n) + 1 for n in re.findall(r"哪([一-九两])个", result.reply)]
        assert all(n <= there for n in asked), result.reply
        assert count <= len(result.options)


# --- 2. several rooms, one bare name ----------------------------------------------------


def _bare_names(home: Home) -> dict[str, dict[str, list[str]]]:
    """bare name → room → the devices with that bare name there."""
    found: dict[str, dict[str, list[str]]] = {}
    for device in home.devices:
        bare = home.bare_name(device)
        if bare and device.room and "onoff" in device.capabilities:
            found.setdefault(bare, {}).setdefault(device.room, []).append(device.id)
    return found


@SETTINGS
@given(data=st.data())
def test_several_rooms_and_one_bare_name_act_in_each_room(engine: Engine, data: Any) -> None:
    home = engine.home
    shared = {
        bare: rooms
        for bare, rooms in _bare_names(home).items()
        if len(rooms) >= 2
        and all(len(ids) == 1 for ids in rooms.values())
        and bare not in TYPE_WORDS
    }
    bare = data.draw(st.sampled_from(sorted(shared)))
    rooms = data.draw(
        st.lists(st.sampled_from(sorted(shared[bare])), min_size=2, max_size=4, unique=True)
    )
    joiner = data.draw(st.sampled_from(["和", "跟", "、"]))
    said = joiner.join(home.room(r).name for r in rooms)
    text = data.draw(st.sampled_from(["打开{}的{}", "把{}的{}关掉", "{}的{}都打开"]))
    text = text.format(said, bare)
    result = engine.turn(text, session_id=f"rooms-{text}")
    expected = sorted(shared[bare][r][0] for r in rooms)
    assert result.outcome == "executed", (text, result.reply)
    assert sorted(c["device"] for c in result.commands) == expected


def test_a_room_with_two_of_the_bare_name_is_asked_about_alone() -> None:
    # The bedroom is also called 次卧: 卧室台灯 and 次卧台灯 both have the bare name 台灯 there.
    home = _home(
        [("书房", "study"), ("卧室", "bedroom", "次卧")],
        [
            ("lamp_study", "书房台灯", "study", "Light", ()),
            ("lamp_bed_left", "卧室台灯", "bedroom", "Light", ()),
            ("lamp_bed_right", "次卧台灯", "bedroom", "Light", ()),
        ],
    )
    result = Engine(home).turn("打开书房和卧室的台灯")
    assert result.outcome == "clarify"
    assert result.commands == []
    assert set(result.options) == {"lamp_bed_left", "lamp_bed_right"}


# --- 3. names and words are never split by a verb inside them ----------------------------

# Characters that are verbs on their own (开, 关, 调, 停, 放) or start one (开始, 关掉).
VERBISH = "开关调停放始闭掉"
plain_char = st.sampled_from(list("玄书客厅卧储物衣帽间阳台小大东西南北庙亭阁园"))


def _home(rooms: list[tuple[str, ...]], devices: list[tuple[Any, ...]]) -> Home:
    """A home of rooms (name, id, aliases…) and on/off devices (id, name, room, type, aliases)."""
    return parse_home(
        {
            "version": 1,
            "name": "generated",
            "rooms": [{"id": r[1], "name": r[0], "aliases": list(r[2:])} for r in rooms],
            "devices": [
                {
                    "id": did,
                    "name": name,
                    "room": room,
                    "type": kind,
                    "aliases": list(aliases),
                    "capabilities": ["onoff"],
                    "state": {"on": False},
                }
                for did, name, room, kind, aliases in devices
            ],
        },
        "generated",
    )


room_names = st.lists(
    st.tuples(plain_char, st.sampled_from(list(VERBISH)), plain_char).map("".join)
    | st.tuples(plain_char, st.sampled_from(list(VERBISH))).map("".join),
    min_size=2,
    max_size=4,
    unique=True,
)


@settings(max_examples=80, deadline=None)
@given(
    names=room_names,
    frame=st.sampled_from(["打开{}灯", "把{}灯关掉", "{}灯关一下", "{}的灯打开", "关闭{}的灯"]),
    data=st.data(),
)
def test_a_room_name_with_a_verb_inside_is_never_split(
    names: list[str], frame: str, data: Any
) -> None:
    rooms = [(name, f"r{i}") for i, name in enumerate(names)]
    home = _home(rooms, [(f"light_{rid}", f"{name}灯", rid, "Light", ()) for name, rid in rooms])
    name, rid = data.draw(st.sampled_from(rooms))
    text = frame.format(name)
    tokens = [t for t in Lexicon(home).lex(text) if t.kind != "FILLER"]
    assert any(t.said in (name, name + "灯") for t in tokens), (text, tokens)
    result = Engine(home).turn(text)
    command = "turn_off" if "关" in frame else "turn_on"
    assert result.outcome == "executed", (text, result.reply)
    assert [(c["device"], c["command"]) for c in result.commands] == [(f"light_{rid}", command)]


LONGER_WORDS = ["开始播放", "开着就行", "开着吗", "关掉", "关闭", "打开", "开关", "玄关"]


@SETTINGS
@given(word=st.sampled_from(LONGER_WORDS), before=st.sampled_from(["客厅音箱", "玄关开关", ""]))
def test_a_longer_word_wins_over_a_verb_inside_it(engine: Engine, word: str, before: str) -> None:
    lexicon = Lexicon(engine.home)
    tokens = lexicon.lex(before + word)
    assert any(t.said == word for t in tokens) or any(
        t.start <= len(before) and t.start + len(t.said) >= len(before) + len(word) for t in tokens
    ), tokens


# --- 4. any one ---------------------------------------------------------------------------


@SETTINGS
@given(
    text=st.sampled_from(
        ["随便开一盏灯", "任意打开一个灯", "开任意一盏灯", "随便打开一盏灯", "任意开一盏灯吧"]
    )
)
def test_any_one_turns_on_exactly_one_light(engine: Engine, text: str) -> None:
    result = engine.turn(text, session_id=f"any-{text}")
    assert result.outcome == "executed"
    assert len(result.commands) == 1
    device = engine.home.device(result.commands[0]["device"])
    assert device.serves_as("Light") and result.commands[0]["command"] == "turn_on"


# --- 8. changing and cancelling a running scene -------------------------------------------


def _mid_scene(demo_home: Home, said: str) -> tuple[Any, list[str]]:
    async def main() -> tuple[Any, list[str]]:
        engine = Engine(demo_home)
        seen: list[str] = []
        engine.events.on("s", lambda e: seen.append(e.kind))
        started = await engine.handle("帮我放松一下", "s")
        await asyncio.sleep(0.3)  # the first step is sent; the next waits 3 s
        handled = await engine.handle(said, "s")
        await started.result
        await engine.aclose()
        return handled, seen

    return asyncio.run(main())


def test_cancel_words_without_punctuation_stop_a_running_scene(demo_home: Home) -> None:
    for said in ("算了不要了", "不用了算了", "算了算了不要了"):
        handled, seen = _mid_scene(demo_home, said)
        assert handled.outcome == "noop", said
        assert "停下" in handled.reply
        assert "scene.cancelled" in seen


def test_change_of_style_stops_the_scene_and_asks_for_another(demo_home: Home) -> None:
    handled, seen = _mid_scene(demo_home, "换个风格")
    assert handled.outcome == "clarify"
    assert handled.reply.startswith("好的，已经停下了。")
    assert "观影模式" in handled.reply
    assert "scene.cancelled" in seen
