"""HTTP caching of the public pages: validators, ``Cache-Control``, 304s, ``HEAD``, and a
server-side cache of rendered pages keyed by content version.

Every public page and API read belongs to a *version* (``versions.PAGE_VERSIONS``, by URL name): an arena's
``content_version`` for its pages, a site-wide one for the pages spanning every arena, the release
for static pages. Writes bump the version in their own transaction, so:

* the ``ETag`` is the release, the version (with today's date for the pages that show how old
  evidence is) and the request's variant (htmx headers...): a
  revalidation (``If-None-Match``) is answered ``304`` after one small query, before any view runs;
* the rendered page is kept in the ``pages`` cache under that version (Redis when configured, shared
  by every process; local memory otherwise) and served from there, identity and gzip both stored;
  a change makes a new key, nothing is ever invalidated by a guess at a TTL (entries expire only to
  free memory);
* a miss renders once: the first request takes a lock (``cache.add``), the others wait for its
  entry instead of all rendering the same page (a stampede after each change); a streamed export
  holds the lock until it has been sent and stored;
* a key names the route, the query parameters that page reads (``web.params.PAGE_PARAMS``, in one
  canonical order and spelling) and the variant it serves (``keys.page_variant``), nothing else, and a page is
  kept only when those values come from short known lists, so made-up parameters and header
  values make no entries (a full page asked with a parameter it does not read is redirected to
  its address without it); pages rendered for one client are limited (``PAGE_MISS_RATE``, 429).
  docs/pages.md ("Caching") bounds the entries per arena.

Every other GET/HEAD response gets ``Cache-Control`` (public for anonymous cookie-free answers,
``private, no-cache`` when the response sets or varies on a cookie, ``no-store`` for errors and
throttling), a weak ``ETag`` of its body, a ``304`` on revalidation, and no body for ``HEAD``.
Public pages must therefore be the same for everybody: no CSRF token, no CSP nonce, no session.

The middleware sits right below GZip (which leaves the pre-compressed entries alone) and above
sessions, CSRF, authentication and the rest: a cache hit skips them all.

``versions``: what each page's version is, and the release; ``keys``: a request's key and ETag;
``store``: a page as kept, in the shared cache and in this process; ``middleware``: the answer.
"""

from web.http.pagecache.middleware import PageCacheMiddleware

__all__ = ["PageCacheMiddleware"]
