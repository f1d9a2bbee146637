"""The LLM fallback: clients, the seed-001 parser, and compact → IR."""
