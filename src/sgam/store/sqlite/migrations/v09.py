"""SQLite schema, version 9."""

# Assertion versions end where the next version of their key starts. A stored ``valid_to``
# is now an upper bound: a version's end is the earlier of it and the start of the next
# version of its key visible at the same recorded instant, so an ordinary write appends
# one row instead of retiring the version it closes and inserting a shortened copy.
# Rows written before this version carry exact ends, which read the same under the new
# rule: nothing is rewritten.
#
# The guards, in the new layout:
# - one holder per instant: the partial unique index ``assertions_current`` gives every
#   current version of a key its own start, and an end is never later than the next
#   start, so two current versions cannot both hold at an instant. The trigger below
#   also refuses a current version stored to end past the start of the next one (what
#   the overlap trigger refused before, in the only direction a write may not take).
# - no inverted or empty intervals: the CHECKs of version 1 on the stored ends; a
#   derived end is the start of a later version, after the version's own start.
# - immutable retired versions, and current versions changed only by retiring them:
#   ``assertions_retired_are_immutable`` of version 1, unchanged.

SCRIPT = """
    DROP TRIGGER assertions_no_overlap;

    CREATE TRIGGER assertions_end_before_next BEFORE INSERT ON assertions
    WHEN NEW.recorded_to IS NULL
    BEGIN
        SELECT RAISE(ABORT, 'sgam invariant: a current assertion would run past the start of the next one')
        WHERE (
            SELECT valid_from FROM assertions INDEXED BY assertions_current
            WHERE tenant = NEW.tenant AND subject = NEW.subject AND attribute = NEW.attribute
              AND recorded_to IS NULL AND valid_from > NEW.valid_from
            ORDER BY valid_from LIMIT 1
        ) < coalesce(NEW.valid_to, 9223372036854775807);
    END;
    """
