"""Settings for the HTTP cache in front of the site (Varnish or a CDN): where purges go."""
