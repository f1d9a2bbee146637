"""Home Assistant loads custom integrations from this package."""
