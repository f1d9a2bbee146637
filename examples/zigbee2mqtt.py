# examples/zigbee2mqtt.py: turns on zigbee2mqtt devices, through its MQTT broker.
# First: jiayu home from-z2m --host <broker> --rooms rooms.json --out home.json
import os
from urllib.parse import urlsplit

from jiayu.engine import Engine
from jiayu.executor.hubs.zigbee2mqtt import Zigbee2MqttHub
from jiayu.home import load_home

home = load_home("home.json")
broker = urlsplit(os.environ.get("JIAYU_MQTT_URL", "mqtt://127.0.0.1:1883"))
with Zigbee2MqttHub(home, host=broker.hostname or "127.0.0.1", port=broker.port or 1883) as hub:
    engine = Engine(home, hub=hub)
    for text in ["打开客厅吸顶灯", "把书房插座打开", "客厅温度多少"]:
        print(text, "→", engine.turn(text, session_id="s1").reply)
