"""An OpenAI-compatible server (a model profile's `base_url`: vLLM, the OpenAI API, the local
replay server) as the async LLM and embedding functions a memory library takes, sending the
library's own prompts unchanged."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memshift.errors import MemshiftError
from memshift.models.http import HttpTransport

MAX_REPLY_BYTES = 16 * 1024 * 1024


@dataclass
class Endpoint:
    base_url: str  # ends in /v1
    model: str
    embedder_model: str
    api_key: str = "local"
    embedder_base_url: str = ""  # when the embedder is served elsewhere
    timeout_s: float = 600.0
    calls: dict[str, int] = field(default_factory=lambda: {"chat": 0, "embeddings": 0})
    _transport: HttpTransport | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Endpoint:
        # a library that deep-copies its configuration must keep calling this one endpoint
        return self

    def _http(self) -> HttpTransport:
        # opened inside the library's event loop, on first use
        if self._transport is None:
            self._transport = HttpTransport(self.timeout_s, MAX_REPLY_BYTES)
        return self._transport

    async def _post(self, path: str, body: dict[str, Any], base_url: str = "") -> dict[str, Any]:
        reply = await self._http().post(
            f"{(base_url or self.base_url).rstrip('/')}{path}",
            json.dumps(body).encode(),
            {"content-type": "application/json", "authorization": f"Bearer {self.api_key}"},
        )
        if reply.status != 200:
            raise MemshiftError(
                f"{path} answered HTTP {reply.status}: {reply.body[:300].decode(errors='replace')}"
            )
        found: dict[str, Any] = json.loads(reply.body)
        return found

    async def chat(
        self,
        prompt: str,
        system_prompt: str | None = None,
        history_messages: list[dict[str, str]] | None = None,
        **_: Any,
    ) -> str:
        """One chat completion at temperature 0; the library's other keyword arguments
        (its cache and streaming hints) are not sent."""
        messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
        messages += [*(history_messages or []), {"role": "user", "content": prompt}]
        self.calls["chat"] += 1
        body = await self._post(
            "/chat/completions", {"model": self.model, "messages": messages, "temperature": 0.0}
        )
        try:
            return str(body["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as exc:
            raise MemshiftError(f"/chat/completions: no message in the reply ({exc})") from None

    async def embed(self, texts: list[str], **_: Any) -> np.ndarray:
        self.calls["embeddings"] += 1
        body = await self._post(
            "/embeddings", {"model": self.embedder_model, "input": texts}, self.embedder_base_url
        )
        rows = sorted(body.get("data", []), key=lambda d: d["index"])
        if len(rows) != len(texts):
            raise MemshiftError(f"/embeddings: {len(rows)} vectors for {len(texts)} texts")
        return np.array([r["embedding"] for r in rows], dtype=np.float32)

    async def aclose(self) -> None:
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None
