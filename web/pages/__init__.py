"""What the pages' templates draw, as data, one job per module; and the two row loops a template
would make many times slower, written in Python (``matrix.matrix_rows``, ``compare.compare_rows``;
docs/architecture.md). ``web/templatetags/arena_tags.py`` registers them for the templates."""
