/* masrl's page scripts start here: each passes its init, which runs on every page material shows
   (at load, then again after each instant navigation, as document$ emits once per page), or once
   the document is parsed where material's instant loading is not there. Loaded before them. */
(function () {
  "use strict";
  window.masrlOnEveryPage = function (init) {
    if (typeof window.document$ !== "undefined" && window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(init);
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", init);
    } else {
      init();
    }
  };
})();
