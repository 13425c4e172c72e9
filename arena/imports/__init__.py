"""Arena imports: page dumps (``pages``) or an arena file (``arena_file``) read into the records
of ``reading``, every problem named by file and line, then written in one transaction
(``service.arena_import``). docs/importing.md says the rules."""
