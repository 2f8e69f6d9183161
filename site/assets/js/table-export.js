/*
 * masrl: downloads of the interactive table's rows (page table/).
 *
 * table.js publishes the rows shown, in the order shown, as app.masrlView; each button
 * (button[data-export=FORMAT]) writes exactly those rows, in that order. Every row of
 * data/entries.json carries the CLI writers' own output for its entry (BibTeX, RIS, both CSV
 * layouts, the JSON record), so a download is that output joined as the writers join it:
 *
 *   bibtex, ris   records separated by a blank line (`masrl export bib`, masrl.ris)
 *   csv           the survey artifact's layout: its header, then the rows (`masrl export csv`)
 *   masrl-csv     masrl's layout, every field under its name (`masrl export csv --kind masrl`)
 *   json          {"format": "masrl-entries", ..., "entries": [record, ...]}
 */
(function () {
  "use strict";

  var FORMATS = {
    bibtex: { type: "application/x-bibtex", file: "masrl-selection.bib" },
    ris: { type: "application/x-research-info-systems", file: "masrl-selection.ris" },
    csv: { type: "text/csv", file: "masrl-selection-survey.csv" },
    "masrl-csv": { type: "text/csv", file: "masrl-selection.csv" },
    json: { type: "application/json", file: "masrl-selection.json" }
  };

  function exportText(view, kind) {
    var rows = view.shown || [], data = view.data;
    var field = function (name) { return rows.map(function (e) { return e[name]; }); };
    if (kind === "bibtex") return field("bibtex").join("\n");
    if (kind === "ris") return field("ris").join("\n");
    if (kind === "csv") return data.csv_header + field("csv").join("");
    if (kind === "masrl-csv") return data.masrl_csv_header + field("masrl_csv").join("");
    var records = field("json");
    return data.json_head + (records.length ? "\n" + records.join(",\n") + "\n" : "") + "]}\n";
  }

  function download(view, kind) {
    var format = FORMATS[kind];
    var link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([exportText(view, kind)], { type: format.type + ";charset=utf-8" }));
    link.download = format.file;
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 0);
  }

  function init() {
    var app = document.getElementById("masrl-table-app");
    if (!app || app.dataset.exportBound) return;
    app.dataset.exportBound = "true";
    app.querySelectorAll("button[data-export]").forEach(function (button) {
      button.addEventListener("click", function () {
        if (app.masrlView && FORMATS[button.dataset.export]) download(app.masrlView, button.dataset.export);
      });
    });
  }

  window.masrlOnEveryPage(init);  // assets/js/boot.js
})();
