from __future__ import annotations

import pydantic
import pytest

from sgam import ValidationError
from sgam.search import PRESETS, SearchConfig, keywords, resolve_config


def test_presets_are_configs_and_resolve_by_name() -> None:
    assert resolve_config(None) == PRESETS["default"]
    assert resolve_config("keyword").vector is False
    custom = SearchConfig(recency_weight=1.0)
    assert resolve_config(custom) is custom


def test_unknown_preset_names_the_field() -> None:
    with pytest.raises(ValidationError, match="config"):
        resolve_config("nope")


def test_config_rejects_negative_weights_and_unknown_fields() -> None:
    with pytest.raises(pydantic.ValidationError):
        SearchConfig(recency_weight=-1)
    with pytest.raises(pydantic.ValidationError):
        SearchConfig.model_validate({"typo": 1})


def test_keywords_drop_function_words_and_repeats() -> None:
    assert keywords("What did Caroline research, and what did Caroline paint?") == ["caroline", "research", "paint"]
    assert keywords("   ") == []
