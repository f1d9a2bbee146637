# examples/home_assistant.py: turns on Home Assistant, over its WebSocket API.
# First: jiayu home from-ha --url $JIAYU_HA_URL --token $JIAYU_HA_TOKEN --out home.json
import os

from jiayu.engine import Engine
from jiayu.executor.hubs.homeassistant import HomeAssistantHub
from jiayu.home import load_home
from jiayu.importers.ha import websocket_url

home = load_home("home.json")
url = websocket_url(os.environ["JIAYU_HA_URL"])  # http://ha:8123 → ws://ha:8123/api/websocket
with HomeAssistantHub(url, os.environ["JIAYU_HA_TOKEN"]) as hub:
    engine = Engine(home, hub=hub)
    for text in ["打开客厅的大灯", "卧室空调调到26度", "卧室现在多少度"]:
        print(text, "→", engine.turn(text, session_id="s1").reply)
