"""Numbers said in Arabic digits or Chinese numerals (二十六, 两, 四千五, 一百零一, 26.5,
二十六点五, 零下五度), and the times of delayed commands (半小时后, 晚上十点, 明天早上七点半)."""

from __future__ import annotations

import re

from jiayu.grammar.vocab import DIGITS, TENS, UNITS
from jiayu.ir import Timing

_NUMERAL_CHARS = frozenset(DIGITS) | frozenset(UNITS) | frozenset(TENS)
_ASCII_DIGITS = frozenset("0123456789")
_NEGATIVE = ("零下", "负", "-")
_ZERO = frozenset("零〇")
_NUMERALS = _NUMERAL_CHARS | _ASCII_DIGITS
"""What an hour or a minute starts with."""
NUMBER_START = _NUMERALS | frozenset("负-")
"""Characters a number can start with: a cheap test before scanning."""


KELVIN_FLOOR = 1000
"""A value from this on is a colour temperature (2700开, 把灯设为3900): no other value a device
takes runs into the thousands."""

MAX_DIGITS = 9
"""Longer numbers mean nothing to a home (and 1e400 is infinity): they are not numbers."""
_TOO_BIG = 10**MAX_DIGITS
_NEGATIVE_START = frozenset(p[0] for p in _NEGATIVE)
# Runs of digits and of numerals, matched at once: a number is scanned for at every digit
# of one (305房间 at 3, 0 and 5), so the scan is worth making cheap.
_ASCII_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_NUMERAL_RUN = re.compile("[" + re.escape("".join(sorted(_NUMERAL_CHARS))) + "]*")


def scan_number(text: str, start: int) -> tuple[int, float] | None:
    """The longest number starting at `start`: (end, value), or None."""
    sign = 1.0
    begin = start
    if start < len(text) and text[start] in _NEGATIVE_START:
        for prefix in _NEGATIVE:
            if text.startswith(prefix, start):
                sign, begin = -1.0, start + len(prefix)
                break
    found = _scan(text, begin)
    if found is None or found[0] - begin > MAX_DIGITS * 2 or not found[1] < _TOO_BIG:
        return None
    return found[0], sign * found[1]


def _scan(text: str, start: int, *, decimals: bool = True) -> tuple[int, float] | None:
    n = len(text)
    arabic = _ASCII_NUMBER.match(text, start)
    if arabic is not None:
        return arabic.end(), float(arabic[0])
    end = _NUMERAL_RUN.match(text, start).end()  # type: ignore[union-attr]  # matches ""
    if end == start:
        return None
    value = chinese_integer(text[start:end])
    if value is None:
        return None
    # 二十六点五: a decimal part is read digit by digit (not in a clock time: 十点一刻).
    if decimals and end + 1 < n and text[end] == "点" and text[end + 1] in DIGITS:
        frac_end = end + 1
        while frac_end < n and text[frac_end] in DIGITS:
            frac_end += 1
        digits = "".join(str(DIGITS[c]) for c in text[end + 1 : frac_end])
        return frac_end, float(f"{int(value)}.{digits}")
    return end, float(value)


def _approximate(digits: str) -> bool:
    """一两, 两三, 三四, 七八: two neighbouring digits say "about", not a number read digit by
    digit (一两度 is one or two degrees, never 12); 两 is never a digit of one."""
    if "两" in digits:
        return True
    return len(digits) == 2 and DIGITS[digits[1]] == DIGITS[digits[0]] + 1


def chinese_integer(numeral: str) -> int | None:
    """二十六 → 26, 四千五 → 4500, 一百零一 → 101, 一三 → 13 (digit by digit); None if
    malformed, or two neighbouring digits (一两, 三四: about so many)."""
    if numeral[0] in TENS:  # 廿四: the tens, then at most a digit
        rest = numeral[1:]
        if rest and (len(rest) > 1 or rest not in DIGITS):
            return None
        return TENS[numeral[0]] + (DIGITS[rest] if rest else 0)
    if all(c in DIGITS for c in numeral):
        if len(numeral) == 1:
            return DIGITS[numeral]
        if _approximate(numeral):
            return None
        return int("".join(str(DIGITS[c]) for c in numeral))
    total = 0
    section = 0
    digit: int | None = None
    last_unit = 10**9
    zero = False  # 零 said after a unit: the next digit is in its own place (一百零一)
    for c in numeral:
        if c in _ZERO and digit is None and last_unit < 10**9:
            zero = True
            continue
        if c in DIGITS:
            if digit is not None:
                return None
            digit = DIGITS[c]
            continue
        unit = UNITS[c]
        if unit == 10000:
            section = (section + (digit or 0)) * unit
            total += section
            section, digit, last_unit, zero = 0, None, 10**9, False
            continue
        if unit >= last_unit:
            return None
        section += (1 if digit is None else digit) * unit
        digit, last_unit = None, unit
    if digit is not None:
        # 四千五 means 4500: a trailing digit is one step below the last unit, unless a 零
        # put it in the ones (四千零五).
        step = last_unit // 10 if 100 <= last_unit < 10**9 and not zero else 1
        section += digit * step
    return total + section


