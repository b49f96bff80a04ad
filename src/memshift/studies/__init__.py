"""The side studies, one folder each: its stages (`*stage.py`), its measures (`*analysis*.py`,
`explain.py`), its report (`*report*.py`), its own parts and its config schema
(`schema.yaml`, the study's key of the config). docs/architecture.md places each module in its
part by that name."""
