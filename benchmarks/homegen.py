"""Generate a realistic, valid home file (CONTRACTS.md §1) of any size, for benchmarks.

    uv run python benchmarks/homegen.py 1000 /tmp/home1000.json [--seed 0]

`generate_home(n)` returns a plain dict that `jiayu.home.parse_home` accepts: n devices
in ceil(n / 7) rooms on n // 100 + 1 floors. Rooms are named like people name them
(客厅, 主卧, 书房 …, then numbered ones such as 305房间), every device is called
"<room><bare name>" (客厅空调, 305房间台灯), some have aliases, and a few groups and scenes
tie them together. The same (n, seed) always gives the same home.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["chinese_number", "generate_home", "main"]

DEVICES_PER_ROOM = 7
"""About what a real home has (the demo home: 70 devices in 11 rooms)."""

# (id, name, aliases): named rooms come first; the rest are numbered by floor.
NAMED_ROOMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("living", "客厅", ("大厅", "起居室")),
    ("master", "主卧", ("主卧室",)),
    ("second", "次卧", ("次卧室",)),
    ("study", "书房", ()),
    ("kitchen", "厨房", ()),
    ("dining", "餐厅", ("饭厅",)),
    ("kids", "儿童房", ("小孩房",)),
    ("bath", "卫生间", ("洗手间",)),
    ("bathroom", "浴室", ()),
    ("balcony", "阳台", ()),
    ("entrance", "玄关", ("门口",)),
    ("guest", "客房", ()),
    ("elder", "老人房", ()),
    ("cloak", "衣帽间", ()),
    ("storage", "储物间", ()),
    ("theater", "影音室", ()),
    ("gym", "健身房", ()),
    ("tea", "茶室", ()),
    ("laundry", "洗衣房", ()),
    ("garage", "车库", ()),
    ("attic", "阁楼", ()),
    ("garden", "花园", ()),
)

_DIGITS = "零一二三四五六七八九"


def chinese_number(n: int) -> str:
    """1 → 一, 10 → 十, 21 → 二十一, 101 → 一百零一 (0 < n < 10000)."""
    if not 0 < n < 10000:
        raise ValueError(f"cannot name {n}")
    out: list[str] = []
    zero = False
    for unit, word in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
        digit = (n // unit) % 10
        if digit == 0:
            zero = bool(out)
            continue
        if zero:
            out.append("零")
            zero = False
        if not (unit == 10 and digit == 1 and not out):  # 十一, not 一十一
            out.append(_DIGITS[digit])
        out.append(word)
    return "".join(out)


# --- device templates --------------------------------------------------------------------

State = Callable[[random.Random], dict[str, Any]]


def _light(r: random.Random, *, color: bool, dim: bool) -> dict[str, Any]:
    state: dict[str, Any] = {"on": r.random() < 0.3}
    if dim:
        state["brightness"] = r.choice((10, 30, 50, 60, 80, 100))
    if color:
        state["color_temp"] = r.choice((2700, 3000, 3500, 4000, 4500, 5000))
    return state


def _ac(r: random.Random) -> dict[str, Any]:
    return {
        "on": r.random() < 0.2,
        "target_temperature": r.choice((24, 25, 26, 27)),
        "mode": r.choice(("cool", "cool", "heat", "auto", "dry")),
        "fan_speed": r.choice(("auto", "low", "medium", "high")),
    }


def _media(r: random.Random) -> dict[str, Any]:
    return {
        "on": r.random() < 0.3,
        "volume": r.choice((20, 25, 30, 40)),
        "muted": r.random() < 0.1,
        "playing": r.random() < 0.2,
    }


def _climate_sensor(r: random.Random) -> dict[str, Any]:
    return {
        "temperature": round(r.uniform(18.0, 31.0), 1),
        "humidity": r.randint(30, 80),
    }


# (slug, bare name, type, capabilities, acts_as, limits, state, alias suffixes, weight)
# `weight` is how often a room has one; 0 means only where a room kind asks for it.
Template = tuple[
    str, str, str, tuple[str, ...], tuple[str, ...], dict[str, Any], State, tuple[str, ...], int
]
TEMPLATES: tuple[Template, ...] = (
    (
        "light",
        "灯",
        "Light",
        ("onoff", "brightness", "color_temp"),
        (),
        {},
        lambda r: _light(r, color=True, dim=True),
        ("主灯", "大灯"),
        0,
    ),
    (
        "ac",
        "空调",
        "AirConditioner",
        ("onoff", "target_temperature", "hvac_mode", "fan_speed"),
        (),
        {"target_temperature": {"min": 16, "max": 30}},
        _ac,
        ("冷气",),
        10,
    ),
    (
        "curtain",
        "窗帘",
        "Blind",
        ("cover",),
        (),
        {},
        lambda r: {"position": r.choice((0, 0, 50, 100))},
        ("布帘",),
        9,
    ),
    ("plug", "插座", "SmartPlug", ("onoff",), (), {}, lambda r: {"on": r.random() < 0.5}, (), 9),
    (
        "ceiling",
        "吊灯",
        "Light",
        ("onoff", "brightness", "color_temp"),
        (),
        {},
        lambda r: _light(r, color=True, dim=True),
        (),
        6,
    ),
    (
        "sensor",
        "温湿度计",
        "Sensor",
        ("temperature_sensor", "humidity_sensor"),
        (),
        {},
        _climate_sensor,
        ("温度计",),
        6,
    ),
    (
        "lamp",
        "台灯",
        "Light",
        ("onoff", "brightness", "color_temp"),
        (),
        {"color_temp": {"min": 3000, "max": 5700}},
        lambda r: {"on": False, "brightness": r.choice((50, 80)), "color_temp": 4000},
        (),
        5,
    ),
    ("speaker", "音箱", "NetworkAudio", ("onoff", "volume", "media"), (), {}, _media, ("音响",), 5),
    (
        "strip",
        "灯带",
        "Light",
        ("onoff", "brightness", "color_temp"),
        (),
        {},
        lambda r: _light(r, color=True, dim=True),
        (),
        4,
    ),
    (
        "downlight",
        "筒灯",
        "Light",
        ("onoff",),
        (),
        {},
        lambda r: _light(r, color=False, dim=False),
        (),
        4,
    ),
    (
        "bedside",
        "床头灯",
        "Light",
        ("onoff", "brightness"),
        (),
        {"brightness": {"min": 1, "max": 60}},
        lambda r: {"on": False, "brightness": r.choice((10, 20, 30))},
        (),
        4,
    ),
    ("tv", "电视", "Television", ("onoff", "volume", "media"), (), {}, _media, ("电视机",), 3),
    (
        "sheer",
        "纱帘",
        "Blind",
        ("cover",),
        (),
        {},
        lambda r: {"position": r.choice((0, 100))},
        (),
        3,
    ),
    (
        "fan",
        "风扇",
        "Fan",
        ("onoff", "fan_speed"),
        (),
        {},
        lambda r: {"on": False, "fan_speed": r.choice(("low", "medium", "high"))},
        ("电扇",),
        3,
    ),
    (
        "floorlamp",
        "落地灯插座",
        "SmartPlug",
        ("onoff",),
        ("Light",),
        {},
        lambda r: {"on": False},
        ("落地灯",),
        3,
    ),
    (
        "purifier",
        "净化器",
        "Purifier",
        ("onoff", "fan_speed"),
        (),
        {},
        lambda r: {"on": r.random() < 0.5, "fan_speed": "auto"},
        ("空气净化器",),
        2,
    ),
    ("humidifier", "加湿器", "Humidifier", ("onoff",), (), {}, lambda r: {"on": False}, (), 2),
    (
        "lux",
        "光照传感器",
        "Sensor",
        ("illuminance_sensor",),
        (),
        {},
        lambda r: {"illuminance": r.randint(0, 800)},
        (),
        2,
    ),
    ("switch", "开关", "Switch", ("onoff",), (), {}, lambda r: {"on": r.random() < 0.5}, (), 2),
    ("heater", "取暖器", "Heater", ("onoff",), (), {}, lambda r: {"on": False}, ("暖风机",), 1),
    ("charger", "充电器", "Charger", ("onoff",), (), {}, lambda r: {"on": False}, (), 1),
    ("exhaust", "排气扇", "Fan", ("onoff",), (), {}, lambda r: {"on": False}, ("换气扇",), 1),
    ("diffuser", "香薰机", "Unknown", ("onoff",), (), {}, lambda r: {"on": False}, (), 1),
    ("lock", "门锁", "Lock", ("lock",), (), {}, lambda r: {"locked": True}, (), 0),
    ("valve", "水阀", "Valve", ("valve",), (), {}, lambda r: {"open": True}, (), 0),
    (
        "hood",
        "油烟机",
        "Unknown",
        ("onoff", "fan_speed"),
        (),
        {},
        lambda r: {"on": False, "fan_speed": "high"},
        ("抽油烟机",),
        0,
    ),
    ("washer", "洗衣机", "Washer", ("onoff",), (), {}, lambda r: {"on": False}, (), 0),
    (
        "mirror",
        "镜前灯",
        "Light",
        ("onoff",),
        (),
        {},
        lambda r: _light(r, color=False, dim=False),
        (),
        0,
    ),
)
_BY_SLUG = {t[0]: t for t in TEMPLATES}
# What a named room has before its random extras (after its main light).
_ROOM_KIND_FIRST: dict[str, tuple[str, ...]] = {
    "kitchen": ("hood", "valve"),
    "entrance": ("lock",),
    "laundry": ("washer",),
    "bath": ("mirror", "exhaust"),
    "bathroom": ("heater", "exhaust"),
    "garage": ("lock",),
}
_PERSONAL_NAMES = ("老伙计", "大白", "小黄", "阿福", "小蓝", "团子", "豆豆", "旺财")


def _room_devices(room_id: str, count: int, r: random.Random) -> list[Template]:
    """`count` templates for one room: its main light, its kind's devices, then weighted picks."""
    chosen = [_BY_SLUG["light"]]
    chosen += [_BY_SLUG[s] for s in _ROOM_KIND_FIRST.get(room_id, ())]
    pool = [t for t in TEMPLATES if t[8] > 0 and t not in chosen]
    while len(chosen) < count and pool:
        pick = r.choices(pool, weights=[t[8] for t in pool])[0]
        pool.remove(pick)
        chosen.append(pick)
    # More devices than templates: repeat the main ones with a number (二号灯, 三号灯 …).
    extra = 2
    while len(chosen) < count:
        chosen.append(_BY_SLUG["light"] if extra % 2 == 0 else _BY_SLUG["plug"])
        extra += 1
    return chosen[:count]


