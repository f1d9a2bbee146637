"""Numbers said in Arabic digits or Chinese numerals (二十六, 两, 四千五, 26.5, 二十六点五)."""

from __future__ import annotations

from jiayu.grammar.vocab import DIGITS, UNITS

_NUMERAL_CHARS = frozenset(DIGITS) | frozenset(UNITS)
_ASCII_DIGITS = frozenset("0123456789")
NUMBER_START = _NUMERAL_CHARS | _ASCII_DIGITS
"""Characters a number can start with: a cheap test before scanning."""


MAX_DIGITS = 9
"""Longer numbers mean nothing to a home (and 1e400 is infinity): they are not numbers."""


def scan_number(text: str, start: int) -> tuple[int, float] | None:
    """The longest number starting at `start`: (end, value), or None."""
    found = _scan(text, start)
    if found is None or found[0] - start > MAX_DIGITS * 2 or not found[1] < 10**MAX_DIGITS:
        return None
    return found


def _scan(text: str, start: int) -> tuple[int, float] | None:
    end = start
    n = len(text)
    if end < n and text[end] in _ASCII_DIGITS:
        while end < n and text[end] in _ASCII_DIGITS:
            end += 1
        if end + 1 < n and text[end] == "." and text[end + 1] in _ASCII_DIGITS:
            end += 1
            while end < n and text[end] in _ASCII_DIGITS:
                end += 1
        return end, float(text[start:end])
    while end < n and text[end] in _NUMERAL_CHARS:
        end += 1
    if end == start:
        return None
    value = chinese_integer(text[start:end])
    if value is None:
        return None
    # 二十六点五: a decimal part is read digit by digit.
    if end + 1 < n and text[end] == "点" and text[end + 1] in DIGITS:
        frac_end = end + 1
        while frac_end < n and text[frac_end] in DIGITS:
            frac_end += 1
        digits = "".join(str(DIGITS[c]) for c in text[end + 1 : frac_end])
        return frac_end, float(f"{int(value)}.{digits}")
    return end, float(value)


def chinese_integer(numeral: str) -> int | None:
    """二十六 → 26, 四千五 → 4500, 一二 → 12 (digit by digit); None if malformed."""
    if all(c in DIGITS for c in numeral):
        if len(numeral) == 1:
            return DIGITS[numeral]
        return int("".join(str(DIGITS[c]) for c in numeral))
    total = 0
    section = 0
    digit: int | None = None
    last_unit = 10**9
    for c in numeral:
        if c in DIGITS:
            if digit is not None:
                return None
            digit = DIGITS[c]
            continue
        unit = UNITS[c]
        if unit == 10000:
            section = (section + (digit or 0)) * unit
            total += section
            section, digit, last_unit = 0, None, 10**9
            continue
        if unit >= last_unit:
            return None
        section += (1 if digit is None else digit) * unit
        digit, last_unit = None, unit
    if digit is not None:
        # 四千五 means 4500: a trailing digit is one step below the last unit.
        section += digit * (last_unit // 10 if last_unit < 10**9 and last_unit >= 100 else 1)
    return total + section
