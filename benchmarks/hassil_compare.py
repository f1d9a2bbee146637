"""jiayu side by side with Home Assistant's own matcher: hassil + home-assistant-intents,
run the way Home Assistant's default conversation agent runs it.

Needs the optional dependency group: `uv run --group bench python benchmarks/bench.py`.

How Home Assistant runs hassil (homeassistant/components/conversation/default_agent.py,
`_make_slot_lists`, `_get_entity_name_tuples`, `async_recognize_intent`, `_recognize_strict`),
copied here step by step:

- `name`: every exposed entity as (alias, alias, context) for each alias, then (name, name,
  context); the context is {"domain": its domain} plus the `device_class` attribute when it
  has one. The value is the name itself, not an entity id (HA resolves names later).
- The name trie: every name of that list, stripped and lower-cased, in a `hassil.trie.Trie`.
  For each sentence HA replaces the `name` list with only the names the trie finds in the
  sentence (`trie.find(text.strip().lower())`): a sentence is matched against a handful of
  names, never the whole home.
- `area`: (area name, area name) and (alias, alias) for each alias; `floor`: (floor name,
  floor name) and (alias, floor name).
- The match: `recognize_best(text, intents, slot_lists=..., intent_context=None,
  language=..., best_metadata_key="hass_custom_sentence", best_slot_name="name")`, with the
  intents' own skip words (HA passes none of its own). That is HA's first, strict stage; the
  later stages (unexposed names, fuzzy) run only when it fails, and every sentence compared
  here passes it.
- Not run: HA's `IntentCache` (an LRU of 128 recognition results keyed by the text). For a
  repeated sentence HA does not run hassil again; the benchmark reports that path on its own
  row (`hassil behind HA's IntentCache`) and does not use it for the ratios, which compare
  hassil's match with jiayu's whole turn as the issue asks.

Our homes become what HA would hold: each device one exposed entity in the domain of its type
(DOMAINS; a type with no counterpart is left out), rooms as areas, floors as floors.

This module imports no part of jiayu: its cold-start child must load hassil alone.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from coldstart import peak_rss_mib  # the same reading as jiayu's child; imports no jiayu

LANGUAGE = "zh-CN"

# Home Assistant domains for our device types (what a zh-CN sentence's requires_context
# checks); a type with no counterpart is left out of the name list.
DOMAINS = {
    "Light": "light",
    "SmartPlug": "switch",
    "Switch": "switch",
    "Charger": "switch",
    "Washer": "switch",
    "AirConditioner": "climate",
    "Heater": "climate",
    "Blind": "cover",
    "Fan": "fan",
    "Purifier": "fan",
    "Television": "media_player",
    "NetworkAudio": "media_player",
    "Lock": "lock",
    "Valve": "valve",
    "Humidifier": "humidifier",
    "Sensor": "sensor",
}


def available() -> bool:
    """True when the bench dependency group is installed."""
    return all(importlib.util.find_spec(m) for m in ("hassil", "home_assistant_intents"))


def versions() -> str:
    from importlib.metadata import version

    return f"hassil {version('hassil')}, home-assistant-intents {version('home-assistant-intents')}"


# What HA's entities of these types carry in `device_class` (a cover that is a curtain).
DEVICE_CLASSES = {"Blind": "curtain"}


class HomeAssistantAgent:
    """hassil on one home as Home Assistant's default agent runs it (see the module text)."""

    def __init__(self, home: dict[str, Any]) -> None:
        from hassil import Intents, Trie
        from hassil.expression import TextChunk
        from hassil.intents import SlotList, TextSlotList
        from home_assistant_intents import get_intents

        data = get_intents(LANGUAGE)
        if data is None:
            raise RuntimeError(f"home-assistant-intents ships no {LANGUAGE} data")
        self.intents = Intents.from_dict(data)
        names: list[tuple[str, str, dict[str, Any]]] = []
        for d in home["devices"]:
            if d["type"] not in DOMAINS:
                continue
            context: dict[str, Any] = {"domain": DOMAINS[d["type"]]}
            if d["type"] in DEVICE_CLASSES:
                context["device_class"] = DEVICE_CLASSES[d["type"]]
            names += [(a.strip(), a.strip(), context) for a in d.get("aliases", ()) if a.strip()]
            names.append((d["name"], d["name"], context))
        areas = [(r["name"], r["name"]) for r in home["rooms"]]
        areas += [(a.strip(), a.strip()) for r in home["rooms"] for a in r.get("aliases", ())]
        floors: list[tuple[str, str]] = []
        for f in home.get("floors", ()):
            floors.append((f["name"], f["name"]))
            floors += [(a.strip(), f["name"]) for a in f.get("aliases", ()) if a.strip()]
        name_list = TextSlotList.from_tuples(names, allow_template=False)
        self.trie = Trie()
        for value in name_list.values:
            assert isinstance(value.text_in, TextChunk)
            self.trie.insert(value.text_in.text.strip().lower(), value)
        self.slot_lists: dict[str, SlotList] = {
            "area": TextSlotList.from_tuples(areas, allow_template=False),
            "name": name_list,
            "floor": TextSlotList.from_tuples(floors, allow_template=False),
        }
        self.names = {n for n, _, _ in names}
        self._cache: OrderedDict[tuple[str, str, None], Any] = OrderedDict()

    def _slot_lists(self, text: str) -> dict[str, Any]:
        """HA's per-sentence slot lists: the name list cut down to the names in the text."""
        from hassil.intents import TextSlotList

        found = [result[2] for result in self.trie.find(text.strip().lower())]
        return {**self.slot_lists, "name": TextSlotList(name="name", values=found)}

    def match(self, text: str) -> Any:
        """The recognition result, or None: HA's strict stage, as HA calls it."""
        from hassil import recognize_best

        return recognize_best(
            text,
            self.intents,
            slot_lists=self._slot_lists(text),
            intent_context=None,
            language=LANGUAGE,
            best_metadata_key="hass_custom_sentence",
            best_slot_name="name",
        )

    def match_cached(self, text: str) -> Any:
        """HA's path with its IntentCache (LRU, 128 by text, language and device id): the
        slot lists are still cut per sentence, recognition runs only on a miss."""
        lists = self._slot_lists(text)
        key = (text, LANGUAGE, None)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        result = self.match(text) if lists else None
        if len(self._cache) >= 128:
            self._cache.popitem(last=False)
        self._cache[key] = result
        return result


