"""Erasure and expiry, and the participants that features register so both reach their data
without erasure naming a feature."""
