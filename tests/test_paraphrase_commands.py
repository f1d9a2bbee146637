"""The paraphrase space of commands that take no value: steps along a player's tracks, a
vacuum sent to clean a place, and delayed commands, composed from the morphology's classes
with the meaning known by construction; one slot replaced by an unrelated word sends nothing.

- A step: a player (its room, a link, its bare name), a verb of going or none (转, 返, 回到,
  切到, 转到, 换到, 播放), a step word (下/上, 一 or not, a classifier, what is played), in
  either order around the target, with requests and particles around it.
- A cleaning: a cleaning verb, a place (a room's name or alias after it, with 的 or 区域, or
  before it, 把 or not; 这里 in the speaker's room; 在<room> before the verb), and the cleaner
  said or not (叫/让 小白 去 …): the home's one vacuum starts cleaning, wherever the place is.
- A delay: a lead or none (等, 过, 再过, 倒计时, 倒数, 计时, 在), hours, minutes and seconds
  (个, 又, digits or words), 后 or none, then a switching command: scheduled, nothing sent now.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_paraphrase import (
    _HOMEGEN,
    _HOMES,
    _LINKS,
    SETTINGS,
    _devices,
    _engine,
    _noisy,
    _said,
    _switched_devices,
    _target,
    _wrap,
)

from jiayu.cli import demo_home_path
from jiayu.engine import Engine
from jiayu.executor.hubs import SimulatedHub
from jiayu.grammar.morphology import derived
from jiayu.grammar.vocab import TABLES
from jiayu.home import load_home
from jiayu.result import Result

# --- steps along the tracks -----------------------------------------------------------------

_STEP_WORDS = {
    action: sorted(w for w, a in TABLES["MEDIA"].items() if a == action and w[0] in "上下")
    for action in ("next_track", "previous_track")
}
_GOING = (
    *TABLES["STEPV"],
    *(w for w in derived()["SET"] if w.startswith(("切", "转", "换")) and w.endswith("到")),
    "播放",
    "跳到",
)


@st.composite
def _step(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, tuple[str, str]]:
    """A step along a player's tracks: (home, text, (device, command))."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_devices(home, lambda d: "media" in d.capabilities)))
    action = draw(st.sampled_from(sorted(_STEP_WORDS)))
    step = draw(st.sampled_from(_STEP_WORDS[action]))
    verb = draw(st.sampled_from(("", *_GOING)))
    link = draw(st.sampled_from(_LINKS))
    parts = {"bare": bare, "step": step, **({"verb": verb} if verb else {})}
    said, slot, noise = _noisy(draw, unrelated, parts, ("wrapper", "tail"))
    target = _target(room, link, device, said["bare"])
    verb, step = said.get("verb", ""), said["step"]
    if verb and draw(st.booleans()):
        command = verb + target + draw(st.sampled_from(("", "的"))) + step  # 切到客厅音箱的下一首
    else:
        command = target + verb + step  # 客厅音箱转到下一首
    text = _wrap(draw, command)
    text = noise + text if slot == "wrapper" else text + noise if slot == "tail" else text
    return index, text, (device.id, action)


@settings(SETTINGS, max_examples=500)
@given(_step())
def test_a_composed_step_along_the_tracks_is_that_step(case: tuple[int, str, Any]) -> None:
    index, text, (device, command) = case
    assert _said(_engine(index), text) == ("executed", [(device, command, {})]), text


# --- a vacuum sent to clean a place ---------------------------------------------------------

_CLEANING = sorted(
    w for w, a in TABLES["MEDIA"].items() if a == "clean" and "地" not in w and "卫生" not in w
)
_CLEANERS = ("", "扫地机器人", "小白", "扫拖机器人")
# 用 (用小白打扫客厅) is left to the corpus: after a request's 我 (帮我用…) the lexer may read
# 我用 as a preference's opening, a tie of two segmentations it does not yet break.
_ASKING = ("", "叫", "让")


@cache
def _demo() -> Engine:
    return Engine(load_home(demo_home_path()))


