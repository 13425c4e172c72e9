"""What the pages' templates draw, as data, a module per page or part; and the row loops kept in
Python because a template is many times slower (docs/architecture.md)."""
