"""PostgreSQL schema, version 14."""

# Keyword search stays on its index after a bulk ingest. GIN's fast update queues new
# entries in a pending list (up to 4 MB by default) that every search must scan until
# (auto)vacuum merges it: after 10,000 episodes it held 422 pages, the planner rightly
# chose a sequential scan for each term's document count and for the match, and keyword
# search took 26-42 ms instead of 4-6 ms until autovacuum came by. With a 128 kB limit
# the inserting transaction merges the list once it outgrows that (a few pages at a
# time); measured ingest was unchanged within the noise, where turning fast update off
# altogether cost about a fifth of it.

SCRIPT = """
    ALTER INDEX episodes_search SET (gin_pending_list_limit = 128);
    """
