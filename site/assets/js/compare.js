/*
 * masrl: the compare view (page compare/) and the "Compare" boxes of the interactive table.
 *
 * compare/?keys=a,b,c shows two to six entries side by side from data/entries.json: one line per
 * field (year, venue, authors, each axis's tags, the evidence line of each sub-decision, links,
 * summary). A line whose values differ between the entries is marked (class masrl-differs and a
 * "differs" note), and so is each tag that not every entry holds (masrl-chip--differs).
 *
 * On the table page (table.js publishes the rows shown as app.masrlView and fires
 * "masrl:rendered"), each row gets a "Compare" box; ticking 2 to 6 enables a link to the view.
 * Text is always written with textContent, never parsed as HTML.
 */
(function () {
  "use strict";

  var dataByUrl = {};
  function loadData(url) {
    if (!dataByUrl[url]) {
      dataByUrl[url] = fetch(url, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      });
    }
    return dataByUrl[url];
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function anchorOf(value) {
    return String(value).toLowerCase().replace(/[^a-z0-9_-]/g, "-");
  }

  var LINK_LABELS = [["arxiv", "arXiv"], ["pdf", "PDF"], ["doi", "DOI"], ["openreview", "OpenReview"],
    ["code", "Code"], ["project_page", "Project"], ["data", "Data"], ["weights", "Weights"]];

  /* ---------------------------------------------------------------- the view */

  // One line of the view: a heading, and per entry a list of values (strings) drawn by draw().
  function lines(data, entries) {
    var found = [
      { label: "Year", values: function (e) { return [String(e.year)]; } },
      { label: "Venue", values: function (e) { return e.venue ? [e.venue] : []; } },
      { label: "Authors", values: function (e) { return [e.authors.join(", ")]; } },
      { label: "arXiv", values: function (e) { return e.arxiv_id ? [e.arxiv_id] : []; } }
    ];
    data.axes.forEach(function (axis) {
      found.push({ label: axis.label, field: axis.field, values: function (e) { return e.tags[axis.field] || []; } });
    });
    var evidenced = [];
    entries.forEach(function (e) {
      Object.keys(e.evidence || {}).forEach(function (id) { if (evidenced.indexOf(id) === -1) evidenced.push(id); });
    });
    evidenced.sort().forEach(function (id) {
      found.push({ label: "Evidence " + id, values: function (e) { return (e.evidence || {})[id] ? [e.evidence[id]] : []; } });
    });
    LINK_LABELS.forEach(function (pair) {
      if (!entries.some(function (e) { return (e.links || {})[pair[0]]; })) return;
      found.push({ label: pair[1], link: true, values: function (e) { return (e.links || {})[pair[0]] ? [e.links[pair[0]]] : []; } });
    });
    found.push({ label: "Summary", values: function (e) { return [e.summary]; } });
    return found;
  }

  function drawValue(cell, line, value, names, root, differs) {
    if (line.field) {
      var known = (names[line.field] || {})[value] || {};
      var chip = el("a", "masrl-chip masrl-chip--" + line.field + (differs ? " masrl-chip--differs" : ""), known.short || known.label || value);
      if (known.short) chip.title = known.label;
      chip.href = new URL("browse/" + line.field + "/#" + anchorOf(value), root).href;
      cell.appendChild(chip);
      cell.appendChild(document.createTextNode(" "));
    } else if (line.link) {
      if (!/^https?:\/\//i.test(value)) return;
      var a = el("a", "masrl-out", value);
      a.href = value;
      a.rel = "noopener";
      cell.appendChild(a);
    } else {
      cell.appendChild(el("p", null, value));
    }
  }

  function drawView(app, data, keys, root) {
    var status = app.querySelector("#masrl-compare-status");
    var min = parseInt(app.dataset.min, 10), max = parseInt(app.dataset.max, 10);
    var byKey = {};
    data.entries.forEach(function (e) { byKey[e.key] = e; });
    var unknown = keys.filter(function (k) { return !byKey[k]; });
    var entries = keys.filter(function (k) { return byKey[k]; }).map(function (k) { return byKey[k]; });
    if (entries.length < min || entries.length > max) {
      status.textContent = "Choose " + min + " to " + max + " entries to compare" +
        (unknown.length ? " (no entry has the key " + unknown.join(", ") + ")" : "") +
        ": tick them in the interactive table.";
      return;
    }
    var names = {};
    data.axes.forEach(function (axis) {
      names[axis.field] = {};
      axis.values.forEach(function (v) { names[axis.field][v.id] = v; });
    });
    var table = app.querySelector("#masrl-compare");
    var headRow = el("tr");
    headRow.appendChild(el("th", "masrl-compare__field", "Field"));
    entries.forEach(function (e) {
      var th = el("th");
      th.scope = "col";
      th.dataset.key = e.key;
      var a = el("a", "masrl-title", e.title);
      var target = new URL(e.url, root);
      if (target.origin === root.origin) a.href = target.href;
      th.appendChild(a);
      th.appendChild(el("span", "masrl-key", e.key));
      headRow.appendChild(th);
    });
    table.tHead.replaceChildren(headRow);
    var body = document.createDocumentFragment(), differing = 0;
    lines(data, entries).forEach(function (line) {
      var values = entries.map(line.values);
      var signatures = values.map(function (v) { return JSON.stringify(v); });
      var differs = signatures.some(function (s) { return s !== signatures[0]; });
      var row = el("tr", differs ? "masrl-differs" : "masrl-same");
      var th = el("th", null, line.label);
      th.scope = "row";
      if (differs) {
        differing += 1;
        th.appendChild(el("span", "masrl-differs__note", "differs"));
      }
      row.appendChild(th);
      values.forEach(function (held) {
        var cell = el("td");
        if (!held.length) cell.appendChild(el("span", "masrl-na", "—"));
        held.forEach(function (value) {
          var shared = values.every(function (other) { return other.indexOf(value) !== -1; });
          drawValue(cell, line, value, names, root, differs && !shared);
        });
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
    table.tBodies[0].replaceChildren(body);
    status.textContent = "Comparing " + entries.length + " entries; " + differing + " lines differ.";
    app.dataset.ready = "true";
  }

  function startView(app) {
    if (app.dataset.bound) return;
    app.dataset.bound = "true";
    var dataUrl = new URL(app.dataset.src, window.location.href);
    var keys = (new URLSearchParams(window.location.search).get("keys") || "").split(",")
      .map(function (k) { return k.trim(); }).filter(Boolean)
      .filter(function (k, i, all) { return all.indexOf(k) === i; });
    loadData(dataUrl.href).then(function (data) {
      drawView(app, data, keys, new URL("../", dataUrl));
    }).catch(function (error) {
      app.querySelector("#masrl-compare-status").textContent = "The entries could not be loaded (" + error.message + ").";
    });
  }

  /* ---------------------------------------------------------------- ticking rows in the table */

  var MIN = 2, MAX = 6;

  function updateBar(app) {
    var picked = app.masrlPicked, link = app.querySelector("#masrl-compare-link");
    var ready = picked.length >= MIN && picked.length <= MAX;
    app.querySelector("#masrl-compare-count").textContent =
      picked.length ? picked.length + " ticked" + (picked.length > MAX ? " (at most " + MAX + ")" : "") : "tick 2 to 6 rows";
    if (ready) {
      link.href = new URL("compare/?keys=" + picked.map(encodeURIComponent).join(","), app.masrlView.root).href;
      link.removeAttribute("aria-disabled");
    } else {
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
    }
  }

  function addBoxes(app) {
    if (!app.querySelector("#masrl-compare-bar")) {
      var bar = el("p", "masrl-compare-bar");
      bar.id = "masrl-compare-bar";
      var link = el("a", "md-button", "Compare ticked entries");
      link.id = "masrl-compare-link";
      bar.appendChild(link);
      bar.appendChild(document.createTextNode(" "));
      var count = el("span", "masrl-compare-bar__count");
      count.id = "masrl-compare-count";
      bar.appendChild(count);
      var anchor = app.querySelector("#masrl-export");
      anchor.parentNode.insertBefore(bar, anchor.nextSibling);
    }
    app.querySelectorAll("#masrl-table-body tr[data-key] .masrl-col-title").forEach(function (cell) {
      if (cell.querySelector("input[data-compare]")) return;
      var key = cell.parentNode.dataset.key;
      var label = el("label", "masrl-pick");
      var box = el("input");
      box.type = "checkbox";
      box.dataset.compare = key;
      box.checked = app.masrlPicked.indexOf(key) !== -1;
      box.setAttribute("aria-label", "Compare " + cell.querySelector(".masrl-title").textContent);
      box.addEventListener("change", function () {
        var at = app.masrlPicked.indexOf(key);
        if (box.checked && at === -1) app.masrlPicked.push(key);
        if (!box.checked && at !== -1) app.masrlPicked.splice(at, 1);
        updateBar(app);
      });
      label.appendChild(box);
      label.appendChild(document.createTextNode(" Compare"));
      cell.appendChild(label);
    });
    updateBar(app);
  }

  function startPicking(app) {
    if (app.dataset.compareBound) return;
    app.dataset.compareBound = "true";
    app.masrlPicked = [];
    app.addEventListener("masrl:rendered", function () { addBoxes(app); });
    if (app.masrlView) addBoxes(app);
  }

  function init() {
    var view = document.getElementById("masrl-compare-app");
    if (view) startView(view);
    var table = document.getElementById("masrl-table-app");
    if (table) startPicking(table);
  }

  window.masrlOnEveryPage(init);  // assets/js/boot.js
})();
