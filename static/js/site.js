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
