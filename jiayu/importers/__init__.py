"""Build a home file from what a real hub knows (zigbee2mqtt, Home Assistant)."""
