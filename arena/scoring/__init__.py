"""Every rule of docs/scoring.md, as pure functions over plain data (no Django)."""
