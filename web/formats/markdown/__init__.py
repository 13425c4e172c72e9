"""The site as markdown, for programs that read it (language-model agents, scripts): an arena
(``arena_page``), a head-to-head (``head_to_head_page``), a cell's proof (``cell_page``),
``/llms.txt`` (``llms_page``) and the API's summary (``api_page``). Renderers only: each takes what
the selectors read for the HTML page (no query here) and the ``links.Links`` of the request's host,
and returns the text; ``text`` escapes and shapes what they write."""
