# examples/smartthings.py: turns on SmartThings devices, through its REST API.
# First: jiayu home from-smartthings --token $JIAYU_SMARTTHINGS_TOKEN --out home.json
import os

from jiayu.engine import Engine
from jiayu.executor.hubs.smartthings import SmartThingsHub
from jiayu.home import load_home

home = load_home("home.json")
api = os.environ.get("JIAYU_SMARTTHINGS_URL", "https://api.smartthings.com")
hub = SmartThingsHub(os.environ["JIAYU_SMARTTHINGS_TOKEN"], base_url=api)
engine = Engine(home, hub=hub)
for text in ["打开客厅灯", "主卧空调调到26度", "关掉所有的灯"]:
    print(text, "→", engine.turn(text, session_id="s1").reply)
