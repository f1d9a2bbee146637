"""Constants of the jiayu integration."""

DOMAIN = "jiayu"
CONF_HOME_PATH = "home_path"
"""A jiayu home file; empty means: build the home from HA's registries."""
SERVICE_TIMEOUT = 10.0
"""Seconds a service call may take before the turn reports it as timed out."""
LANGUAGES = ["zh", "zh-Hans", "zh-Hant", "zh-CN", "zh-HK", "zh-TW"]
"""Languages jiayu understands: Chinese, whichever way a pipeline names it."""
STATE_DIR = ".storage/jiayu"
"""Under HA's config folder: one folder per config entry, holding its state files."""
RELOAD_AFTER_S = 2.0
"""A burst of registry changes (a rename, an area moved) reloads the home once, this long
after the last of them."""
