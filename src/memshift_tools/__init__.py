"""Tools for testing and measuring memshift, kept out of the package a study runs.

- `localserver`: a loopback HTTP server speaking the OpenAI chat-completions and Anthropic
  messages APIs, in place of a model provider; `localfaults`: its adversarial replies.
- `bench`: the benchmarks (`make bench`, `make bench-study`).

Nothing in `memshift` imports this package, so no stage's code fingerprint includes it
(tests/test_layers.py).
"""
