"""Arena imports: read page dumps (``pages``) or an arena file (``arena_file``) into the plain
records of ``records``, every problem named by file and line; check them against the rows
(``checks``); write them in one transaction (``service.arena_import``, step by step in
``structure``, ``rows`` and ``cells``). The readers use no ORM; docs/importing.md says the rules."""