def generate_home(devices: int, *, seed: int = 0) -> dict[str, Any]:
    """A valid home-file dict with exactly `devices` devices (>= 1)."""
    if devices < 1:
        raise ValueError("a home needs at least one device")
    r = random.Random(f"jiayu-homegen-{devices}-{seed}")
    n_floors = devices // 100 + 1
    n_rooms = max(n_floors, -(-devices // DEVICES_PER_ROOM))

    floors: list[dict[str, Any]] = []
    for f in range(1, n_floors + 1):
        floor_aliases = [f"{f}楼", f"{chinese_number(f)}层"]
        if n_floors == 2:
            floor_aliases.append("楼下" if f == 1 else "楼上")
        floors.append({"id": f"f{f}", "name": f"{chinese_number(f)}楼", "aliases": floor_aliases})

    # Rooms spread evenly over the floors, named rooms first, then 101房间, 102房间 …
    rooms: list[dict[str, Any]] = []
    per_floor = [
        n_rooms // n_floors + (1 if i < n_rooms % n_floors else 0) for i in range(n_floors)
    ]
    named = iter(NAMED_ROOMS)
    for f, count in enumerate(per_floor, 1):
        for k in range(1, count + 1):
            spec = next(named, None)
            if spec is not None:
                room_id, room_name, room_aliases = spec
                rooms.append(
                    {
                        "id": room_id,
                        "name": room_name,
                        "aliases": list(room_aliases),
                        "floor": f"f{f}",
                    }
                )
            else:
                number = f * 100 + k
                rooms.append(
                    {
                        "id": f"r{number}",
                        "name": f"{number}房间",
                        "aliases": [f"{number}号房"],
                        "floor": f"f{f}",
                    }
                )

    # Devices spread evenly over the rooms.
    per_room = [devices // n_rooms + (1 if i < devices % n_rooms else 0) for i in range(n_rooms)]
    out: list[dict[str, Any]] = []
    personal = iter(_PERSONAL_NAMES)
    by_slug: dict[str, list[str]] = {}
    for room, count in zip(rooms, per_room, strict=True):
        seen: dict[str, int] = {}
        for template in _room_devices(room["id"], count, r):
            slug, bare, kind, caps, acts_as, limits, state, alias_suffixes, _ = template
            seen[slug] = seen.get(slug, 0) + 1
            nth = seen[slug]
            if nth > 1:
                bare = f"{chinese_number(nth)}号{bare}"
            device_id = f"{slug}_{room['id']}" + (f"_{nth}" if nth > 1 else "")
            aliases: list[str] = []
            if nth == 1:
                # A room alias spells the device too (大厅空调), and some have a synonym.
                aliases += [a + bare for a in room["aliases"][:1] if r.random() < 0.5]
                aliases += [room["name"] + s for s in alias_suffixes if r.random() < 0.3]
            if r.random() < 0.02:
                nickname = next(personal, None)
                if nickname is not None:
                    aliases.append(nickname)
            device: dict[str, Any] = {
                "id": device_id,
                "name": room["name"] + bare,
                "aliases": list(dict.fromkeys(aliases)),
                "room": room["id"],
                "type": kind,
                "capabilities": list(caps),
            }
            if acts_as:
                device["acts_as"] = list(acts_as)
            if limits:
                device["limits"] = json.loads(json.dumps(limits))
            device["state"] = state(r)
            out.append(device)
            by_slug.setdefault(slug, []).append(device_id)

    groups: list[dict[str, Any]] = []
    for group_id, group_name, group_aliases, slugs in (
        ("g_read", "阅读灯", ["看书灯"], ("lamp",)),
        ("g_ambient", "氛围灯", [], ("strip", "floorlamp")),
        ("g_night", "夜灯", ["起夜灯"], ("bedside",)),
        ("g_climate", "全屋空调", [], ("ac",)),
    ):
        members = [d for s in slugs for d in by_slug.get(s, ())][:12]
        if members:
            groups.append(
                {"id": group_id, "name": group_name, "aliases": group_aliases, "members": members}
            )
    room_floor = {room["id"]: room["floor"] for room in rooms}
    lights_on: dict[str, list[str]] = {}
    for d in out:
        if d["type"] == "Light":
            lights_on.setdefault(room_floor[d["room"]], []).append(d["id"])
    for floor in floors:
        members = lights_on.get(floor["id"], [])[:20]
        if members and n_floors > 1:
            groups.append(
                {
                    "id": f"g_{floor['id']}_lights",
                    "name": f"{floor['name']}公共照明",
                    "aliases": [],
                    "members": members,
                }
            )

    scenes = []
    home_steps = [
        {"device": d, "command": "turn_on", "params": {}} for d in by_slug.get("light", ())[:3]
    ]
    home_steps += [
        {"device": d, "command": "set_temperature", "params": {"value": 26}}
        for d in by_slug.get("ac", ())[:1]
    ]
    if home_steps:
        scenes.append(
            {"id": "scene_home", "name": "回家模式", "aliases": ["我回来了"], "steps": home_steps}
        )
    away_steps = [
        {"device": d, "command": "turn_off", "params": {}}
        for s in ("light", "ceiling", "ac")
        for d in by_slug.get(s, ())[:5]
    ]
    if away_steps:
        scenes.append(
            {"id": "scene_away", "name": "离家模式", "aliases": ["我出门了"], "steps": away_steps}
        )

    return {
        "version": 1,
        "name": f"生成之家（{devices} 台设备）",
        "floors": floors,
        "rooms": rooms,
        "groups": groups,
        "scenes": scenes,
        "devices": out,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write a generated jiayu home file.")
    parser.add_argument("devices", type=int, help="number of devices")
    parser.add_argument("path", type=Path, help="where to write the JSON (- for stdout)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-check", action="store_true", help="skip parse_home validation")
    args = parser.parse_args(argv)
    data = generate_home(args.devices, seed=args.seed)
    if not args.no_check:
        from jiayu.home import parse_home

        parse_home(data, str(args.path))
    text = json.dumps(data, ensure_ascii=False, indent=1)
    if str(args.path) == "-":
        sys.stdout.write(text + "\n")
    else:
        args.path.write_text(text + "\n", encoding="utf-8")
        print(
            f"wrote {args.path}: {len(data['devices'])} devices, {len(data['rooms'])} rooms, "
            f"{len(data['floors'])} floors",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
