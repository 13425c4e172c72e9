"""What every domain app shares, below all of them: text and URI rules, the versioned and retired
records with their stale-edit merge, the admin's and forms' support for them, who moderates, and
the signals by which a lower app announces a change that a higher one acts on."""
