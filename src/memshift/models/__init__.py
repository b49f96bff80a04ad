"""The model layer: typed requests per role, interchangeable backends, a response cache and a
per-call log. The default backend is rule-based and needs no model."""
