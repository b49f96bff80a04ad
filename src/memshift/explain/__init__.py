"""One score, drilled into (`memshift explain`): `gather` reads a study's artifacts into an
`Explanation`, `render` turns it into text."""

from memshift.explain.gather import Explanation, Target, explain
from memshift.explain.render import render

__all__ = ["Explanation", "Target", "explain", "render"]
