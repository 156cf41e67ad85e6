"""Many files: expand directories and globs, and run the per-file map (read + analyse one file) serially, on a
local process pool, or as Ray tasks (see :mod:`.map`). Above the API (it calls it), below the command line."""
