"""Lifecycle tests run on every backend: ``search_db`` is parameterised over them."""
