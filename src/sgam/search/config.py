"""Search configuration as data: one pydantic model and named presets."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from .._core.errors import ValidationError


class SearchConfig(BaseModel):
    """How evidence is retrieved, fused and scored. Every weight is applied to a score
    normalised to [0, 1], so weights compare like with like."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    keyword: bool = Field(default=True, description="Retrieve candidates by BM25 over episode text.")
    vector: bool = Field(default=True, description="Retrieve candidates by cosine similarity (needs an embedder).")
    keyword_candidates: int = Field(default=50, ge=1, le=10_000)
    vector_candidates: int = Field(default=50, ge=1, le=10_000)
    rrf_k: float = Field(default=60.0, ge=0, description="Reciprocal rank fusion constant.")
    keyword_weight: float = Field(default=1.0, ge=0)
    vector_weight: float = Field(default=1.0, ge=0)
    neighbour_weight: float = Field(
        default=0.0, ge=0, description="Share of the adjacent turns' relevance (same session) a turn inherits: "
        "answers often sit next to the turn that names the topic.")
    session_weight: float = Field(
        default=0.0, ge=0, description="Weight of the session's total relevance: a conversation about the "
        "topic lifts its turns.")
    speaker_weight: float = Field(
        default=0.0, ge=0, description="Bonus for turns whose speaker the question names.")
    session_doc_weight: float = Field(
        default=0.0, ge=0, description="Weight of the session's coverage of the question's words, the session "
        "read as one document: the right session is found even when no single turn holds all the words.")
    feedback_terms: int = Field(
        default=0, ge=0, le=32, description="Pseudo-relevance feedback: words taken from the top keyword "
        "results and searched again with the question (0 = off).")
    feedback_docs: int = Field(default=10, ge=1, le=100, description="Top keyword results the feedback reads.")
    feedback_weight: float = Field(default=0.0, ge=0, description="Fusion weight of the expanded keyword ranking.")
    present_first: bool = Field(
        default=False, description="For a question about the present ('where does Mira live?'): evidence "
        "matching the same question words is ordered newest first, so the latest state leads.")
    when_weight: float = Field(
        default=0.0, ge=0, description="For a question asking when: bonus for turns that place an event in time.")
    date_weight: float = Field(
        default=0.0, ge=0, description="For a question naming a time ('on 9 November, 2022', 'in January 2022', "
        "'last year'): bonus for turns inside that window (from the named time to a week after it).")
    relevance_weight: float = Field(default=1.0, ge=0)
    recency_weight: float = Field(default=0.0, ge=0)
    recency_half_life_days: float = Field(default=30.0, gt=0)
    importance_weight: float = Field(default=0.0, ge=0, description="Uses metadata['importance'] in [0, 1].")


# "default" was chosen by leave-one-conversation-out cross-validation on the LoCoMo
# development half (docs/recall.md, `sgam eval locomo --cv`): the static model gets half
# BM25's vote; k=20 lets the top ranks count; a turn inherits 0.7 of its best adjacent
# turn's relevance and its session's coverage of the question's words (the session read
# as one document); turns that place an event in time answer "when" questions; the
# speaker the question names gets a small bonus; turns inside the time the question names
# ("on 9 November, 2022", "last year") get a full one. A question about the present orders
# evidence that matches the same words newest first (present_first).
_CONTEXT = {"vector_weight": 0.5, "rrf_k": 20.0, "neighbour_weight": 0.7, "speaker_weight": 0.1,
            "session_doc_weight": 1.0, "when_weight": 0.3, "date_weight": 1.0, "present_first": True}
PRESETS: dict[str, SearchConfig] = {
    "keyword": SearchConfig(vector=False),
    "vector": SearchConfig(keyword=False),
    "hybrid": SearchConfig(),
    "default": SearchConfig.model_validate({**_CONTEXT, "recency_weight": 0.05, "importance_weight": 0.05}),
    "recent": SearchConfig.model_validate({**_CONTEXT, "recency_weight": 0.5, "recency_half_life_days": 7.0,
                                           "importance_weight": 0.1}),
}


def resolve_config(config: SearchConfig | str | None) -> SearchConfig:
    if config is None:
        return PRESETS["default"]
    if isinstance(config, SearchConfig):
        return config
    if not isinstance(config, str) or config not in PRESETS:
        raise ValidationError(
            "config", config, f"must be a SearchConfig or one of {', '.join(sorted(PRESETS))}"
        )
    return PRESETS[config]
