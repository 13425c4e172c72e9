"""The admin app, with the staff's admin site (config.admin_site) as ``admin.site``: every
``@admin.register`` lands on it, and it asks for a second factor."""

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "config.admin_site.StaffAdminSite"
