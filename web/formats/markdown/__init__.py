"""The site as markdown, for programs."""
