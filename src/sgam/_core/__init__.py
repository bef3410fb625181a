"""The domain: errors, time, values, schemas, records, the ledger's rules, purpose and retention.

Pure code with no I/O and nothing above it imported: every layer stands on it.
"""
