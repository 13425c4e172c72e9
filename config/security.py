"""Settings for the staff's sign-in: second factor, session lifetime, the admin's address."""
