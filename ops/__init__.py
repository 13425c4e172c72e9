"""Operations around the domain: the HTTP cache purge, backups and restores, synthetic arenas."""
