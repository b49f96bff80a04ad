"""The writer switch: the records and gold stay; at the fork the writer model changes, and each
cell re-derives, repairs and is read again."""
