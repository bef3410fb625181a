"""SQL written once for every backend: statements in SQLite's spelling, run through a
backend's ``Session`` (the dialect layer: placeholders, index hints, times, the few
functions spelled differently). Backends mix these classes into their reader and write
unit of work and keep only what is their own."""
