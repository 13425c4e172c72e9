# Varnish 7.1 in front of gunicorn (docs/operations.md, "Behind a cache").
#
# What it keeps: GET/HEAD answers that name their content in a Surrogate-Key header (every public
# page does: web/http/surrogate.py), for their Cache-Control s-maxage. Never: the admin, any POST
# (flags, moderation), requests carrying a session or CSRF cookie, answers that set a cookie or
# name no content: those go to the site every time.
#
# How it forgets: the site sends `PURGE /` (or `BAN /`) with `Surrogate-Key: arena-3 cell-41 site`
# after each change (arena/purge.py); that bans every object whose Surrogate-Key holds one of those
# words. The ban tests obj.* only, so the ban lurker clears the objects in the background, and a
# request meanwhile never gets a banned object. Only addresses of the `purgers` ACL may purge,
# and, when varnishd's environment sets VARNISH_PURGE_TOKEN, only with that X-Purge-Token.
#
# What it tells the site: X-Forwarded-For is the address that connected to Varnish (client.ip) and
# X-Forwarded-Proto the scheme of the listener it came in on, both written here, whatever the
# client sent; the client's X-Forwarded-Host/-Port/-Ssl/-Protocol and Forwarded are dropped. The
# site believes them because Varnish connects from one of its TRUSTED_PROXY_IPS (loopback).
#
# Run: varnishd -F -a :6081 -f /path/to/default.vcl -s malloc,256m (edit the backend below).
# Behind a TLS terminator (hitch, haproxy, nginx stream): give it a listener of its own named
# "tls" that speaks the PROXY protocol, so that client.ip is the visitor's address and requests
# on it are https: -a :6081 -a tls=127.0.0.1:6443,PROXY (docs/operations.md, "Behind a cache").

vcl 4.1;

import std;

backend default {
    .host = "127.0.0.1";
    .port = "8000";
    .connect_timeout = 2s;
    .first_byte_timeout = 60s;
}

acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # varnishd has already appended client.ip to the client's own X-Forwarded-For: replace it all
    set req.http.X-Forwarded-For = client.ip;
    if (local.socket == "tls") {
        set req.http.X-Forwarded-Proto = "https";
    } else {
        set req.http.X-Forwarded-Proto = "http";
    }
    unset req.http.Forwarded;
    unset req.http.X-Forwarded-Host;
    unset req.http.X-Forwarded-Port;
    unset req.http.X-Forwarded-Ssl;
    unset req.http.X-Forwarded-Protocol;
    if (req.method == "PURGE" || req.method == "BAN") {
        if (client.ip !~ purgers) {
            return (synth(403, "Not a purger"));
        }
        if (std.getenv("VARNISH_PURGE_TOKEN") ~ "."
            && req.http.X-Purge-Token != std.getenv("VARNISH_PURGE_TOKEN")) {
            return (synth(403, "Wrong purge token"));
        }
        # "*" alone bans every object: manage.py restore put the whole database back
        if (req.http.Surrogate-Key == "*") {
            if (!std.ban("obj.status != 0")) {
                return (synth(500, "Ban refused: " + std.ban_error()));
            }
            return (synth(200, "Banned everything"));
        }
        # tags are words of [A-Za-z0-9_-] (arena/cachetags.py), so they need no escaping below
        if (req.http.Surrogate-Key !~ "^[A-Za-z0-9_-]+( [A-Za-z0-9_-]+)*$") {
            return (synth(400, "Name the tags in Surrogate-Key, separated by single spaces"));
        }
        # one ban for all the tags: "arena-3 site" bans obj.http.Surrogate-Key matching
        # (^|[[:space:]])(arena-3|site)([[:space:]]|$), whole words only (arena-3 is not arena-31)
        # (a ban's argument is not quoted: it has no space, so it needs none)
        if (!std.ban("obj.http.Surrogate-Key ~ (^|[[:space:]])("
            + regsuball(req.http.Surrogate-Key, " ", "|") + ")([[:space:]]|$)")) {
            return (synth(500, "Ban refused: " + std.ban_error()));
        }
        return (synth(200, "Banned"));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization || req.http.Cookie ~ "(^|;) *[^=;]*(sessionid|csrftoken)=") {
        return (pass);  # a signed-in moderator, or a visitor with a form open: as it is
    }
    # public pages are the same for everybody: other cookies (analytics...) change nothing
    unset req.http.Cookie;
    return (hash);
}

sub vcl_hash {
    # an https page names https:// links (canonical, feeds) when SITE_URL is not set: one object
    # per scheme, on top of the built-in URL and Host
    hash_data(req.http.X-Forwarded-Proto);
}

sub vcl_backend_response {
    if (bereq.uncacheable) {
        return (deliver);
    }
    if (!beresp.http.Surrogate-Key || beresp.http.Set-Cookie
        || beresp.http.Cache-Control !~ "s-maxage") {
        # nothing could purge it, or it is somebody's: not kept (and not waited for) for 2 minutes
        set beresp.uncacheable = true;
        set beresp.ttl = 120s;
        return (deliver);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # the tags are for the purges; the purgers (the site's own addresses) may still read them
    if (client.ip !~ purgers) {
        unset resp.http.Surrogate-Key;
    }
}