MIXES = ("on/off", "set value", "media", "query")


def candidate_sentences(home: dict[str, Any]) -> list[tuple[str, str]]:
    """(mix, sentence) in the phrasings both sides document, from the home's own names:
    switching, set values (brightness, temperature, volume), media and queries. Values vary,
    so there are enough different sentences to time each once as an unseen one."""
    rooms = {r["id"]: r["name"] for r in home["rooms"]}
    floors = [f["name"] for f in home.get("floors", ())]
    out: list[tuple[str, str]] = []
    for d in home["devices"]:
        name, room, kind = d["name"], rooms[d["room"]], d["type"]
        caps = d["capabilities"]
        if kind == "Light" and name == f"{room}灯":
            out += [("on/off", f"打开{room}的灯"), ("on/off", f"把{room}的灯关掉")]
            if "brightness" in caps:
                out += [("set value", f"把{name}的亮度调到{v}") for v in (30, 50, 80)]
                out += [("set value", f"把{room}的亮度调到{v}") for v in (20, 60)]
        if "onoff" in caps and kind in ("Light", "SmartPlug", "Switch", "Fan"):
            out += [("on/off", f"打开{name}"), ("on/off", f"关闭{name}")]
        if kind == "AirConditioner":
            out += [("set value", f"把{name}温度调到{t}度") for t in (22, 24, 26)]
            out += [("query", f"{name}的温度是多少")]
        if kind == "Blind" and name == f"{room}窗帘":
            out += [("on/off", f"打开{room}的窗帘"), ("on/off", f"把{room}的窗帘关上")]
        if kind in ("Television", "NetworkAudio"):
            out += [("media", f"暂停{name}"), ("media", f"把{name}静音")]
            out += [("media", f"{name}下一首"), ("media", f"继续播放{name}")]
            out += [("set value", f"把{name}的音量调到{v}") for v in (20, 40)]
        if "temperature_sensor" in caps and name.startswith(room):
            out += [("query", f"{room}温度是多少"), ("query", f"{room}现在几度")]
    for floor in floors:
        out += [("on/off", f"打开{floor}的灯"), ("on/off", f"关闭{floor}所有的灯")]
    return list(dict.fromkeys(out))


def cold_child(home_path: str, text: str) -> dict[str, Any]:
    """In a fresh process: import hassil, load the zh-CN intents and the home's slot lists
    (as HA does at its first sentence), match once."""
    t0 = time.perf_counter()
    import hassil  # noqa: F401
    import home_assistant_intents  # noqa: F401

    t1 = time.perf_counter()
    matcher = HomeAssistantAgent(json.loads(Path(home_path).read_text("utf-8")))
    t2 = time.perf_counter()
    result = matcher.match(text)
    t3 = time.perf_counter()
    return {
        "import_ms": 1000 * (t1 - t0),
        "load_ms": 1000 * (t2 - t1),
        "first_ms": 1000 * (t3 - t2),
        "total_ms": 1000 * (t3 - t0),
        "maxrss_mib": peak_rss_mib(),
        "understood": result is not None,
    }


if __name__ == "__main__":
    # The cold-start child: hassil_compare.py --child HOME TEXT
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(cold_child(sys.argv[2], sys.argv[3])))
        raise SystemExit(0)
    raise SystemExit("run benchmarks/bench.py; this module is its hassil side")
