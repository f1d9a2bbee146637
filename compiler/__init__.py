"""From text to IR: normalise, lex, parse, build; confidence and the compact form."""

from jiayu.compiler.confidence import CONFIDENCE_THRESHOLD
from jiayu.compiler.lexicon import Lexicon
from jiayu.compiler.parse import compile_text

__all__ = ["CONFIDENCE_THRESHOLD", "Lexicon", "compile_text"]