# --- times ------------------------------------------------------------------

_AFTER = ("以后", "之后", "后")
# Said before a delay, they make it one with no 后 (过十分钟关灯, 等两个小时又五分钟开空调,
# Taiwan's 倒数/计时三分钟关掉电视, 在十分钟关灯, 定时半小时关电视).
_TIMER_LEAD = "定时"
_LEADS = ("再过", "过", "等", "倒计时", "倒数", "计时", _TIMER_LEAD, "在")
# Said before a clock time, they open it wherever it stands (在十点关灯, 等到晚上七点开空调).
_CLOCK_LEADS = ("等到", "在")
# A timer set after the command (关掉电视设置五小时定时): a delay between these.
_TIMER_LEADS = ("开始", "设置", "设定", "创建", "设")
_TIMER_ENDS = ("倒计时", "计时器", "计时", "定时")
# Between the parts of a delay: 一小时和二十分钟, 一小时又二十分钟.
_JOINED = ("和", "又")
# Words of one or two characters in a time: looked up by the characters at hand (two, then
# one, so 晚上 wins over 晚 and 分钟 over 分) rather than tried one by one, as a time is
# scanned for at every character that could start one.
# Cantonese 个钟 is an hour (三个钟后); 一刻钟 a quarter of one.
_DELAY_UNITS = {
    "小时": 3600,
    "钟头": 3600,
    "钟": 3600,
    "刻钟": 900,
    "分钟": 60,
    "分": 60,
    "秒钟": 1,
    "秒": 1,
}
_DAYS = {"今天": 0, "今晚": 0, "明天": 1, "明早": 1, "明晚": 1, "后天": 2}
_PARTS = {
    "早上": 0,
    "早晨": 0,
    "上午": 0,
    "清晨": 0,
    "凌晨": 0,
    "中午": 12,
    "下午": 12,
    "傍晚": 12,
    "晚上": 13,
    "夜里": 13,
    "晚": 13,
}
_EVENING = 13  # a shift of 12 hours that also makes 十二点 midnight
_CLAUSE_BREAK = frozenset(",，。;；!！?？")
TIME_START = NUMBER_START | frozenset("半过再今明后早上清凌中下傍晚夜设开创等倒计定在")
"""Characters a time can start with: a cheap test before scanning."""
TIME_WORDS = ("小时", "钟", "分", "秒", "点", ":")
"""Every time said has one of these (a unit of a delay, or the hour of a clock)."""


def scan_time(text: str, start: int) -> tuple[int, Timing] | None:
    """A delay (半小时后, 过十分钟, 一个半小时以后) or a clock time (晚上十点, 明天早上七点半,
    21:30) starting at `start`: (end, Timing), or None."""
    return _scan_delay(text, start) or _scan_clock(text, start)


def _prefix(text: str, at: int, words: dict[str, int]) -> tuple[int, int | None]:
    for end in (at + 2, at + 1):
        if end <= len(text):
            value = words.get(text[at:end])
            if value is not None:
                return end, value
    return at, None


