"""``sgam.__all__`` is the public face: complete, sorted, and nothing private in it."""

from __future__ import annotations

import sgam


def isort_style(name: str) -> tuple[int, str]:
    """The order ruff keeps ``__all__`` in (RUF022): CONSTANTS, then Classes, then the rest."""
    if name.isupper():
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def test_all_is_sorted_and_unique() -> None:
    assert len(set(sgam.__all__)) == len(sgam.__all__)
    assert list(sgam.__all__) == sorted(sgam.__all__, key=isort_style)


def test_every_exported_name_exists_and_is_public() -> None:
    for name in sgam.__all__:
        assert not name.startswith("_"), name
        assert hasattr(sgam, name), name
        member = getattr(sgam, name)
        module = getattr(member, "__module__", "sgam")
        assert module.startswith("sgam"), (name, module)


def test_every_public_member_is_exported() -> None:
    public = {
        name for name, member in vars(sgam).items()
        if not name.startswith("_") and getattr(member, "__module__", "").startswith("sgam.")
    }
    assert public <= set(sgam.__all__), sorted(public - set(sgam.__all__))


def test_exported_errors_form_one_hierarchy() -> None:
    errors = [getattr(sgam, name) for name in sgam.__all__ if name.endswith("Error")]
    assert errors
    for error in errors:
        assert issubclass(error, sgam.SgamError)
    assert issubclass(sgam.ValidationError, ValueError)
    assert issubclass(sgam.NotFoundError, LookupError)
