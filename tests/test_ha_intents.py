"""Home Assistant's Chinese phrasing as a floor (tests/ha_floor.py says how it is sampled and
judged): jiayu understands Assist's own zh-CN, zh-TW and zh-HK sentences on a home of ours,
never switches a device their meaning does not include, and never acts on the intents it has
no meaning for. `uv run python scripts/ha_floor.py` prints the numbers and lists the misses."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import ha_floor
import pytest

from jiayu.home import load_home

pytest.importorskip("hassil")
pytest.importorskip("home_assistant_intents")


@pytest.fixture(scope="module")
def verdicts() -> dict[str, list[ha_floor.Verdict]]:
    engine = ha_floor.engine()  # one engine per home; each sentence gets a fresh session
    return {language: ha_floor.run(language, engine) for language in ha_floor.LANGUAGES}


def _supported(verdicts: list[ha_floor.Verdict]) -> list[ha_floor.Verdict]:
    return [v for v in verdicts if not isinstance(v.expected, ha_floor.Unsupported)]


def _show(misses: list[ha_floor.Verdict]) -> str:
    return "\n".join(f"{v.sample.text} -> {v.outcome} {list(v.sent)}" for v in misses[:15])


@pytest.mark.parametrize("language", ha_floor.LANGUAGES)
def test_supported_sentences_reach_their_meaning(
    verdicts: dict[str, list[ha_floor.Verdict]], language: str
) -> None:
    supported = _supported(verdicts[language])
    kinds = Counter(v.kind for v in supported)
    share = kinds["right"] / len(supported)
    assert share >= ha_floor.FLOOR[language], f"{language}: {share:.1%} right, {dict(kinds)}"


@pytest.mark.parametrize("language", ha_floor.LANGUAGES)
def test_no_sentence_reaches_a_device_its_meaning_does_not_include(
    verdicts: dict[str, list[ha_floor.Verdict]], language: str
) -> None:
    wrong = [v for v in verdicts[language] if v.kind == "wrong-device"]
    assert not wrong, _show(wrong)


@pytest.mark.parametrize("language", ha_floor.LANGUAGES)
def test_intents_without_a_meaning_never_act(
    verdicts: dict[str, list[ha_floor.Verdict]], language: str
) -> None:
    unsupported = [v for v in verdicts[language] if isinstance(v.expected, ha_floor.Unsupported)]
    assert unsupported, "timers, weather and lists are sampled too"
    acted = [v for v in unsupported if v.kind == "acted"]
    assert not acted, _show(acted)


@pytest.mark.parametrize("language", ha_floor.LANGUAGES)
def test_the_sample_is_large_and_covers_every_supported_intent(
    verdicts: dict[str, list[ha_floor.Verdict]], language: str
) -> None:
    per_template = Counter(v.sample.template.key for v in verdicts[language])
    assert max(per_template.values()) == ha_floor.PER_TEMPLATE
    intents = {v.sample.intent for v in _supported(verdicts[language])}
    assert {"HassTurnOn", "HassTurnOff", "HassGetState", "HassLightSet"} <= intents


def test_sampling_is_seeded() -> None:
    first = [t for _, t in zip(range(40), ha_floor.templates("zh-HK"), strict=False)]
    again = [[s.text for s in ha_floor.sample_template(t)] for t in first]
    assert again == [[s.text for s in ha_floor.sample_template(t)] for t in first]


def test_the_floor_home_is_a_valid_home() -> None:
    home = load_home(ha_floor.HOME)
    ids = {d.id for d in home.devices}
    assert set(ha_floor.COVER_CLASSES) <= ids
    described: dict[str, Any] = {d.id: d.type for d in home.devices}
    assert {ha_floor.DOMAINS[t] for t in described.values() if t in ha_floor.DOMAINS} >= {
        "light",
        "switch",
        "fan",
        "climate",
        "cover",
        "media_player",
        "lock",
        "vacuum",
        "sensor",
    }


def test_a_wrong_device_is_told_apart_from_a_miss() -> None:
    """The judge itself, on the real engine: the right device is right, another is not."""
    engine = ha_floor.engine()
    template = next(
        t for t in ha_floor.templates("zh-CN") if t.intent == "HassTurnOn" and "{name}" in t.text
    )
    sample = next(s for s in ha_floor.sample_template(template) if s.device is not None)
    lamp = replace(sample, device="lamp_study", room=None, floor=None, speaker=None)
    assert ha_floor.judge(replace(lamp, text="打开书房台灯"), engine).kind == "right"
    assert ha_floor.judge(replace(lamp, text="打开客厅风扇"), engine).kind == "wrong-device"
