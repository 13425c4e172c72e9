"""The flags app's template library (``{% load moderation %}``)."""
