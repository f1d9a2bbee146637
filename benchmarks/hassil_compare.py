"""jiayu side by side with Home Assistant's own matcher: hassil + home-assistant-intents.

Needs the optional dependency group: `uv run --group bench python benchmarks/bench.py`.

- The home: the demo home expressed as hassil's slot lists, the way Home Assistant builds
  them (`area` and `floor` from rooms and floors with their aliases, `name` from every device
  name and alias with its Home Assistant domain as context).
- The intents: the `zh-CN` data that the installed home-assistant-intents ships.
- The sentences: made from the demo home's names in the phrasings both sides document; only
  those that hassil matches *and* jiayu understands (executed or answered) are compared.
- The match: `hassil.recognize_best`, as Home Assistant's default agent calls it.

This module imports no part of jiayu: its cold-start child must load hassil alone.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
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


class Hassil:
    """hassil's matcher on one home: intents, slot lists, and `match(text)`."""

    def __init__(self, home: dict[str, Any]) -> None:
        from hassil import Intents
        from hassil.intents import SlotList, TextSlotList
        from home_assistant_intents import get_intents

        data = get_intents(LANGUAGE)
        if data is None:
            raise RuntimeError(f"home-assistant-intents ships no {LANGUAGE} data")
        self.intents = Intents.from_dict(data)
        self.skip_words = list(data.get("skip_words", ()))
        areas = [(w, r["id"]) for r in home["rooms"] for w in (r["name"], *r.get("aliases", ()))]
        floors = [
            (w, f["id"]) for f in home.get("floors", ()) for w in (f["name"], *f.get("aliases", ()))
        ]
        names = [
            (w, d["id"], {"domain": DOMAINS[d["type"]]})
            for d in home["devices"]
            if d["type"] in DOMAINS
            for w in (d["name"], *d.get("aliases", ()))
        ]
        self.slot_lists: dict[str, SlotList] = {
            "area": TextSlotList.from_tuples(areas, allow_template=False),
            "floor": TextSlotList.from_tuples(floors, allow_template=False),
            "name": TextSlotList.from_tuples(names, allow_template=False),
        }

    def match(self, text: str) -> Any:
        """The best recognition result, or None (Home Assistant's default agent's call)."""
        from hassil import recognize_best

        return recognize_best(
            text,
            self.intents,
            slot_lists=self.slot_lists,
            skip_words=self.skip_words,
            language=LANGUAGE,
            best_metadata_key="hass_custom_sentence",
            best_slot_name="name",
        )


def candidate_sentences(home: dict[str, Any]) -> list[str]:
    """Sentences in the phrasings both sides document, from the home's own names."""
    rooms = {r["id"]: r["name"] for r in home["rooms"]}
    out: list[str] = []
    for d in home["devices"]:
        name, room, kind = d["name"], rooms[d["room"]], d["type"]
        if kind == "Light" and name == f"{room}灯":
            out += [f"打开{room}的灯", f"把{room}的灯关掉", f"把{name}的亮度调到50"]
        if "onoff" in d["capabilities"] and kind in ("Light", "SmartPlug", "Switch", "Fan"):
            out += [f"打开{name}", f"关闭{name}"]
        if kind == "AirConditioner":
            out += [f"把{name}温度调到24度"]
        if kind == "Blind" and name == f"{room}窗帘":
            out += [f"打开{room}的窗帘", f"把{room}的窗帘关上"]
        if kind in ("Television", "NetworkAudio"):
            out += [f"暂停{name}", f"把{name}静音"]
        if "temperature_sensor" in d["capabilities"] and name.startswith(room):
            out += [f"{room}温度是多少"]
    return list(dict.fromkeys(out))


def cold_child(home_path: str, text: str) -> dict[str, Any]:
    """In a fresh process: import hassil, load the zh-CN intents and the home, match once."""
    t0 = time.perf_counter()
    import hassil  # noqa: F401
    import home_assistant_intents  # noqa: F401

    t1 = time.perf_counter()
    matcher = Hassil(json.loads(Path(home_path).read_text("utf-8")))
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
