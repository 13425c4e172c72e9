"""The public site's routes: pages, flags, changes and feeds, open data, markdown, discovery."""

from django.urls import include, path

from arena import dataformat
from web.formats import agents, badges, discovery, exports, feeds
from web.views import disputes, flags, front, musthave, pages, verify

arena_urls = [
    path("", pages.arena_detail, name="arena-detail"),
    path("vs/<slug:a>-vs-<slug:b>/", pages.head_to_head, name="head-to-head"),
    path("vs/<slug:a>-vs-<slug:b>.md", agents.head_to_head_markdown, name="head-to-head-markdown"),
    path("compare/", pages.arena_compare, name="arena-compare"),
    path("must-have/", musthave.arena_must_have, name="arena-must-have"),
    path("products/<slug:product>/", pages.product_detail, name="product-detail"),
    path("products/<slug:product>/badge.svg", badges.product_badge_svg, name="product-badge"),
    path("products/<slug:product>/changes/feed/", feeds.ChangesFeed(), name="product-changes-feed"),
    path("stories/<int:story>/", pages.story_detail, name="story-detail"),
    path("sources/", pages.arena_sources, name="arena-sources"),
    path("disputes/", disputes.arena_disputes, name="arena-disputes"),
    path("disputes.json", disputes.arena_disputes_json, name="arena-disputes-json"),
    path("disputes/feed/", feeds.ArenaDisputesFeed(), name="arena-disputes-feed"),
    path("verify/", verify.arena_verify, name="arena-verify"),
    path("verify.json", verify.arena_verify_json, name="arena-verify-json"),
    path("export.json", exports.arena_export_json, name="arena-export-json"),
    path("export.csv", exports.arena_export_csv, name="arena-export-csv"),
    path("changes/feed/", feeds.ChangesFeed(), name="arena-changes-feed"),
    path("sitemap.xml", discovery.arena_sitemap_xml, name="arena-sitemap"),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("methodology/", pages.methodology, name="methodology"),
    path("search/", front.search, name="search"),
    path("pick/", front.pick_pair, name="pick-pair"),
    path("arenas/<slug:arena>/", include(arena_urls)),
    path("arenas/<slug:arena>.md", agents.arena_markdown, name="arena-markdown"),
    path("cells/<int:cell>/", pages.cell_detail, name="cell-detail"),
    path("cells/<int:cell>.md", agents.cell_markdown, name="cell-markdown"),
    path(
        f"schemas/arena-v{dataformat.VERSION}.schema.json",
        exports.published_schema,
        {"name": f"arena-v{dataformat.VERSION}"},
        name="arena-file-schema",
    ),
    path("schemas/<str:name>.schema.json", exports.published_schema, name="published-schema"),
    path("llms.txt", agents.llms_txt, name="llms-txt"),
    path("api.md", agents.api_markdown, name="api-markdown"),
    path("robots.txt", discovery.robots_txt, name="robots-txt"),
    path("sitemap.xml", discovery.sitemap_xml, name="sitemap-xml"),
    path("sitemap-pages.xml", discovery.sitemap_pages_xml, name="sitemap-pages"),
    path("favicon.ico", discovery.favicon, name="favicon-ico"),
    path("cells/<int:cell>/flag/", flags.flag_create, name="flag-create"),
    path("flags/status/<slug:token>/", flags.flag_status, name="flag-status"),
    path("flags/unsubscribe/<str:token>/", flags.flag_unsubscribe_view, name="flag-unsubscribe"),
    path("changes/", flags.recent_changes, name="recent-changes"),
    path("changes/feed/", feeds.ChangesFeed(), name="recent-changes-feed"),
]
