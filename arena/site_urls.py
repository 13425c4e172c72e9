from django.urls import path

from arena import agents, badges, dataformat, discovery, exports, views

urlpatterns = [
    path("", views.home, name="home"),
    path("methodology/", views.methodology, name="methodology"),
    path("arenas/<slug:arena>/", views.arena_detail, name="arena-detail"),
    path("arenas/<slug:arena>/vs/<slug:a>-vs-<slug:b>/", views.head_to_head, name="head-to-head"),
    path("arenas/<slug:arena>/compare/", views.arena_compare, name="arena-compare"),
    path(
        "arenas/<slug:arena>/products/<slug:product>/", views.product_detail, name="product-detail"
    ),
    path("arenas/<slug:arena>/stories/<int:story>/", views.story_detail, name="story-detail"),
    path("cells/<int:cell>/", views.cell_detail, name="cell-detail"),
    # open data
    path("arenas/<slug:arena>/export.json", exports.arena_export_json, name="arena-export-json"),
    path("arenas/<slug:arena>/export.csv", exports.arena_export_csv, name="arena-export-csv"),
    path(
        f"schemas/arena-v{dataformat.VERSION}.schema.json",
        exports.arena_file_schema,
        name="arena-file-schema",
    ),
    # the site for programs (llms.txt and markdown views, arena/agents.py)
    path("llms.txt", agents.llms_txt, name="llms-txt"),
    path("api.md", agents.api_markdown, name="api-markdown"),
    path("arenas/<slug:arena>.md", agents.arena_markdown, name="arena-markdown"),
    path(
        "arenas/<slug:arena>/vs/<slug:a>-vs-<slug:b>.md",
        agents.head_to_head_markdown,
        name="head-to-head-markdown",
    ),
    path("cells/<int:cell>.md", agents.cell_markdown, name="cell-markdown"),
    # discoverable: robots.txt, the sitemap, the favicon
    path("robots.txt", discovery.robots_txt, name="robots-txt"),
    path("sitemap.xml", discovery.sitemap_xml, name="sitemap-xml"),
    path("favicon.ico", discovery.favicon, name="favicon-ico"),
    # feeds and badges: a product's embeddable badge (the feeds are in flags/urls.py)
    path(
        "arenas/<slug:arena>/products/<slug:product>/badge.svg",
        badges.product_badge_svg,
        name="product-badge",
    ),
]
