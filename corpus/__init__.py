"""The bundled demo home and the corpus of cases replayed as tests."""
