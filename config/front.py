"""Settings for the public site's front door."""

from config.env import env_bool

DEBUG_SITE_404 = env_bool("DEBUG_SITE_404", False)
