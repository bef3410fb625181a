"""Units of work over the store: the write service, the recorded steps that change what a
name means (aliases, migrations), conversion to public records, the action ledger, and
``Ledger`` (``service.py``), the one object every layer above the store shares.
"""
