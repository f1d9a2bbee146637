"""`jiayu parse`: show a grammar author how an utterance compiles, or where it stops."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from lark import Token as LarkToken
from lark.exceptions import UnexpectedInput

from jiayu.compiler.lexicon import FILLER
from jiayu.compiler.parse import compile_text, parser
from jiayu.ir import NoParse, to_json

if TYPE_CHECKING:
    from jiayu.engine import Engine


def explain(text: str, engine: Engine) -> str:
    """Tokens with how each matched, the parse tree, the IR, the compact form, the confidence."""
    compiled = compile_text(text, engine.lexicon)
    lines = [f"text        {compiled.text}", "tokens"]
    for t in compiled.tokens:
        shown = t.said if t.said == t.text else f"{t.said} → {t.text}"
        lines.append(
            f"  {t.start:>3}  {t.kind:<12} {shown:<12} {t.match}"
            + (f"  {t.value!r}" if t.value is not None and t.kind != FILLER else "")
        )
    words = [t for t in compiled.tokens if t.kind != FILLER]
    if words:
        try:
            tree = parser().parse(
                [LarkToken(t.kind, t.text, start_pos=i) for i, t in enumerate(words)]
            )
            lines += ["tree", tree.pretty("  ").rstrip()]
        except UnexpectedInput:
            pass
    if isinstance(compiled, NoParse):
        lines += [
            f"no parse    {compiled.reason} at {compiled.position}: {compiled.detail}",
            "            " + compiled.text,
            "            " + " " * compiled.position + "^",
        ]
        return "\n".join(lines)
    result = engine.fresh().turn(text)
    lines += [
        "ir",
        json.dumps(to_json(compiled), ensure_ascii=False, indent=2),
        f"compact     {json.dumps(result.compact, ensure_ascii=False)}",
        f"confidence  {compiled.confidence}",
    ]
    return "\n".join(lines)
