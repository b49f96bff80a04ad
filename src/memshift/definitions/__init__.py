"""The person's own definitions: the six fixed ones and their clauses (`catalog`) and the six as
the person might say them (`words`). The held-out sets are drawn from a grammar and kept by a
gold-only filter, so their draw lives beside the gold it runs (`gold/heldout_definitions.py`);
the records that revise a held-out definition's sources are the world's
(`world/definition_revisions.py`)."""
