"""Words out: every word a reply is made of, as data (`vocab.py` holds the words in).

Replies are built from these keys and the values a turn found; no code searches a reply
for meaning.
"""

from __future__ import annotations

_ATTRIBUTE_WORDS = {
    "brightness": "亮度",
    "color_temp": "色温",
    "target_temperature": "温度",
    "mode": "模式",
    "fan_speed": "风速",
    "position": "开合度",
    "volume": "音量",
    "temperature": "温度",
    "humidity": "湿度",
    "illuminance": "光照",
    "on": "开关状态",
    "locked": "锁定状态",
    "open": "阀门状态",
}


def attribute_word(attribute: str) -> str:
    """The Chinese word for a state attribute, for replies."""
    return _ATTRIBUTE_WORDS.get(attribute, attribute)
