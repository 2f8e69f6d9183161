/*
 * masrl: the citation graph page (page citations/).
 *
 * The page is rendered at build time by tools/masrl/render/site/citation_graph.py: the filters,
 * the coverage line, a legend, and every node and edge as a list. This script loads the vendored
 * cytoscape.js (data-lib; only on this page, so no other page pays for it) and the graph's data
 * (data-src, data/citations.json), draws the graph, and filters the drawing and the lists
 * together. The filters use the table's vocabulary and are kept in the query string as the table
 * keeps them (?reward_families=R1&sub_decisions=O2).
 *
 * Keyboard: the drawing is focusable; arrow keys move from node to node (in the list's order),
 * Enter opens the focused node's entry, as a click on a node does. Text is always written with
 * textContent, never parsed as HTML.
 *
 * With mkdocs-material's instant loading the script runs once and pages are swapped in place, so
 * it initialises on every page through material's document$ observable.
 */
(function () {
  "use strict";

  var libraryLoads = {};
  var dataLoads = {};
  var current = null; // the graph drawn on the page shown, destroyed when another is drawn

  function loadLibrary(url) {
    if (window.cytoscape) return Promise.resolve(window.cytoscape);
    if (!libraryLoads[url]) {
      libraryLoads[url] = new Promise(function (resolve, reject) {
        var script = document.createElement("script");
        script.src = url;
        script.onload = function () { resolve(window.cytoscape); };
        script.onerror = function () { reject(new Error("could not load " + url)); };
        document.head.appendChild(script);
      });
    }
    return libraryLoads[url];
  }

  function loadData(url) {
    if (!dataLoads[url]) {
      dataLoads[url] = fetch(url, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      });
    }
    return dataLoads[url];
  }

  /* ---------------------------------------------------------------- filters <-> URL */

  function readState(data) {
    var params = new URLSearchParams(window.location.search);
    var state = {};
    data.filters.forEach(function (field) {
      var chosen = params.getAll(field);
      if (chosen.length) state[field] = chosen;
    });
    return state;
  }

  function writeState(state, data) {
    var params = new URLSearchParams(window.location.search);
    data.filters.forEach(function (field) {
      params.delete(field);
      (state[field] || []).forEach(function (value) { params.append(field, value); });
    });
    var query = params.toString();
    var url = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    window.history.replaceState(window.history.state, "", url);
  }

  function matches(node, state) {
    return Object.keys(state).every(function (field) {
      var values = node.tags[field] || [];
      return state[field].some(function (value) { return values.indexOf(value) !== -1; });
    });
  }

  function stateFromForm(form, data) {
    var state = {};
    data.filters.forEach(function (field) {
      var chosen = Array.prototype.map.call(
        form.querySelectorAll('input[type=checkbox][data-axis="' + field + '"]:checked'),
        function (box) { return box.value; }
      );
      if (chosen.length) state[field] = chosen;
    });
    return state;
  }

  function showChosen(form, state) {
    Array.prototype.forEach.call(form.querySelectorAll("[data-axis-chosen]"), function (span) {
      var count = (state[span.getAttribute("data-axis-chosen")] || []).length;
      span.textContent = count ? "(" + count + ")" : "";
    });
  }

  /* ---------------------------------------------------------------- drawing */

  function colourOf(element, property, fallback) {
    var value = window.getComputedStyle(element).getPropertyValue(property).trim();
    return value || fallback;
  }

  function style(app, data) {
    var most = Math.max(1, Math.max.apply(null, data.nodes.map(function (n) { return n.built_upon_by; }).concat([0])));
    var text = colourOf(app, "color", "#333");
    var accent = colourOf(app, "--md-accent-fg-color", "#ff6e42");
    return [
      {
        selector: "node",
        style: {
          "background-color": "data(color)",
          "border-width": 1,
          "border-color": text,
          "width": "mapData(built_upon_by, 0, " + most + ", 14, 44)",
          "height": "mapData(built_upon_by, 0, " + most + ", 14, 44)",
          "label": "data(key)",
          "font-size": 8,
          "min-zoomed-font-size": 8, // keys show once zoomed in enough to read them apart
          "color": text,
          "text-valign": "bottom",
          "text-margin-y": 2
        }
      },
      {
        selector: "edge",
        style: {
          "width": 1.2,
          "line-color": text,
          "line-opacity": 0.45,
          "target-arrow-color": text,
          "target-arrow-shape": "triangle",
          "arrow-scale": 0.9,
          "curve-style": "bezier"
        }
      },
      { selector: ".masrl-hidden", style: { "display": "none" } },
      { selector: "node.masrl-focused", style: { "border-width": 4, "border-color": accent } }
    ];
  }

  /* Connected nodes are laid out by force (cose) from a concentric start, most-cited in the
   * middle, so the same data gives the same picture; entries without a citation in the corpus
   * follow in a grid below, in reading order. */
  function layout(cy) {
    var linked = cy.nodes().filter(function (n) { return n.degree(false) > 0; });
    var alone = cy.nodes().difference(linked);
    var box = { x1: 0, y2: 0, w: 600 };
    if (linked.length) {
      var part = linked.union(linked.connectedEdges());
      part.layout({
        name: "concentric", animate: false,
        concentric: function (n) { return n.data("built_upon_by"); },
        levelWidth: function () { return 1; }
      }).run();
      part.layout({
        name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: true,
        idealEdgeLength: function () { return 60; }, nodeRepulsion: function () { return 6000; }
      }).run();
      box = linked.boundingBox();
    }
    if (alone.length) {
      // as many columns as make the grid about as wide as the frame is, in proportion
      var aspect = cy.width() / Math.max(1, cy.height());
      var cell = { w: 96, h: 48 }; // room for a key under its node
      var columns = Math.max(1, Math.ceil(Math.sqrt(alone.length * aspect * cell.h / cell.w)));
      alone.layout({
        name: "grid", animate: false, avoidOverlap: true,
        cols: columns,
        boundingBox: {
          x1: box.x1, y1: box.y2 + (linked.length ? 60 : 0),
          w: columns * cell.w, h: Math.ceil(alone.length / columns) * cell.h
        },
        sort: function (a, b) { return a.data("order") - b.data("order"); }
      }).run();
    }
    cy.fit(undefined, 16);
    if (cy.zoom() > 1.5) { // a small graph stays at reading size instead of filling the frame
      cy.zoom(1.5);
      cy.center();
    }
  }

  function open(app, node) {
    // A link clicked as a reader clicks one, so material's instant loading takes it.
    var link = document.createElement("a");
    link.href = new URL(app.dataset.root + node.data("url"), window.location.href).href;
    link.hidden = true;
    app.appendChild(link);
    link.click();
    link.remove();
  }

  function start(app, cytoscape, data) {
    var container = app.querySelector("#masrl-graph");
    var form = app.querySelector("#masrl-graph-filters");
    var status = app.querySelector("#masrl-graph-status");
    var byKey = {};
    var elements = data.nodes.map(function (node, order) {
      byKey[node.key] = node;
      return {
        group: "nodes",
        data: { id: node.key, key: node.key, color: node.color, url: node.url, order: order, built_upon_by: node.built_upon_by }
      };
    }).concat(data.edges.map(function (edge) {
      return { group: "edges", data: { id: edge.from + "->" + edge.to, source: edge.from, target: edge.to } };
    }));
    container.hidden = false;
    if (current) {
      current.masrlObserver.disconnect();
      current.destroy();
    }
    var cy = cytoscape({
      container: container,
      elements: elements,
      style: style(app, data),
      layout: { name: "preset" },
      minZoom: 0.2,
      maxZoom: 4,
      boxSelectionEnabled: false,
      autoungrabify: true
    });
    current = cy;
    window.masrlCitationGraph = cy; // for the console and the browser tests
    layout(cy);

    var order = data.nodes.map(function (n) { return n.key; });
    var focused = null;
    var state = readState(data);

    function shownKeys() {
      return order.filter(function (key) { return matches(byKey[key], state); });
    }

    function focus(key) {
      if (focused) cy.getElementById(focused).removeClass("masrl-focused");
      focused = key;
      app.dataset.focused = key || "";
      if (!key) return;
      var node = cy.getElementById(key);
      node.addClass("masrl-focused");
      var info = byKey[key];
      status.textContent = info.title + " (" + info.year + "), cited by " + info.built_upon_by +
        " and citing " + info.builds_on + " entries of the corpus. Enter opens its page.";
      var box = node.renderedBoundingBox();
      if (box.x1 < 0 || box.y1 < 0 || box.x2 > cy.width() || box.y2 > cy.height()) cy.center(node);
    }

    function apply() {
      var shown = shownKeys();
      var keep = {};
      shown.forEach(function (key) { keep[key] = true; });
      cy.batch(function () {
        cy.nodes().forEach(function (node) {
          node.toggleClass("masrl-hidden", !keep[node.id()]);
        });
      });
      var edges = data.edges.filter(function (e) { return keep[e.from] && keep[e.to]; });
      Array.prototype.forEach.call(app.querySelectorAll("#masrl-graph-nodes tr[data-key]"), function (row) {
        row.hidden = !keep[row.getAttribute("data-key")];
      });
      Array.prototype.forEach.call(app.querySelectorAll("#masrl-graph-edges li[data-from]"), function (item) {
        item.hidden = !(keep[item.getAttribute("data-from")] && keep[item.getAttribute("data-to")]);
      });
      if (focused && !keep[focused]) focus(null);
      app.dataset.shownNodes = String(shown.length);
      app.dataset.shownEdges = String(edges.length);
      status.textContent = shown.length === order.length
        ? order.length + " entries, " + data.edges.length + " citations among them."
        : "Showing " + shown.length + " of " + order.length + " entries and " + edges.length +
          " of " + data.edges.length + " citations.";
      showChosen(form, state);
    }

    Array.prototype.forEach.call(form.querySelectorAll("input[type=checkbox][data-axis]"), function (box) {
      box.checked = (state[box.getAttribute("data-axis")] || []).indexOf(box.value) !== -1;
    });
    form.addEventListener("change", function () {
      state = stateFromForm(form, data);
      writeState(state, data);
      apply();
    });
    form.addEventListener("reset", function () {
      window.setTimeout(function () {
        state = {};
        writeState(state, data);
        apply();
      }, 0);
    });

    cy.on("tap", "node", function (event) { open(app, event.target); });
    cy.on("mouseover", "node", function () { container.style.cursor = "pointer"; });
    cy.on("mouseout", "node", function () { container.style.cursor = ""; });

    container.addEventListener("focus", function () {
      if (!focused) focus(shownKeys()[0] || null);
    });
    container.addEventListener("keydown", function (event) {
      var shown = shownKeys();
      if (!shown.length) return;
      var at = shown.indexOf(focused);
      if (event.key === "ArrowRight" || event.key === "ArrowDown") {
        focus(shown[(at + 1) % shown.length]);
      } else if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
        focus(shown[(at - 1 + shown.length) % shown.length]);
      } else if (event.key === "Home") {
        focus(shown[0]);
      } else if (event.key === "End") {
        focus(shown[shown.length - 1]);
      } else if (event.key === "Enter" && focused) {
        open(app, cy.getElementById(focused));
      } else {
        return;
      }
      event.preventDefault();
    });

    // Labels and edges take the text colour of the scheme shown (the palette switch changes it).
    cy.masrlObserver = new MutationObserver(function () { cy.style(style(app, data)); });
    cy.masrlObserver.observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });

    apply();
    app.dataset.ready = "true";
  }

  function init() {
    var app = document.getElementById("masrl-graph-app");
    if (!app || app.dataset.bound) return;
    app.dataset.bound = "true";
    var status = app.querySelector("#masrl-graph-status");
    var library = loadLibrary(new URL(app.dataset.lib, window.location.href).href);
    var data = loadData(new URL(app.dataset.src, window.location.href).href);
    Promise.all([library, data]).then(function (loaded) {
      start(app, loaded[0], loaded[1]);
    }).catch(function (error) {
      status.textContent = "The graph could not be drawn (" + error.message + "); the lists below hold every entry and citation.";
    });
  }

  window.masrlOnEveryPage(init);  // assets/js/boot.js
})();
