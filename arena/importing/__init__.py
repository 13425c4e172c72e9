"""The write side of an import: what the site holds, updated from an arena's parsed pages or file
(the parser is ``arena.importer``). ``service.arena_import`` runs the steps of ``structure``,
``rows`` and ``cells`` over one ``run.ImportRun``; ``checks`` refuses what would clash with the
database."""
