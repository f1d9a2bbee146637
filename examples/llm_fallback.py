# examples/llm_fallback.py: what the grammar does not understand goes to a model, once.
# A local OpenAI-compatible server: Ollama, vLLM, llama.cpp (or DashScope's compatible mode).
import os

import jiayu
from jiayu.compiler.llm.client import OpenAICompatClient
from jiayu.engine import Engine

llm = OpenAICompatClient(
    os.environ.get("JIAYU_LLM_BASE_URL", "http://127.0.0.1:11434/v1"),  # Ollama's
    os.environ.get("JIAYU_LLM_MODEL", "qwen2.5:7b"),
)
engine = Engine(jiayu.demo_home(), llm=llm)
for text in ["打开客厅灯", "我要看书了，书房太暗"]:
    result = engine.turn(text, session_id="s1")
    print(text, "→", result.source, result.outcome, result.reply)
