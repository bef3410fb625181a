"""PostgreSQL schema: no server function restates a rule of the planner."""

# The common one-fact write and a point read were answered by server functions that
# decided what the planner decides (sgam_write_one and sgam_keyed_write_one) or answered
# ahead what a point read or a one-fact write would ask (sgam_point_reads,
# sgam_keyed_point_reads, sgam_write_lookups). The rules are written once, in Python: a
# write is the planner's statements in one pipeline, a point read plain statements in one
# snapshot. The keyed twins call the others, so they go first.

SCRIPT = """
    DROP FUNCTION IF EXISTS sgam_keyed_write_one(text, text, text, timestamptz, bigint, integer, text, text,
        timestamptz, text, text, text, double precision, timestamptz, text);
    DROP FUNCTION IF EXISTS sgam_write_one(text, timestamptz, bigint, integer, text, text, timestamptz, text, text,
        text, double precision, timestamptz, text);
    DROP FUNCTION IF EXISTS sgam_keyed_point_reads(text, text, text, timestamptz, text[], text[], text[],
        timestamptz[], timestamptz[]);
    DROP FUNCTION IF EXISTS sgam_point_reads(text, timestamptz, text[], text[], text[], timestamptz[],
        timestamptz[]);
    DROP FUNCTION IF EXISTS sgam_write_lookups(text, timestamptz, bigint[], boolean, text, text, timestamptz, text,
        boolean, boolean);
"""
