"""The pages' HTML that template loops would make slow (the matrix, the leaderboard, the
head-to-head and comparison tables, the cards), written in Python, one job per module.
``web/templatetags/arena_tags.py`` registers them as the templates' tags and filters; the links
with a query string they write are ``links``'s."""
