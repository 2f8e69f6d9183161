/*
 * masrl: the interactive table of entries (page table/).
 *
 * The controls are rendered at build time by tools/masrl/site/table.py; this script loads
 * data/entries.json, filters and sorts the rows, and keeps the filters in the query string so a
 * view can be shared and reloaded:
 *
 *   ?credit_units=message&credit_units=token&from=2023&to=2026&text=debate&sort=-year
 *
 * Values of one axis match any of them, different axes must all match; "-" stands for "not
 * applicable". Text is always written with textContent, never parsed as HTML.
 *
 * With mkdocs-material's instant loading the script runs once and pages are swapped in place, so
 * it re-initialises on every page through material's document$ observable.
 */
(function () {
  "use strict";

  var NOT_APPLICABLE = "-";
  var DEFAULT_SORT = { key: "year", descending: true };
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

  function anchorOf(value) {
    return String(value).toLowerCase().replace(/[^a-z0-9_-]/g, "-");
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /* ---------------------------------------------------------------- state <-> URL */

  function emptyState() {
    return { text: "", from: null, to: null, code: false, axes: {}, sort: { key: DEFAULT_SORT.key, descending: DEFAULT_SORT.descending } };
  }

  function parseYear(value) {
    if (value === null || value === "") return null;
    var year = parseInt(value, 10);
    return isNaN(year) ? null : year;
  }

  function readState(search, data) {
    var params = new URLSearchParams(search);
    var state = emptyState();
    state.text = (params.get("text") || "").trim();
    state.from = parseYear(params.get("from"));
    state.to = parseYear(params.get("to"));
    state.code = params.get("code") === "1";
    data.axes.forEach(function (axis) {
      var known = axis.values.map(function (v) { return v.id; }).concat([NOT_APPLICABLE]);
      var chosen = params.getAll(axis.field).filter(function (v) { return known.indexOf(v) !== -1; });
      if (chosen.length) state.axes[axis.field] = chosen;
    });
    var sort = params.get("sort");
    if (sort) {
      var descending = sort.charAt(0) === "-";
      var key = descending ? sort.slice(1) : sort;
      if (sortValue[key] || data.columns.indexOf(key) !== -1) state.sort = { key: key, descending: descending };
    }
    return state;
  }

  function writeState(state, data) {
    var params = new URLSearchParams();
    data.axes.forEach(function (axis) {
      (state.axes[axis.field] || []).forEach(function (value) { params.append(axis.field, value); });
    });
    if (state.from !== null) params.set("from", String(state.from));
    if (state.to !== null) params.set("to", String(state.to));
    if (state.text) params.set("text", state.text);
    if (state.code) params.set("code", "1");
    var isDefaultSort = state.sort.key === DEFAULT_SORT.key && state.sort.descending === DEFAULT_SORT.descending;
    if (!isDefaultSort) params.set("sort", (state.sort.descending ? "-" : "") + state.sort.key);
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (url !== window.location.pathname + window.location.search + window.location.hash) {
      window.history.replaceState(window.history.state, "", url);
    }
  }

  /* ---------------------------------------------------------------- filtering and sorting */

  // skipAxis: leave one axis's filter out (what a facet's counts are computed against).
  function matches(entry, state, skipAxis) {
    if (state.from !== null && entry.year < state.from) return false;
    if (state.to !== null && entry.year > state.to) return false;
    if (state.code && !hasCode(entry)) return false;
    for (var field in state.axes) {
      if (field === skipAxis) continue;
      var chosen = state.axes[field];
      var held = entry.tags[field] || [];
      var hit = chosen.some(function (value) {
        return value === NOT_APPLICABLE ? held.length === 0 : held.indexOf(value) !== -1;
      });
      if (!hit) return false;
    }
    if (state.text) {
      var words = state.text.toLowerCase().split(/\s+/);
      var haystack = entry._haystack;
      return words.every(function (word) { return haystack.indexOf(word) !== -1; });
    }
    return true;
  }

  function hasCode(entry) {
    var url = (entry.links || {}).code;
    return !!url && /^https?:\/\//i.test(url);
  }

  var sortValue = {
    title: function (entry) { return entry.title.toLowerCase(); },
    year: function (entry) { return entry.year; },
    venue: function (entry) { return entry.venue.toLowerCase(); },
    first_author: function (entry) { return entry.first_author.toLowerCase(); }
  };

  function compare(a, b) {
    if (a < b) return -1;
    if (a > b) return 1;
    return 0;
  }

  function sorted(entries, sort, names) {
    var valueOf = sortValue[sort.key] || function (entry) {
      return (entry.tags[sort.key] || []).map(function (v) {
        var known = names[sort.key][v] || {};
        return known.short || known.label || v;
      }).join(", ").toLowerCase();
    };
    var direction = sort.descending ? -1 : 1;
    return entries.slice().sort(function (a, b) {
      var va = valueOf(a), vb = valueOf(b);
      // Entries without a value on a tag column go last in either direction.
      if (va === "" && vb !== "") return 1;
      if (vb === "" && va !== "") return -1;
      return direction * compare(va, vb) || compare(a.title.toLowerCase(), b.title.toLowerCase()) || compare(a.key, b.key);
    });
  }

  /* ---------------------------------------------------------------- rendering */

  // Screen readers get a chip's axis and definition as its description: one hidden element per
  // (axis, value), created the first time a chip needs it, named by the chip's aria-describedby.
  var tipHolder = null;
  function tipId(field, tip, value) {
    var id = ("masrl-tip-" + field + "-" + value).toLowerCase().replace(/[^a-z0-9_-]/g, "-");
    if (!document.getElementById(id)) {
      if (!tipHolder || !tipHolder.isConnected) {
        tipHolder = el("div", "masrl-tips");
        tipHolder.hidden = true;
        document.body.appendChild(tipHolder);
      }
      var span = el("span", null, tip);
      span.id = id;
      tipHolder.appendChild(span);
    }
    return id;
  }

  function chip(root, field, value, names) {
    var link = el("a", "masrl-chip masrl-chip--" + field, names.short || names.label || value);
    // Axis and definition on hover and focus (CSS shows data-tip); the short id's label first.
    if (names.tip) {
      link.dataset.tip = (names.short ? names.label + ". " : "") + names.tip;
      link.setAttribute("aria-describedby", tipId(field, link.dataset.tip, value));
    }
    link.href = new URL("browse/" + field + "/#" + anchorOf(value), root).href;
    return link;
  }

  function renderRow(entry, context) {
    var row = el("tr");
    row.dataset.key = entry.key;
    var titleCell = el("td", "masrl-col-title");
    var link = el("a", "masrl-title", entry.title);
    var target = new URL(entry.url, context.root);
    if (target.origin === context.root.origin) link.href = target.href;
    titleCell.appendChild(link);
    titleCell.appendChild(el("span", "masrl-key", entry.key));
    titleCell.appendChild(linksOut(entry));
    row.appendChild(titleCell);
    row.appendChild(el("td", "masrl-col-year", entry.year));
    row.appendChild(el("td", "masrl-col-venue", entry.venue));
    row.appendChild(el("td", "masrl-col-author", entry.first_author));
    // The tag columns come from the axis registry, shipped in entries.json.
    context.data.columns.forEach(function (field) {
      var cell = el("td", "masrl-col-tags masrl-col--" + field);
      // On a phone a row is a card: these cells stay, each named by its column's heading.
      if (context.cardFields.indexOf(field) !== -1) cell.classList.add("masrl-card-tag");
      cell.dataset.label = context.headings[field] || field;
      var values = entry.tags[field] || [];
      if (!values.length) cell.appendChild(el("span", "masrl-na", "—"));
      values.forEach(function (value) {
        cell.appendChild(chip(context.root, field, value, context.names[field][value] || {}));
        cell.appendChild(document.createTextNode(" "));
      });
      row.appendChild(cell);
    });
    var summaryCell = el("td", "masrl-col-summary");
    var fold = el("details");
    fold.appendChild(el("summary", null, "Summary"));
    fold.appendChild(el("p", null, entry.summary));
    summaryCell.appendChild(fold);
    row.appendChild(summaryCell);
    return row;
  }

  var LINK_LABELS = [["arxiv", "arXiv"], ["pdf", "PDF"], ["doi", "DOI"], ["openreview", "OpenReview"], ["code", "Code"],
    ["project_page", "Project"], ["data", "Data"], ["weights", "Weights"]];

  function linksOut(entry) {
    var span = el("span", "masrl-links");
    LINK_LABELS.forEach(function (pair) {
      var url = (entry.links || {})[pair[0]];
      if (!url || !/^https?:\/\//i.test(url)) return;
      // Code is a badge: the reader scanning the table for released code sees it at once.
      var a = el("a", "masrl-out masrl-out--" + pair[0] + (pair[0] === "code" ? " masrl-badge masrl-badge--code" : ""), pair[1]);
      a.href = url;
      a.rel = "noopener";
      span.appendChild(a);
      span.appendChild(document.createTextNode(" "));
    });
    return span;
  }

  function render(context) {
    var state = context.state;
    var shown = sorted(context.data.entries.filter(function (e) { return matches(e, state); }), state.sort, context.names);
    var body = context.app.querySelector("#masrl-table-body");
    var rows = document.createDocumentFragment();
    shown.forEach(function (entry) { rows.appendChild(renderRow(entry, context)); });
    if (!shown.length) {
      var empty = el("tr", "masrl-empty-row");
      var cell = el("td", null, "No entry matches these filters.");
      cell.colSpan = 5 + context.data.columns.length;
      empty.appendChild(cell);
      rows.appendChild(empty);
    }
    body.replaceChildren(rows);
    var total = context.data.entries.length;
    context.app.querySelector("#masrl-table-status").textContent =
      shown.length === total ? "Showing all " + total + " entries." : "Showing " + shown.length + " of " + total + " entries.";
    context.app.dataset.count = String(shown.length);
    context.shown = shown;
    updateHeaders(context);
    updateAxisSummaries(context);
    updateFacetCounts(context);
    // Other modules (table-export.js, compare.js) work on the rows shown, in their order.
    context.app.masrlView = { shown: shown, data: context.data, root: context.root };
    context.app.dispatchEvent(new CustomEvent("masrl:rendered", { detail: context.app.masrlView }));
  }

  // Each box counts the entries that hold its value among those the other filters leave.
  function updateFacetCounts(context) {
    var state = context.state, counts = {};
    context.data.axes.forEach(function (axis) {
      var perValue = counts[axis.field] = {};
      context.data.entries.forEach(function (entry) {
        if (!matches(entry, state, axis.field)) return;
        var held = entry.tags[axis.field] || [];
        if (!held.length) perValue[NOT_APPLICABLE] = (perValue[NOT_APPLICABLE] || 0) + 1;
        held.forEach(function (value) { perValue[value] = (perValue[value] || 0) + 1; });
      });
    });
    context.app.querySelectorAll("input[type=checkbox][data-axis]").forEach(function (box) {
      var n = (counts[box.dataset.axis] || {})[box.value] || 0;
      var label = box.closest("label");
      var badge = label && label.querySelector(".masrl-check__n");
      if (badge) badge.textContent = String(n);
      if (label) label.classList.toggle("masrl-check--none", n === 0 && !box.checked);
    });
  }

  function updateHeaders(context) {
    context.app.querySelectorAll("th[data-sort-key]").forEach(function (th) {
      var active = th.dataset.sortKey === context.state.sort.key;
      th.setAttribute("aria-sort", active ? (context.state.sort.descending ? "descending" : "ascending") : "none");
    });
  }

  function updateAxisSummaries(context) {
    context.app.querySelectorAll("[data-axis-chosen]").forEach(function (span) {
      var chosen = context.state.axes[span.dataset.axisChosen] || [];
      span.textContent = chosen.length ? "(" + chosen.length + ")" : "";
    });
  }

  /* ---------------------------------------------------------------- controls */

  function showStateInControls(context) {
    var app = context.app, state = context.state;
    app.querySelector("#masrl-filter-text").value = state.text;
    app.querySelector("#masrl-year-min").value = state.from === null ? "" : String(state.from);
    app.querySelector("#masrl-year-max").value = state.to === null ? "" : String(state.to);
    var codeBox = app.querySelector("#masrl-filter-code");
    if (codeBox) codeBox.checked = state.code;
    app.querySelectorAll("input[type=checkbox][data-axis]").forEach(function (box) {
      box.checked = (state.axes[box.dataset.axis] || []).indexOf(box.value) !== -1;
    });
    app.querySelectorAll("details[data-axis]").forEach(function (details) {
      if ((state.axes[details.dataset.axis] || []).length) details.open = true;
    });
  }

  function readControls(context) {
    var app = context.app, state = context.state;
    state.text = app.querySelector("#masrl-filter-text").value.trim();
    state.from = parseYear(app.querySelector("#masrl-year-min").value);
    state.to = parseYear(app.querySelector("#masrl-year-max").value);
    var codeBox = app.querySelector("#masrl-filter-code");
    state.code = !!codeBox && codeBox.checked;
    state.axes = {};
    app.querySelectorAll("input[type=checkbox][data-axis]:checked").forEach(function (box) {
      (state.axes[box.dataset.axis] = state.axes[box.dataset.axis] || []).push(box.value);
    });
  }

  function update(context) {
    readControls(context);
    writeState(context.state, context.data);
    render(context);
  }

  function bind(context) {
    var app = context.app;
    var form = app.querySelector("#masrl-filters");
    form.addEventListener("input", function () { update(context); });
    form.addEventListener("change", function () { update(context); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function (event) {
      event.preventDefault();
      var sort = context.state.sort;
      context.state = emptyState();
      context.state.sort = sort;
      showStateInControls(context);
      writeState(context.state, context.data);
      render(context);
    });
    app.querySelectorAll("th[data-sort-key] button").forEach(function (button) {
      button.addEventListener("click", function () {
        var key = button.closest("th").dataset.sortKey;
        var sort = context.state.sort;
        context.state.sort = sort.key === key ? { key: key, descending: !sort.descending } : { key: key, descending: key === "year" };
        writeState(context.state, context.data);
        render(context);
      });
    });
  }

  function start(app, data, dataUrl) {
    var names = {};  // field -> value id -> {id, label, short}
    data.axes.forEach(function (axis) {
      names[axis.field] = {};
      axis.values.forEach(function (v) { names[axis.field][v.id] = v; });
    });
    data.entries.forEach(function (entry) {
      if (!entry._haystack) {
        // Text search covers tags (ids and labels) as well as titles, keys, arXiv ids, authors
        // and summaries.
        var tags = [];
        Object.keys(entry.tags).forEach(function (field) {
          (entry.tags[field] || []).forEach(function (value) {
            var known = (names[field] || {})[value] || {};
            tags.push(value, known.label || "");
          });
        });
        entry._haystack = [entry.title, entry.key, entry.arxiv_id || "", entry.venue, entry.summary].concat(entry.authors, tags).join(" \u0000 ").toLowerCase();
      }
    });
    var headings = {};
    app.querySelectorAll("th[data-sort-key] button").forEach(function (button) {
      headings[button.parentNode.dataset.sortKey] = button.firstChild.textContent;
    });
    var context = {
      app: app,
      headings: headings,
      cardFields: (app.dataset.cardFields || "").split(" ").filter(Boolean),
      data: data,
      names: names,
      root: new URL("../", dataUrl),  // data/entries.json sits one folder below the site root
      state: readState(window.location.search, data)
    };
    showStateInControls(context);
    bind(context);
    render(context);
    app.dataset.ready = "true";
  }

  /* ---------------------------------------------------------------- entry pages: copy BibTeX */

  function bindCopyButtons() {
    document.querySelectorAll("button.masrl-copy-bib:not([data-bound])").forEach(function (button) {
      button.dataset.bound = "true";
      button.addEventListener("click", function () {
        var code = document.querySelector(button.dataset.copyTarget);
        if (!code) return;
        var text = code.textContent;
        var done = function () { button.textContent = "Copied"; button.dataset.copied = "true"; };
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
        } else {
          fallbackCopy(text);
          done();
        }
      });
    });
  }

  function fallbackCopy(text) {
    var area = el("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (ignored) { /* the text stays selectable on the page */ }
    area.remove();
  }

  // A table wider than the page scrolls inside material's wrapper; keyboard users can only scroll
  // it if the wrapper takes focus (WCAG 2.1.1), so a wrapper that overflows joins the tab order.
  function focusableScrollRegions() {
    document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
      var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
      if (scrolls && !wrap.hasAttribute("tabindex")) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", "Table (scrolls sideways)");
      } else if (!scrolls && wrap.getAttribute("tabindex") === "0") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }

  window.addEventListener("resize", focusableScrollRegions);

  function init() {
    bindCopyButtons();
    focusableScrollRegions();
    var app = document.getElementById("masrl-table-app");
    if (!app || app.dataset.bound) return;
    app.dataset.bound = "true";
    var dataUrl = new URL(app.dataset.src, window.location.href);
    loadData(dataUrl.href).then(function (data) {
      start(app, data, dataUrl);
    }).catch(function (error) {
      app.querySelector("#masrl-table-status").textContent = "The table data could not be loaded (" + error.message + ").";
    });
  }

  window.masrlOnEveryPage(init);  // assets/js/boot.js
})();
