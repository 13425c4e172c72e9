"""The site as markdown, for programs: ``text`` escapes what the templates of templates/markdown/
write (its filters), ``api_page`` summarises the OpenAPI schema."""
