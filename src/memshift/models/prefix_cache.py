"""How much of a job's prompt tokens a server's prefix cache could serve, simulated offline.

vLLM's automatic prefix caching (and, in coarser units, the prompt caches of the OpenAI and
Anthropic APIs) keeps the key/value blocks of prompts it has processed. A prompt's block is
served from the cache when the same block with the same blocks before it was processed earlier
and has not been evicted. This module replays a job's prompts in the order the job sent them
through such a cache and counts the tokens it would serve:

- a block is `BLOCK_TOKENS` (16, vLLM's default) tokens; only full blocks are cached;
- a block's identity is a hash chained over every block before it (as vLLM hashes a block
  with its parent's hash), so a block hits only when the whole prefix up to it is the same;
- the hits of a prompt are its leading run of cached blocks; as in vLLM, at least the
  prompt's last token is computed, so a prompt found whole in the cache is served all but its
  last block;
- the cache holds `capacity_tokens` (default 2^20 = 1,048,576 tokens, 65,536 blocks: a few GB
  of key/value memory for a 9B model, what one 80 GB GPU leaves it) and evicts the least
  recently used block first, the tail of a prompt before its head (vLLM frees a request's
  blocks in reverse order for that reason: a head block evicted would strand its tail).

Tokens are memshift's own (`memshift.tokens`: a run of word characters or one other visible
character), so a share is the share of the call log's `tokens_in` of the rule-based backend.
A model's tokenizer cuts text differently, so the share is a property of the prompts' layout
and order, not a measured hit rate: requests in flight at once, other jobs on the same server
and the server's own memory are not simulated.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping, Sequence

from memshift.tokens import TOKEN
from memshift.vocabulary import BLOCK_TOKENS, CAPACITY_TOKENS


@functools.lru_cache(maxsize=1 << 16)
def _line_split(line: str) -> tuple[str, ...]:
    return tuple(TOKEN.findall(line))


def split(text: str) -> list[str]:
    """`text` as memshift's tokens (`count_tokens(text) == len(split(text))`, tested), line
    by line: no token spans a line break, and a job's prompts repeat the lines of the same records
    many times, so each line is split once."""
    tokens: list[str] = []
    for line in text.split("\n"):
        tokens.extend(_line_split(line))
    return tokens


def prompt_tokens(messages: Iterable[Mapping[str, str]]) -> list[str]:
    """A chat prompt as one token sequence, its messages' contents in order: the sequence whose
    length the call log's `tokens_in` is. (A chat template adds the same role markers to every
    prompt of a role, so leaving them out moves no block boundary between two prompts.)"""
    tokens: list[str] = []
    for message in messages:
        tokens.extend(split(message["content"]))
    return tokens


class PrefixCache:
    """A block-level prefix cache with least-recently-used eviction."""

    def __init__(
        self, capacity_tokens: int = CAPACITY_TOKENS, block_tokens: int = BLOCK_TOKENS
    ) -> None:
        if block_tokens < 1 or capacity_tokens < 0:
            raise ValueError("a block holds at least one token and a capacity is not negative")
        self.block_tokens = block_tokens
        self.capacity_blocks = capacity_tokens // block_tokens
        # chained block hash -> None, least recently used first
        self._blocks: OrderedDict[int, None] = OrderedDict()

    def __len__(self) -> int:
        return len(self._blocks)

    def chain(self, tokens: Sequence[Hashable]) -> list[int]:
        """The identities of the prompt's full blocks, each hashed with the one before it."""
        chain: list[int] = []
        parent = 0
        # the full blocks, each a tuple built in C (one iterator taken `size` times at once)
        tokens_left = iter(tokens)
        for block in zip(*[tokens_left] * self.block_tokens, strict=False):
            # Python's hash of a tuple of str: 64 bits, salted per process, so the same within
            # a job; a collision among a job's blocks is as likely as among vLLM's.
            parent = hash((parent, block))
            chain.append(parent)
        return chain

    def serve(self, tokens: Sequence[Hashable]) -> int:
        """The number of `tokens` served from the cache; the prompt's full blocks are then held
        (most recently used: its head, then its tail)."""
        return self.serve_chain(self.chain(tokens), len(tokens))

    def serve_chain(self, chain: Sequence[int], length: int) -> int:
        """`serve` for a prompt of `length` tokens whose `chain` is already known (a prompt the
        job sent before)."""
        size = self.block_tokens
        # At least the last token is computed: blocks wholly before it may hit.
        hittable = (length - 1) // size if length else 0
        hits = 0
        while hits < hittable and chain[hits] in self._blocks:
            hits += 1
        for block in reversed(chain):
            self._blocks[block] = None
            self._blocks.move_to_end(block)
        while len(self._blocks) > self.capacity_blocks:
            self._blocks.popitem(last=False)
        return hits * size


def cached_tokens(
    prompts: Iterable[Sequence[Hashable]],
    capacity_tokens: int = CAPACITY_TOKENS,
    block_tokens: int = BLOCK_TOKENS,
) -> list[int]:
    """The tokens a fresh prefix cache serves of each prompt, sent in the order given."""
    cache = PrefixCache(capacity_tokens, block_tokens)
    return [cache.serve(tokens) for tokens in prompts]


def share(cached: int, total: int) -> float | None:
    """Cached tokens over input tokens; None when there were none."""
    return cached / total if total else None


def side_by_side(keys: Iterable[Hashable]) -> list[int]:
    """The places of `keys`, equal keys one after the other: groups in the order their first
    member comes, members in theirs. Requests of one key share a prefix (an item's records);
    sent in this order, each reuses what the one before it left in a cache of any size (a
    server with room for one prompt, an entry about to expire), not only in a large one."""
    groups: dict[Hashable, list[int]] = {}
    for place, key in enumerate(keys):
        groups.setdefault(key, []).append(place)
    return [place for members in groups.values() for place in members]
