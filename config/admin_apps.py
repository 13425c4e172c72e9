"""django.contrib.admin with the staff's site (second factor) as ``admin.site``."""

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "config.admin_site.StaffAdminSite"
