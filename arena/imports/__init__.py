"""Arena imports: page dumps or an arena file read, then written in one transaction."""
