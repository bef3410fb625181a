"""The items of sgam's LangGraph-compatible store, as the rest of sgam sees them: how an
item maps onto a ledger key (``keys``) and its part in erasure and expiry
(``lifecycle``). Nothing here imports LangGraph, which is optional: expiry reaches items
in every process, whether or not the package is installed."""
