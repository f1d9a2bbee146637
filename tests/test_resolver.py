"""Unit tests of the resolver: the name rule, the set rule, exclusions, capabilities, asking."""

from __future__ import annotations

from jiayu.compiler import compile_text
from jiayu.engine import Engine
from jiayu.ir import Parse
from jiayu.resolver.resolve import Ask, Found, Refuse, Resolution
from jiayu.resolver.session import Session


def _resolve(engine: Engine, text: str, session: Session | None = None) -> Resolution:
    parsed = compile_text(text, engine.lexicon)
    assert isinstance(parsed, Parse), parsed
    return engine.resolver.resolve(parsed.clauses[0], session or Session("t"))


def test_a_place_and_type_word_that_spell_a_name_mean_that_device(engine: Engine) -> None:
    assert _resolve(engine, "打开客厅的灯") == Found(("light_living",), "exact")


def test_a_room_alias_with_a_bare_name_means_that_rooms_device(engine: Engine) -> None:
    found = _resolve(engine, "打开洗手间的灯")
    assert isinstance(found, Found) and found.devices == ("light_bathroom1",)


def test_a_bare_name_shared_by_two_rooms_asks_room_first(engine: Engine) -> None:
    asked = _resolve(engine, "打开台灯")
    assert asked == Ask(("lamp_study", "lamp_bedroom"), "书房还是卧室的台灯？")


def test_several_places_and_a_type_word_are_a_set(engine: Engine) -> None:
    found = _resolve(engine, "打开客厅和卧室的灯")
    assert isinstance(found, Found)
    assert set(found.devices) == {
        "light_living",
        "light_living_ceiling",
        "strip_living",
        "lamp_living_old",
        "plug_living_lamp",
        "light_bedroom",
        "lamp_bedroom",
    }


def test_a_type_word_set_includes_devices_acting_as_that_type(engine: Engine) -> None:
    found = _resolve(engine, "打开所有的灯")
    assert isinstance(found, Found) and "plug_living_lamp" in found.devices


def test_an_exclusion_is_exact_set_difference(engine: Engine) -> None:
    all_lights = _resolve(engine, "打开所有的灯")
    but_bedroom = _resolve(engine, "打开除卧室以外所有的灯")
    assert isinstance(all_lights, Found) and isinstance(but_bedroom, Found)
    assert set(all_lights.devices) - set(but_bedroom.devices) == {"light_bedroom", "lamp_bedroom"}


def test_a_floor_is_the_union_of_its_rooms(engine: Engine) -> None:
    found = _resolve(engine, "关掉楼上的窗帘")
    assert isinstance(found, Found)
    assert set(found.devices) == {"curtain_master", "curtain_bedroom", "curtain_kids"}


def test_a_group_inside_a_room_is_their_intersection(engine: Engine) -> None:
    found = _resolve(engine, "关掉主卧的氛围灯")
    assert isinstance(found, Found)
    assert set(found.devices) == {"strip_master", "light_master_bedside"}


def test_a_set_drops_devices_that_cannot_do_the_action(engine: Engine) -> None:
    found = _resolve(engine, "把客厅的设备都调到50")
    assert isinstance(found, Found)
    assert "lamp_living_old" not in found.devices  # on/off only: no brightness
    assert "light_living" in found.devices


def test_a_named_device_that_cannot_do_the_action_is_refused(engine: Engine) -> None:
    refused = _resolve(engine, "把大白调到26度")
    assert isinstance(refused, Refuse) and "大白" in refused.reason


def test_a_count_that_does_not_match_the_set_asks_how_many(engine: Engine) -> None:
    asked = _resolve(engine, "关掉三个插座")
    assert isinstance(asked, Ask)
    assert asked.question == "找到 7 个插座，要关闭哪三个？"


def test_a_count_that_matches_the_set_is_the_set(engine: Engine) -> None:
    found = _resolve(engine, "关掉卧室的两盏灯")
    assert found == Found(("light_bedroom", "lamp_bedroom"))


def test_nothing_found_is_refused_naming_what_was_sought(engine: Engine) -> None:
    refused = _resolve(engine, "打开厨房的窗帘")
    assert isinstance(refused, Refuse) and "厨房" in refused.reason and "窗帘" in refused.reason


def test_a_recent_device_settles_an_ambiguous_mention(engine: Engine) -> None:
    session = Session("t")
    session.recent_devices.appendleft("ac_kids")
    found = _resolve(engine, "空调调到25度", session)
    assert isinstance(found, Found) and found.devices == ("ac_kids",)


def test_a_reference_with_no_history_asks(engine: Engine) -> None:
    asked = _resolve(engine, "把它关掉")
    assert isinstance(asked, Ask) and asked.options == ()


def test_a_misheard_name_is_found_by_fuzzy_matching(engine: Engine) -> None:
    names = engine.names.fuzzy("客厅落地灯插头")
    assert names and names[0][1].devices == ("plug_living_lamp",)
    assert names[0][1].kind == "fuzzy"


def test_a_name_index_keys_heteronyms_on_the_homes_side() -> None:
    from jiayu.compiler.pinyin import name_keys

    # 重 reads zhong or chong; either reading of the name must be findable.
    keys = name_keys("重灯")
    assert any(k.startswith("chong") for k in keys)
    assert any(k.startswith("zhong") for k in keys)


def test_more_than_four_candidates_ask_for_the_room_not_every_name(engine: Engine) -> None:
    asked = engine.turn("打开灯")
    assert asked.outcome == "clarify"
    assert asked.reply == "找到 11 个灯，要打开哪个房间的？还是全部？"
    assert len(asked.options) == 11


def test_an_answer_naming_a_count_that_does_not_fit_asks_again(engine: Engine) -> None:
    engine.turn("打开灯")
    assert engine.turn("两个都开").outcome == "clarify"
    assert len(engine.turn("都要").commands) == 11


def test_an_answer_naming_several_rooms_picks_each(engine: Engine) -> None:
    engine.turn("打开灯")
    both = engine.turn("客厅和卧室的")
    assert sorted(c["device"] for c in both.commands) == ["light_bedroom", "light_living"]
