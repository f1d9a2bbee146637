"""Constants of the jiayu integration."""

DOMAIN = "jiayu"
CONF_HOME_PATH = "home_path"
"""A jiayu home file; empty means: build the home from HA's registries."""
SERVICE_TIMEOUT = 10.0
"""Seconds a service call may take before the turn reports it as timed out."""
LANGUAGES = ["zh", "zh-Hans", "zh-Hant", "zh-CN", "zh-HK", "zh-TW"]
"""Languages jiayu understands: Chinese, whichever way a pipeline names it."""