@st.composite
def _cleaning(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[str, str | None]:
    """A place to clean, with or without the cleaner said: (text, the speaker's room)."""
    home = _demo().home
    room = draw(st.sampled_from(home.rooms))
    place = draw(st.sampled_from((room.name, *room.aliases)))
    verb = draw(st.sampled_from(_CLEANING))
    form = draw(st.sampled_from(("place after", "place before", "这里", "在 before")))
    # A place before the verb or 在<room> opens the clause: the cleaner is said only after a
    # cleaning verb's place or before 这里.
    before = form in ("place before", "在 before")
    cleaner = "" if before else draw(st.sampled_from(_CLEANERS))
    parts = {"verb": verb, "place": place, **({"cleaner": cleaner} if cleaner else {})}
    said, slot, noise = _noisy(draw, unrelated, parts, ("wrapper", "tail"))
    verb, place = said["verb"], said["place"]
    if cleaner:
        cleaner = draw(st.sampled_from(_ASKING)) + said["cleaner"]
        cleaner += draw(st.sampled_from(("", "去")))
    area = None
    if form == "place after":
        command = cleaner + verb + place + draw(st.sampled_from(("", "的", "区域", "的区域")))
    elif form == "这里" and slot != "place":
        area = room.id
        command = cleaner + verb + draw(st.sampled_from(("这里", "这个房间", "呢度")))
    elif form == "place before":
        command = draw(st.sampled_from(("", "把"))) + place + verb  # 把书房打扫一下
    else:
        command = draw(st.sampled_from(("在", "喺"))) + place + verb
    text = _wrap(draw, command)
    text = noise + text if slot == "wrapper" else text + noise if slot == "tail" else text
    return text, area


def _cleaned(text: str, area: str | None) -> tuple[str, list[tuple[str, str]]]:
    result = _demo().fresh(hub=SimulatedHub(_demo().home, {})).turn(text, "clean", area=area)
    return result.outcome, [(c["device"], c["command"]) for c in result.commands]


@settings(SETTINGS, max_examples=400)
@given(_cleaning())
def test_a_place_said_with_a_cleaning_verb_is_where_the_vacuum_cleans(
    case: tuple[str, str | None],
) -> None:
    text, area = case
    assert _cleaned(text, area) == ("executed", [("vacuum_living", "start_cleaning")]), text


# --- delayed commands -----------------------------------------------------------------------

_LEADS = ("", "等", "过", "再过", "倒计时", "倒数", "计时", "在")
_AFTER = ("", "后", "之后", "以后")
_UNITS = ((3600, ("小时", "个小时", "个钟头")), (60, ("分钟", "分")), (1, ("秒", "秒钟")))


@st.composite
def _delayed(draw: st.DrawFn, *, unrelated: bool = False) -> tuple[int, str, Any]:
    """A switching command after a delay: (home, text, (device, command, seconds))."""
    index = draw(st.integers(0, len(_HOMES) - 1))
    home = _engine(index).home
    device, room, bare = draw(st.sampled_from(_switched_devices(home)))
    amounts = [draw(st.integers(0, 12)), draw(st.integers(0, 59)), draw(st.integers(0, 59))]
    if not any(amounts):
        amounts[1] = 1
    duration = ""
    seconds = 0
    for amount, (unit, words) in zip(amounts, _UNITS, strict=True):
        if amount:
            number = draw(st.sampled_from((str(amount), _HOMEGEN.chinese_number(amount))))
            joined = draw(st.sampled_from(("", "又"))) if duration else ""
            duration += joined + number + draw(st.sampled_from(words))
            seconds += amount * unit
    on = draw(st.booleans())
    verb = draw(st.sampled_from(("打开", "开启", "开一下") if on else ("关掉", "关闭", "关上")))
    lead = draw(st.sampled_from(_LEADS))
    parts = {"verb": verb, "bare": bare, **({"lead": lead} if lead else {})}
    said, slot, noise = _noisy(draw, unrelated, parts, ("tail",))
    target = _target(room, draw(st.sampled_from(_LINKS)), device, said["bare"])
    text = said.get("lead", "") + duration + draw(st.sampled_from(_AFTER)) + said["verb"] + target
    text = text + noise if slot == "tail" else text
    return index, text, (device.id, "turn_on" if on else "turn_off", seconds)


def _scheduled(engine: Engine, text: str) -> Result:
    return engine.fresh(hub=SimulatedHub(engine.home, {})).turn(text, "later")


@settings(SETTINGS, max_examples=400)
@given(_delayed())
def test_a_composed_delay_before_a_command_schedules_it(case: tuple[int, str, Any]) -> None:
    index, text, (device, command, seconds) = case
    before = datetime.now().astimezone()
    result = _scheduled(_engine(index), text)
    assert result.outcome == "scheduled" and result.commands == [], text
    (entry,) = result.scheduled
    assert [(c["device"], c["command"]) for c in entry["commands"]] == [(device, command)], text
    at = datetime.fromisoformat(entry["at"])
    assert abs(at - before - timedelta(seconds=seconds)) < timedelta(seconds=90), text


# --- fail closed ----------------------------------------------------------------------------


@settings(SETTINGS, max_examples=600)
@given(st.one_of(_step(unrelated=True), _delayed(unrelated=True)))
def test_one_unrelated_word_in_a_step_or_a_delay_sends_nothing(case: tuple[int, str, Any]) -> None:
    index, text, _meant = case
    result = _scheduled(_engine(index), text)
    assert result.commands == [] and result.outcome != "scheduled", (text, result.outcome)


@settings(SETTINGS, max_examples=300)
@given(_cleaning(unrelated=True))
def test_one_unrelated_word_in_a_cleaning_sends_nothing(case: tuple[str, str | None]) -> None:
    text, area = case
    assert _cleaned(text, area)[1] == [], text
