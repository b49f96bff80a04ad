"""The text an item is searched by: its label, its question, the definition in effect, and a few
words that prose about it tends to use (free-text attributes are never named outright)."""

from __future__ import annotations

from memshift.definitions.catalog import definition
from memshift.world.items import Item

CUES = {
    "employer": "job work company started joined team onboarding office badge contract role",
    "manager": "manager boss report reports one-on-one 1:1 lead review team new",
    "home_city": "moved move home flat apartment lease landlord city neighbourhood live keys",
    "diet": "diet eat food dinner vegetarian vegan meat fish dairy gluten meal menu",
    "commute": "commute bike train bus car walking scooter ride office morning trip",
}


def item_query(item: Item, version: int) -> str:
    parts = [item.label, item.question]
    if item.is_definition:
        parts.append(definition(item.item_id, version).text)
    parts.append(CUES.get(item.attribute, ""))
    return " ".join(p for p in parts if p)
