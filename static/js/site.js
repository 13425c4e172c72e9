/* Arena site: the little JavaScript the pages use on top of htmx (no inline scripts: the CSP
   forbids them). Every control also works without it, as a plain GET form. */
(function () {
  "use strict";

  // Keep shareable URLs short: drop empty filter values and the default ranking from GET
  // requests (htmx pushes the request URL into the address bar).
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    if (detail.verb !== "get" || !detail.formData) {
      return;
    }
    var data = detail.formData;
    Array.from(data.keys()).forEach(function (name) {
      var values = data.getAll(name).filter(function (value) { return value !== ""; });
      data.delete(name);
      values.forEach(function (value) { data.append(name, value); });
    });
    if (data.get("rank") === "pa") {
      data.delete("rank");
    }
    // The products picked for the matrix travel as one value, ?show=a,b, and not at all when they
    // are the default ones (the top of the current ranking, which then follows a re-ranking).
    var picked = data.getAll("show");
    if (picked.length) {
      data.delete("show");
      var choice = document.getElementById("matrix-products");
      var joined = picked.join(",");
      if (!choice || joined !== choice.getAttribute("data-default")) {
        data.append("show", joined);
      }
    }
  });

  // A collapsed category of the matrix loads its rows in place of its heading: focus moves to its
  // first story, where the link the visitor followed was.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    var id = target && target.id;
    if (!id || id.indexOf("mx-cat-") !== 0) {
      return;
    }
    var body = document.getElementById(id);
    var first = body && body.querySelector("th[scope=row] a");
    if (first) { first.focus(); }
  });

  // The matrix's small flag controls open the flag form in the panel above the matrix, in place
  // (without JavaScript they are plain links to the flag page).
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a.flag-mini");
    if (!link || !window.htmx || event.metaKey || event.ctrlKey || event.shiftKey) {
      return;
    }
    event.preventDefault();
    window.htmx.ajax("GET", link.getAttribute("href"), { target: "#matrix-flag", swap: "innerHTML" })
      .then(function () {
        var panel = document.getElementById("matrix-flag");
        panel.scrollIntoView({ block: "start" });
        var first = panel.querySelector("input, select, textarea");
        if (first) { first.focus(); }
      });
  });

  // Long descriptions show three lines and a "Show more" toggle (the full text is in the page).
  function clampDescriptions(root) {
    root.querySelectorAll("[data-clamp]:not(.clamp-ready)").forEach(function (el, i) {
      el.classList.add("clamp-ready", "clamped");
      if (el.scrollHeight <= el.clientHeight + 2) {
        el.classList.remove("clamped");
        return;
      }
      if (!el.id) {
        el.id = "clamp-" + i;
      }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "clamp-toggle";
      button.setAttribute("aria-controls", el.id);
      button.setAttribute("aria-expanded", "false");
      button.textContent = "Show full description";
      button.addEventListener("click", function () {
        var open = el.classList.toggle("clamped") === false;
        button.setAttribute("aria-expanded", String(open));
        button.textContent = open ? "Show less" : "Show full description";
      });
      el.insertAdjacentElement("afterend", button);
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { clampDescriptions(document); });
  } else {
    clampDescriptions(document);
  }
})();
