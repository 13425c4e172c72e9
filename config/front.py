"""Settings for the public site's front door."""

from config.env import env_bool

# With DEBUG on, Django shows its technical 404 and never calls handler404: set this to see the
# site's own 404 (its suggestions and search form) while developing. No effect with DEBUG off,
# where the site's 404 is always the one shown.
DEBUG_SITE_404 = env_bool("DEBUG_SITE_404", False)
