"""The native libraries that cannot share memshift's environment, each run as a process of its
own environment (`native/bridge.py` starts it): a module per library with the library's own calls,
and the JSON-lines loop they share. Nothing here imports memshift or anything beyond the standard
library at import time: the library is imported when the process starts serving."""
