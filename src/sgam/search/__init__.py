"""Evidence search: keyword and vector indexes behind ``SearchIndex``, fused by RRF."""

from __future__ import annotations

from ..store import SearchFilter, SearchIndex, StoredEpisode
from .config import PRESETS, SearchConfig, resolve_config
from .embedders import (
    ConcatEmbedder,
    Embedder,
    Model2VecEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    WordLlamaEmbedder,
    embed_checked,
    embedder_from_env,
    load_embedder,
)
from .engine import EvidenceHit, search_evidence
from .fusion import min_max, reciprocal_rank_fusion
from .service import SearchService
from .text import check_question, keywords

__all__ = [
    "PRESETS", "ConcatEmbedder", "Embedder", "EvidenceHit", "Model2VecEmbedder", "OpenAIEmbedder", "SearchConfig",
    "SearchFilter", "SearchIndex", "SearchService", "SentenceTransformerEmbedder", "StoredEpisode", "WordLlamaEmbedder",
    "check_question", "embed_checked", "embedder_from_env", "keywords", "load_embedder", "min_max",
    "reciprocal_rank_fusion", "resolve_config", "search_evidence",
]
