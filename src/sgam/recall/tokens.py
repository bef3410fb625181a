"""Token estimate: one token per four characters, rounded up.

Close to BPE tokenizers on English prose (GPT and Llama tokenizers average 3.5-4.5
characters a token) with no tokenizer to install; budgets are limits, so erring
slightly high is the safe side. Callers needing exactness can check the rendered text."""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)