def _scan_delay(text: str, start: int) -> tuple[int, Timing] | None:
    at = start
    timer = False
    lead = ""  # the lead word said, if any
    for word in _LEADS:
        if text.startswith(word, at):
            at, lead = at + len(word), word
            break
    else:
        for word in _TIMER_LEADS:
            if text.startswith(word, at):
                at, timer = at + len(word), True
                break
    seconds = 0.0
    parts = 0
    while True:
        joined = at + 1 if parts and text.startswith(_JOINED, at) else at
        amount, at_amount = _amount(text, joined)
        if amount is None:
            break
        end, unit = _prefix(text, at_amount, _DELAY_UNITS)
        if unit is None:
            break
        if text.startswith("半", end):  # 一个小时半
            amount, end = amount + 0.5, end + 1
        seconds += amount * unit
        at, parts = end, parts + 1
    if parts == 0 or seconds <= 0:
        return None
    if timer:
        at += text.startswith("的", at)
        closed = next((at + len(w) for w in _TIMER_ENDS if text.startswith(w, at)), None)
        return None if closed is None else (closed, Timing(delay_s=seconds))
    for word in _AFTER:
        if text.startswith(word, at):
            return at + len(word), Timing(delay_s=seconds)
    if lead == _TIMER_LEAD and (at == len(text) or text[at] in _CLAUSE_BREAK):
        # 烤箱定时三十分钟 is the device's own timer (how long it runs), not a delay: 定时 is
        # one only before what is then done (定时半小时关电视, 空调定时一小时关).
        return None
    # A delay that opens the utterance or a clause is when what follows is done (两个小时关闭
    # 空调); said later it may be how long (关灯两小时), which is not a delay.
    opens = start == 0 or text[start - 1] in _CLAUSE_BREAK
    return (at, Timing(delay_s=seconds)) if lead or opens else None


def _amount(text: str, at: int) -> tuple[float | None, int]:
    """半 / 一个半 / 两个 / 十 before a time unit."""
    if text.startswith("半", at):
        at += 1
        return 0.5, at + 1 if text.startswith("个", at) else at
    if at >= len(text) or text[at] not in NUMBER_START or text[at] in "负-":
        return None, at
    found = _scan(text, at)
    if found is None:
        return None, at
    at, amount = found
    if text.startswith("个", at):
        at += 1
    if text.startswith("半", at):
        amount, at = amount + 0.5, at + 1
    return amount, at


def _scan_clock(text: str, start: int) -> tuple[int, Timing] | None:
    lead = next((w for w in _CLOCK_LEADS if text.startswith(w, start)), "")
    said = start + len(lead)
    at, day = _prefix(text, said, _DAYS)
    if day is not None and text[said:at] in ("今晚", "明晚"):
        shift: int | None = _EVENING
    else:
        at, shift = _prefix(text, at, _PARTS)
    if at < len(text) and text[at] in _ASCII_DIGITS and ":" in text[at : at + 3]:
        return _colon_clock(text, start, at, day, shift)
    opens = bool(lead) or start == 0 or text[start - 1] in _CLAUSE_BREAK
    if day is None and shift is None and not opens:
        return None  # 调亮两点 is an amount, not two o'clock: known before reading the number
    if at >= len(text) or text[at] not in _NUMERALS:
        return None
    found = _scan(text, at, decimals=False)
    if found is None or not text.startswith("点", found[0]):
        return None
    at, hour_said = found[0] + 1, found[1]
    if not hour_said.is_integer() or not 0 <= hour_said <= 24:
        return None
    minute, at = _minutes(text, at)
    if minute is None:
        return None
    return at, _clock(int(hour_said), minute, day, shift)


def _colon_clock(
    text: str, start: int, at: int, day: int | None, shift: int | None
) -> tuple[int, Timing] | None:
    colon = text.index(":", at)
    end = colon + 1
    while end < len(text) and end - colon <= 2 and text[end] in _ASCII_DIGITS:
        end += 1
    if end - colon != 3 or not text[at:colon].isdigit():
        return None
    hour, minute = int(text[at:colon]), int(text[colon + 1 : end])
    if hour > 24 or minute > 59:
        return None
    return end, _clock(hour, minute, day, shift)


def _minutes(text: str, at: int) -> tuple[int | None, int]:
    for word, minute in (("半", 30), ("一刻", 15), ("三刻", 45), ("整", 0), ("钟", 0)):
        if text.startswith(word, at):
            return minute, at + len(word)
    if at < len(text) and text[at] in _NUMERALS:
        found = _scan(text, at)
        if found is not None and found[1].is_integer() and 0 <= found[1] < 60:
            end = found[0] + 1 if text.startswith("分", found[0]) else found[0]
            return int(found[1]), end
        return None, at
    return 0, at


def _clock(hour: int, minute: int, day: int | None, shift: int | None) -> Timing:
    # Afternoon and evening words move 1–11 into the afternoon; 晚上十二点 is midnight.
    if shift and hour < 12:
        hour += 12
    elif shift == _EVENING and hour == 12:
        hour = 0
    return Timing(hour=hour % 24, minute=minute, day=day)
