"""Forms composed from the morphology's classes on generated homes, each with its meaning
known by construction (an oracle sentence the grammar already understood), and a companion
that replaces one slot with an unrelated word and checks that nothing is sent:

- the way said before the verb (往下调, 往大了拧, 朝上调一调): what the verb with that size
  after it does (调低, 拧大, 调高);
- a gear said by its number (开三档, 风速调到一档, 两档): the fan speed of that rank, slowest
  first, as the speed's own word says it (高速, 低速); a gear past the third is never set;
- a fraction (三分之一, 四分之三): the share of the whole, in percent; more than the whole is
  never set;
- 凉快/暖和 said of a device or of a room: its set point, as 调低/调高 says it; never a light's
  colour (a light has no set point: nothing is sent);
- places said together (家里客厅, 一楼书房, 我家主卧): they nest, so only the room's devices
  are sent, nothing for a floor the room is not on, and the home said first changes nothing
  (on the demo home, which has two floors);
- a feeling said by who feels it with no degree (我冷, 我热了): the complaint, as 我好冷 says it;
- a loudness said around its 一点 (小点声, 调大一点声): a step of the volume;
- a scene said with any word for "scene" after its name or alias (晚安场景, 睡眠情景): that
  scene;
- a condition on a device's state said after the device (电视要是开着就关了): the condition
  said first (要是电视开着就关了), whether the device is on or off.

The generators of tests/test_paraphrase.py are used as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import _HOMES, _UNRELATED, SETTINGS, _devices, _engine
from test_paraphrase_s7 import _same, _turn, _with

from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.vocab import (
    FEELERS,
    FELT,
    LOUDNESS_BITS,
    LOUDNESS_VERBS,
    NOTCH_COUNTS,
    NOTCH_UNITS,
    QUALITIES,
    SCENE_ENDS,
    TABLES,
    TOWARD,
    TOWARD_SIDES,
    TOWARD_VERBS,
)
from jiayu.home import load_home
from jiayu.result import Result

_SOFTENERS = ("", "一点", "点", "一些")
# Each side said before the verb, and the size that says the same after it (调 + 低).
_SIDES = {"上": "高", "下": "低", "高": "高", "低": "低", "大": "大", "小": "小"}
# The speed words of each rank (the SPEED table's): the oracle of a gear.
_RANKED = ("低速", "中速", "高速")


@st.composite
def _toward(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """[把] device 音量|温度 toward side [了] verb [softener]: (home, text, oracle)."""
    attribute, capability = draw(
        st.sampled_from((("音量", "volume"), ("温度", "target_temperature")))
    )
    index, _device, room, bare = draw(_with(capability))
    toward = draw(st.sampled_from(TOWARD))
    side = draw(st.sampled_from(sorted(_SIDES)))
    link = draw(st.sampled_from(("", "了")))
    verb = draw(st.sampled_from(TOWARD_VERBS))
    softener = draw(st.sampled_from(_SOFTENERS))
    if unrelated:
        side = draw(st.sampled_from(_UNRELATED))
    ba = draw(st.sampled_from(("", "把")))
    text = f"{ba}{room}{bare}{attribute}{toward}{side}{link}{verb}{softener}"
    return index, text, f"把{room}{bare}{attribute}调{_SIDES.get(side, '')}{softener}"


@settings(SETTINGS, max_examples=400)
@given(_toward())
def test_the_way_said_before_the_verb_changes_as_the_size_after_it(
    case: tuple[int, str, str],
) -> None:
    index, text, oracle = case
    _same(index, text, oracle)


@st.composite
def _gear(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """device [风速] verb count unit: (home, text, oracle with the speed's word)."""
    index, _device, room, bare = draw(_with("fan_speed"))
    count = draw(st.sampled_from(sorted(NOTCH_COUNTS)))
    unit = draw(st.sampled_from(("档", "挡")))
    verb, attribute = draw(
        st.sampled_from((("开", ""), ("开到", ""), ("调到", "风速"), ("", ""), ("调成", "风速")))
    )
    if unrelated:
        unit = draw(st.sampled_from(_UNRELATED))
    oracle = f"把{room}{bare}风速调到{_RANKED[NOTCH_COUNTS[count] - 1]}"
    return index, f"{room}{bare}{attribute}{verb}{count}{unit}", oracle


@settings(SETTINGS, max_examples=300)
@given(_gear())
def test_a_gear_said_by_its_number_is_the_speed_of_that_rank(case: tuple[int, str, str]) -> None:
    index, text, oracle = case
    _same(index, text, oracle)


@settings(SETTINGS, max_examples=100)
@given(
    able=_with("fan_speed"),
    gear=st.sampled_from(("四", "五", "六", "十")),
    unit=st.sampled_from(NOTCH_UNITS),
)
def test_a_gear_past_the_third_sets_nothing(
    able: tuple[int, object, str, str], gear: str, unit: str
) -> None:
    index, _device, room, bare = able
    _outcome, sent, _answered = _turn(index, f"{room}{bare}开{gear}{unit}")
    assert sent == [], (room, bare, gear)


# Wholes and parts said as numerals, with the percent each share is.
_NUMERALS = {"二": 2, "三": 3, "四": 4, "五": 5, "十": 10}


@st.composite
def _fraction(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, str]:
    """[把] device verb whole 分之 part: (home, text, oracle in percent)."""
    index, _device, room, bare = draw(_with("cover"))
    whole = draw(st.sampled_from(sorted(_NUMERALS)))
    part = draw(st.sampled_from([p for p, n in _NUMERALS.items() if n <= _NUMERALS[whole]]))
    verb = draw(st.sampled_from(("打开", "开到", "调到", "拉到")))
    said = f"{whole}分之{part}"
    if unrelated:
        said = f"{whole}分之{draw(st.sampled_from(_UNRELATED))}"
    share = round(100 * _NUMERALS[part] / _NUMERALS[whole])
    return index, f"{room}{bare}{verb}{said}", f"把{room}{bare}开合度调到百分之{share}"


@settings(SETTINGS, max_examples=300)
@given(_fraction())
def test_a_fraction_is_its_share_in_percent(case: tuple[int, str, str]) -> None:
    index, text, oracle = case
    _same(index, text, oracle)


@settings(SETTINGS, max_examples=100)
@given(able=_with("cover"), whole=st.sampled_from(("二", "三", "四")))
def test_more_than_the_whole_sets_nothing(able: tuple[int, object, str, str], whole: str) -> None:
    index, _device, room, bare = able
    _outcome, sent, _answered = _turn(index, f"{room}{bare}打开{whole}分之五")
    assert sent == [], (room, bare, whole)


_FELT = {"凉快": "低", "暖和": "高"}


@settings(SETTINGS, max_examples=300)
@given(
    able=_with("target_temperature"),
    felt=st.sampled_from(sorted(_FELT)),
    verb=st.sampled_from(("调", "弄", "整", "")),
    softener=st.sampled_from(("一点", "点", "一些")),
)
def test_felt_qualities_move_the_set_point(
    able: tuple[int, object, str, str], felt: str, verb: str, softener: str
) -> None:
    index, _device, room, bare = able
    _same(index, f"把{room}{bare}{verb}{felt}{softener}", f"把{room}{bare}温度调{_FELT[felt]}一点")


@settings(SETTINGS, max_examples=200)
@given(able=_with("brightness"), felt=st.sampled_from(sorted(_FELT)))
def test_felt_qualities_are_never_a_lights_colour(
    able: tuple[int, object, str, str], felt: str
) -> None:
    index, _device, room, bare = able
    _outcome, sent, _answered = _turn(index, f"把{room}{bare}调{felt}一点")
    assert all(command != "set_color_temp" for _d, command in sent), (room, bare, sent)


@settings(SETTINGS, max_examples=300)
@given(
    st.one_of(
        _toward(unrelated=True).map(lambda c: (c[0], c[1])),
        _gear(unrelated=True).map(lambda c: (c[0], c[1])),
        _fraction(unrelated=True).map(lambda c: (c[0], c[1])),
    )
)
def test_one_unrelated_word_in_these_forms_sends_nothing(case: tuple[int, str]) -> None:
    index, text = case
    outcome, sent, _answered = _turn(index, text)
    assert sent == [], (text, outcome)


def test_every_side_the_morphology_composes_is_drawn() -> None:
    assert set(TOWARD_SIDES) <= set(_SIDES)


_DEMO = Engine(load_home(Path(__file__).resolve().parents[1] / "corpus" / "homes" / "demo.json"))
_HOME_WORDS = sorted(w for w, kind in TABLES["HOME"].items() if kind == "home" and "房间" not in w)
_TYPES = ("灯", "空调", "窗帘", "插座")
# Rooms of the demo home with an air conditioner, lights and a player: where a speaker is.
_SPEAKER_ROOMS = st.sampled_from(
    [r for r in _DEMO.home.rooms if r.id in ("living", "master", "kids")]
)


def _demo_same(text: str, oracle: str, area: str | None = None) -> Result:
    """`text` does on the demo home what `oracle` does (said where `area` is); the oracle's
    Result, for what a test asks of it."""
    said, meant = (_DEMO.fresh().turn(t, area=area) for t in (text, oracle))
    assert (said.outcome, said.commands) == (meant.outcome, meant.commands), text
    return meant


@settings(SETTINGS, max_examples=300)
@given(
    room=st.sampled_from(_DEMO.home.rooms),
    floor=st.sampled_from(_DEMO.home.floors),
    home=st.sampled_from(("", *_HOME_WORDS)),
    kind=st.sampled_from(_TYPES),
    verb=st.sampled_from(("打开", "关了")),
)
def test_places_said_together_nest_and_never_widen(
    room: Any, floor: Any, home: str, kind: str, verb: str
) -> None:
    """家里/一楼 said before a room narrow to it: the devices sent are the room's, the same
    as the room said alone (or nothing, for a floor the room is not on)."""
    said = _DEMO.fresh().turn(f"{home}{floor.name}{room.name}的{kind}{verb}")
    sent = {c["device"] for c in said.commands}
    assert sent <= {d.id for d in _DEMO.home.devices if d.room == room.id}, (said.text, sent)
    if room.floor != floor.name and room.floor != floor.id:
        assert sent == set(), said.text
    _demo_same(f"{home}{room.name}的{kind}{verb}", f"{room.name}的{kind}{verb}")


@settings(SETTINGS, max_examples=200)
@given(
    room=_SPEAKER_ROOMS,
    kind=st.sampled_from(FELT),
    particle=st.sampled_from(("", "了", "啊", "了呀")),
    data=st.data(),
)
def test_a_feeling_said_with_no_degree_is_the_complaint(
    room: Any, kind: str, particle: str, data: st.DataObject
) -> None:
    """我冷, 我热了: what 我好冷 / 我好热 does where the speaker is."""
    quality = data.draw(st.sampled_from(QUALITIES[kind]))
    feeler = data.draw(st.sampled_from(FEELERS))
    meant = _demo_same(f"{feeler}{quality}{particle}", f"{feeler}好{quality}", room.id)
    assert meant.outcome == "executed", meant.text


@settings(SETTINGS, max_examples=300)
@given(
    able=_with("onoff"),
    condition=st.sampled_from(sorted(TABLES["IF"])),
    state=st.sampled_from(("开着", "还开着")),
    then=st.sampled_from(("就关了", "就关掉", "就把它关了")),
    on=st.booleans(),
)
def test_a_condition_said_after_its_device_is_the_same_condition(
    able: tuple[int, Any, str, str], condition: str, state: str, then: str, on: bool
) -> None:
    """电视要是开着就关了: what 要是电视开着就关了 does, whether the device is on or off."""
    index, device, room, bare = able
    engine = _engine(index)
    hub_state = {device.id: {"on": on}}
    said, meant = (
        engine.fresh(hub=SimulatedHub(engine.home, hub_state)).turn(text, "s8")
        for text in (
            f"{room}{bare}{condition}{state}{then}",
            f"{condition}{room}{bare}{state}{then}",
        )
    )
    assert meant.outcome in ("executed", "noop"), meant.text
    assert (said.outcome, said.commands) == (meant.outcome, meant.commands), said.text


@settings(SETTINGS, max_examples=300)
@given(
    first=st.sampled_from(_DEMO.home.rooms),
    second=st.sampled_from(_DEMO.home.rooms),
    kind=st.sampled_from(_TYPES),
    verb=st.sampled_from(("开了", "关了", "打开", "关掉")),
    link=st.sampled_from(("，", "", "，那")),
)
def test_a_place_and_de_after_a_kind_is_that_kind_there(
    first: Any, second: Any, kind: str, verb: str, link: str
) -> None:
    """客厅的灯开了，卧室的也开: the second room's devices of the kind named first (as 卧室的灯
    says), never every device of that room."""
    said = f"{first.name}的{kind}{verb}{link}{second.name}的"
    _demo_same(f"{said}也{verb}", f"{said}{kind}也{verb}")


_SWITCHED_KINDS = {"灯": "Light", "空调": "AirConditioner", "电视": "Television", "风扇": "Fan"}


@settings(SETTINGS, max_examples=100)
@given(
    kind=st.sampled_from(sorted(_SWITCHED_KINDS)),
    lead=st.sampled_from(("除了", "除")),
    verb=st.sampled_from(("都关了", "都关掉", "全部关掉")),
    room=st.sampled_from(("", *(r.name for r in _DEMO.home.rooms))),
)
def test_a_kind_taken_out_whole_leaves_every_other_kind(
    kind: str, lead: str, verb: str, room: str
) -> None:
    """除了空调都关了: every other device switched off, none of that kind. It read the set as
    the kind itself (every air conditioner but the air conditioners) and refused."""
    said = _DEMO.fresh().turn(f"{room}{lead}{kind}{verb}")
    home = _DEMO.home
    kinds = {home.device(c["device"]).type for c in said.commands}
    assert _SWITCHED_KINDS[kind] not in kinds, (said.text, kinds)
    # A room with nothing else to switch refuses, saying so (餐厅除了灯都关了); the home does not.
    assert said.outcome == "executed" or (room and said.outcome == "rejected"), said.text


@settings(SETTINGS, max_examples=300)
@given(
    able=_with("fan_speed"),
    de=st.sampled_from(("", "的")),
    subject=st.sampled_from(("风", "风速")),
    degree=st.sampled_from(("太", "有点", "好", "特别")),
    size=st.sampled_from(("大", "小")),
    particle=st.sampled_from(("", "了", "啊")),
)
def test_too_much_of_what_makes_no_complaint_is_a_step_back(
    able: tuple[int, Any, str, str], de: str, subject: str, degree: str, size: str, particle: str
) -> None:
    """空调的风太大了: what 把空调风速调小一点 does (it was not understood)."""
    index, _device, room, bare = able
    back = "小" if size == "大" else "大"
    _same(
        index,
        f"{room}{bare}{de}{subject}{degree}{size}{particle}",
        f"把{room}{bare}风速调{back}一点",
    )


@settings(SETTINGS, max_examples=300)
@given(
    able=_with("onoff"),
    verb=st.sampled_from(("开", "打开", "关", "关闭")),
    mark=st.sampled_from(("了", "咗")),
    asked=st.sampled_from(("吗", "么", "没有", "没", "未")),
    lead=st.sampled_from(("", "你", "请问")),
)
def test_a_switching_verb_done_and_asked_first_asks_and_orders_nothing(
    able: tuple[int, Any, str, str], verb: str, mark: str, asked: str, lead: str
) -> None:
    """开了空调吗, 开咗冷气未, 关了灯没有: whether that device is on, answered about it alone;
    开了空调吗 used to switch it on."""
    index, device, room, bare = able
    outcome, sent, answered = _turn(index, f"{lead}{verb}{mark}{room}{bare}{asked}")
    assert (outcome, sent, {d for d, _ in answered}) == ("answered", [], {device.id}), (
        lead + verb + mark + room + bare + asked
    )


@settings(SETTINGS, max_examples=200)
@given(
    scene=st.sampled_from(_DEMO.home.scenes),
    end=st.sampled_from(SCENE_ENDS),
    verb=st.sampled_from(("执行", "启动", "打开", "开启", "切换到")),
    data=st.data(),
)
def test_a_scene_said_with_any_word_for_scene_is_that_scene(
    scene: Any, end: str, verb: str, data: st.DataObject
) -> None:
    """执行晚安场景, 启动睡眠情景: the scene whose name or alias is said, with any word for
    "scene" after it (they were unknown)."""
    word = data.draw(st.sampled_from((scene.name, *scene.aliases)))
    base = next((word[: -len(e)] for e in SCENE_ENDS if word.endswith(e)), word)
    meant = _demo_same(f"{verb}{base}{end}", f"{verb}{scene.name}")
    assert meant.outcome == "executed", meant.text


@settings(SETTINGS, max_examples=200)
@given(
    index=st.integers(0, len(_HOMES) - 1),
    word=st.sampled_from([w for w, a in TABLES["ATTR"].items() if a == "battery"]),
    asked=st.sampled_from(("", "多少", "还有多少", "怎么样", "够不够")),
    data=st.data(),
)
def test_a_battery_asked_never_switches_anything(
    index: int, word: str, asked: str, data: st.DataObject
) -> None:
    """门锁电量: 电量 sounds as 点亮, and was heard so (it asked to unlock the lock)."""
    _device, room, bare = data.draw(st.sampled_from(_devices(_engine(index).home, lambda d: True)))
    outcome, sent, _answered = _turn(index, f"{room}{bare}{word}{asked}")
    assert sent == [] and outcome != "confirm", (room + bare + word + asked, outcome)


@settings(SETTINGS, max_examples=200)
@given(
    able=_with("volume"),
    de=st.sampled_from(("", "的")),
    subject=st.sampled_from(("声音", "音量")),
    degree=st.sampled_from(("太", "有点", "好")),
    particle=st.sampled_from(("", "了", "啊")),
)
def test_too_little_volume_is_a_step_up(
    able: tuple[int, Any, str, str], de: str, subject: str, degree: str, particle: str
) -> None:
    """电视声音太小了: what 把电视音量调大一点 does (too loud is a complaint; too quiet was
    not understood)."""
    index, _device, room, bare = able
    _same(index, f"{room}{bare}{de}{subject}{degree}小{particle}", f"把{room}{bare}音量调大一点")


@settings(SETTINGS, max_examples=200)
@given(
    room=_SPEAKER_ROOMS,
    complaint=st.sampled_from(("太热了", "好黑", "太干了", "有点冷", "太吵了")),
    command=st.sampled_from(("开空调", "开灯", "把灯关了", "打开加湿器", "关电视")),
)
def test_a_complaint_run_into_a_command_is_two_clauses(
    room: Any, complaint: str, command: str
) -> None:
    """太热了开空调: what 太热了，开空调 does (it was refused as a verb with nothing to act on)."""
    _demo_same(f"{complaint}{command}", f"{complaint}，{command}", room.id)


_LIGHTS_BY_BARE = [
    (d, _DEMO.home.bare_name(d))
    for d in _DEMO.home.devices
    if d.type == "Light" and _DEMO.home.bare_name(d) not in (None, "灯")
]


@settings(SETTINGS, max_examples=100)
@given(
    light=st.sampled_from(_LIGHTS_BY_BARE),
    form=st.sampled_from(("关闭{room}除了{bare}的灯", "把{room}除了{bare}以外的灯关了")),
)
def test_a_device_taken_out_of_a_kind_leaves_that_kind(light: Any, form: str) -> None:
    """关闭书房除了台灯的灯: the room's other lights, never its other devices (a narrowing of
    the excluded noun to a place had made it every device of the room)."""
    device, bare = light
    room = _DEMO.home.room(device.room)
    said = _DEMO.fresh().turn(form.format(room=room.name, bare=bare))
    sent = {c["device"] for c in said.commands}
    assert device.id not in sent, said.text
    assert all(_DEMO.home.device(d).serves_as("Light") for d in sent), (said.text, sent)


@settings(SETTINGS, max_examples=300)
@given(
    able=_with("volume"),
    verb=st.sampled_from(("", *LOUDNESS_VERBS)),
    size=st.sampled_from(("大", "小")),
    bit=st.sampled_from(LOUDNESS_BITS),
    ba=st.booleans(),
)
def test_a_loudness_said_around_its_bit_is_a_step(
    able: tuple[int, Any, str, str], verb: str, size: str, bit: str, ba: bool
) -> None:
    """电视小点声, 调大一点声, 把音箱整小点声: what 把…音量调小一点 does (they were unknown)."""
    index, _device, room, bare = able
    said = f"{'把' if ba and verb else ''}{room}{bare}{verb}{size}{bit}声"
    _same(index, said, f"把{room}{bare}音量调{size}一点")
