/* Arena site: the little JavaScript the pages use on top of htmx (no inline scripts: the CSP
   forbids them). Every control also works without it, as a plain GET form. */
(function () {
  "use strict";

  // htmx restores Back from a snapshot of the page's HTML, where any style attribute counts as an
  // inline style, which the Content Security Policy refuses. Tools that touch an element's style
  // and put it back (accessibility checkers, extensions) leave empty ones: drop them first.
  document.addEventListener("htmx:beforeHistorySave", function () {
    document.querySelectorAll('[style=""]').forEach(function (el) { el.removeAttribute("style"); });
  });

  // Keep shareable URLs short: drop empty filter values and the default ranking from GET
  // requests (htmx pushes the request URL into the address bar).
  document.addEventListener("htmx:configRequest", function (event) {
    var detail = event.detail;
    if (detail.verb !== "get" || !detail.formData) { return; }
    var data = detail.formData;
    Array.from(data.keys()).forEach(function (name) {
      var values = data.getAll(name).filter(function (value) { return value !== ""; });
      data.delete(name);
      values.forEach(function (value) { data.append(name, value); });
    });
    if (data.get("rank") === "pa") { data.delete("rank"); }
    // The products picked for the matrix travel as one value, ?show=a,b, and not at all when they
    // are the default ones (the top of the current ranking, which then follows a re-ranking).
    var picked = data.getAll("show");
    if (picked.length) {
      data.delete("show");
      var choice = document.getElementById("matrix-products");
      // (as sets: the columns' order is the ranking's, whatever order the boxes are in)
      var sameAsDefault = choice && picked.slice().sort().join(",") ===
        (choice.getAttribute("data-default") || "").split(",").sort().join(",");
      if (!sameAsDefault) { data.append("show", picked.join(",")); }
    }
  });

  // The flag controls beside verdicts (the matrix's small ⚑, the cards' and product rows' "⚑ flag")
  // open the flag form in one modal dialog, made here on first use: it names the product, the story
  // and the current verdict, closes with Escape or its Close button and gives focus back to the
  // control. Without JavaScript they are plain links to the flag page. (The cell page's panel opens
  // its form in place, with hx-get.) Each opening asks for a new instance of the form (?form=dN),
  // whose element ids are its own.
  var FLAG_OPENERS = "a.flag-mini, a.flag-control:not([hx-get])";
  var FIELDS = "input:not([type=hidden]):not([tabindex='-1']), select, textarea";
  var flagDialog = null;
  var flagOpener = null;
  var flagCount = 0;

  function makeFlagDialog() {
    var dialog = document.createElement("dialog");
    dialog.id = "flag-dialog";
    dialog.className = "flag-dialog";
    dialog.setAttribute("aria-labelledby", "flag-dialog-title");
    // (a fixed string, no visitor's text: the form itself comes from the server; Close submits
    // the head's method="dialog" form, which closes the dialog)
    dialog.innerHTML = '<div class="flag-dialog-inner"><form method="dialog" class="flag-dialog-head">' +
      '<h2 id="flag-dialog-title" tabindex="-1">Flag a verdict</h2>' +
      '<button class="flag-dialog-close">Close</button></form>' +
      '<div id="flag-dialog-body" class="flag-dialog-body"></div></div>';
    // a click on the backdrop (outside the inner box) closes it too
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) { dialog.close(); }
    });
    dialog.addEventListener("close", function () {
      if (flagOpener && flagOpener.isConnected) { flagOpener.focus(); }
      flagOpener = null;
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  function firstField(root) {
    var checked = root.querySelector("input[type=radio]:checked");
    var first = root.querySelector(FIELDS);
    if (first && first.type === "radio" && checked && checked.name === first.name) {
      return checked;
    }
    return first;
  }

  function showFlagDialog(dialog) {
    var body = dialog.querySelector(".flag-dialog-body");
    var subject = body.querySelector(".flag-subject[id]");
    dialog.removeAttribute("aria-describedby");
    if (subject) { dialog.setAttribute("aria-describedby", subject.id); }
    if (!dialog.open) { dialog.showModal(); }
    var target = firstField(body) || dialog.querySelector("#flag-dialog-title");
    target.focus();
  }

  function openFlagDialog(link) {
    var dialog = flagDialog || (flagDialog = makeFlagDialog());
    var body = dialog.querySelector(".flag-dialog-body");
    var href = link.getAttribute("href");
    flagOpener = link;
    // the same verdict again, not sent yet: what was typed is still there
    if (dialog.getAttribute("data-href") === href && body.querySelector("form.flag-form")) {
      showFlagDialog(dialog);
      return;
    }
    flagCount += 1;
    dialog.setAttribute("data-href", href);
    body.replaceChildren();
    var url = href + (href.indexOf("?") < 0 ? "?" : "&") + "form=d" + flagCount;
    window.htmx.ajax("GET", url, { target: body, swap: "innerHTML" }).then(function () {
      if (body.querySelector("form.flag-form")) {
        showFlagDialog(dialog);
      } else {
        window.location.href = href;  // no form came back: the flag page says why
      }
    }, function () { window.location.href = href; });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(FLAG_OPENERS);
    if (!link || !window.htmx || typeof HTMLDialogElement !== "function" || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    openFlagDialog(link);
  });

  // Focus after an in-place swap. A matrix category that loads its rows: its first story (where
  // the followed link was); one folded by "Hide": the link that opens it again. A flag form (the
  // dialog's or the cell panel's, or its answer after sending): the first field with an error (the
  // messages are alerts), the confirmation, or the first field of a form the panel just opened.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    var id = (target && target.id) || "";
    var region = id && document.getElementById(id);  // after an outerHTML swap, the new element
    if (!region) { return; }
    if (id.indexOf("mx-cat-") === 0) {
      var first = region.querySelector("th[scope=row] a, a.cat-load");
      if (first) { first.focus(); }
      return;
    }
    if (id.indexOf("flag-form-") !== 0 && id.indexOf("flag-slot-") !== 0) { return; }
    var done = region.classList.contains("flag-done") ? region : region.querySelector(".flag-done");
    var error = region.querySelector(".field-error");
    var place = error && error.closest("fieldset, p");
    var field = done || (place && place.querySelector(FIELDS)) || firstField(region);
    if (field) { field.focus(); }
  });
})();
