"""Helpers that start and stop real services (Redis, Celery, a live server, Chromium) for tests."""
