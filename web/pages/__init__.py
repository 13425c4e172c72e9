"""What the pages' templates draw, as data, one job per module; and the row loops a template
would make many times slower, written in Python (``matrix.matrix_rows``, ``matrix.product_rows``,
``compare.compare_rows``; docs/architecture.md). ``web/templatetags/arena_tags.py`` registers
them for the templates."""
