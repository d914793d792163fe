// The playground page: send the expression / program to the JSON API, insert the HTML it returns,
// and wire the hover (logical cell <-> storage cell, by data-offset), the NumPy/PyTorch toggle,
// the examples, the tour and the watch view. In an exported file only the hover and the toggle run.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("config").textContent);
  var $ = function (id) { return document.getElementById(id); };

  // ---------------------------------------------------------------- hover highlighting
  function clearHighlight() {
    var lit = document.querySelectorAll(".hl");
    for (var i = 0; i < lit.length; i++) lit[i].classList.remove("hl");
  }
  function lightUp(e) {
    var cell = e.target.closest ? e.target.closest("[data-offset]") : null;
    clearHighlight();
    if (!cell) return;
    var svg = cell.closest("svg");
    var same = svg.querySelectorAll('[data-offset="' + cell.getAttribute("data-offset") + '"]');
    for (var i = 0; i < same.length; i++) same[i].classList.add("hl");
  }
  // the step cards' pictures and the tour's (an exported file has no tour)
  ["steps", "tour-text"].forEach(function (id) {
    if (!$(id)) return;
    $(id).addEventListener("mouseover", lightUp);
    $(id).addEventListener("mouseleave", clearHighlight);
  });

  // ---------------------------------------------------------------- the NumPy / PyTorch toggle
  function syncCompare() { document.body.classList.toggle("compare", $("compare").checked); }
  $("compare").addEventListener("change", syncCompare);
  syncCompare();

  if (config.export) return;

  function showError(message) {
    var box = $("error");
    box.textContent = message;
    box.hidden = !message;
  }

  // every API call carries this server's token (the page is served only to whoever has it); it is
  // taken out of the address bar, so it is not shared with a copied link (the cookie keeps reloads working)
  var params = new URLSearchParams(window.location.search);
  if (params.has("token")) {
    var clean = new URL(window.location.href);
    clean.searchParams.delete("token");
    window.history.replaceState(null, "", clean.toString());
  }
  function getJSON(url, options) {
    options = options || {};
    options.headers = Object.assign({}, options.headers || {}, { "X-Strided-Token": config.token });
    options.credentials = "same-origin";
    return fetch(url, options).then(function (r) {
      return r.json().catch(function () { return { ok: false, error: "the server answered " + r.status }; });
    }).catch(function (err) { return { ok: false, error: "cannot reach the playground server: " + err }; });
  }

  // ---------------------------------------------------------------- show
  function run() {
    var expr = $("expr").value;
    $("steps").classList.add("busy");
    return getJSON("api/show?expr=" + encodeURIComponent(expr)).then(function (data) {
      $("steps").classList.remove("busy");
      if (!data.ok) { showError(data.error); $("steps").innerHTML = ""; return; }
      showError("");
      $("steps").innerHTML = data.html;
      var url = new URL(window.location.href);
      url.searchParams.set("expr", expr);
      window.history.replaceState(null, "", url.toString());
    });
  }
  $("expr-form").addEventListener("submit", function (e) { e.preventDefault(); run(); });
  var examples = document.querySelectorAll(".example");
  for (var i = 0; i < examples.length; i++) {
    examples[i].addEventListener("click", function (e) {
      e.preventDefault();
      $("expr").value = this.getAttribute("data-expr");
      run();
    });
  }

  // ---------------------------------------------------------------- the tour
  var tour = { steps: [], at: 0, lang: params.get("lang") === "zh" ? "zh" : "en" };
  function showTourStep() {
    var step = tour.steps[tour.at];
    if (!step) return;
    $("tour-title").textContent = (tour.at + 1) + "/" + tour.steps.length + " · " + step.title;
    $("tour-text").innerHTML = step.html;  // (rendered and escaped by the server, as the step cards are)
    $("tour-try").hidden = !step.expr && !step.program;
    $("tour-prev").disabled = tour.at === 0;
    $("tour-next").disabled = tour.at === tour.steps.length - 1;
  }
  function loadTour(lang) {
    tour.lang = lang;
    document.documentElement.lang = lang;
    return getJSON("api/tour?lang=" + lang).then(function (data) {
      if (!data.ok) { $("tour-text").textContent = data.error; return; }
      tour.steps = data.steps;
      tour.at = Math.min(tour.at, tour.steps.length - 1);
      showTourStep();
    });
  }
  $("tour-prev").addEventListener("click", function () { if (tour.at > 0) { tour.at--; showTourStep(); } });
  $("tour-next").addEventListener("click", function () {
    if (tour.at < tour.steps.length - 1) { tour.at++; showTourStep(); }
  });
  $("tour-try").addEventListener("click", function () {
    var step = tour.steps[tour.at];
    if (step.program) $("watch-program").value = step.program;
    if (step.expr) { $("expr").value = step.expr; run(); window.scrollTo(0, 0); }
  });
  var langs = document.querySelectorAll(".lang");
  for (var j = 0; j < langs.length; j++) {
    langs[j].addEventListener("click", function (e) {
      e.preventDefault();
      var lang = this.getAttribute("data-lang");
      var url = new URL(window.location.href);
      url.searchParams.set("lang", lang);
      window.history.replaceState(null, "", url.toString());
      loadTour(lang);
    });
  }

  // ---------------------------------------------------------------- watch
  if (config.watch === "off") $("watch-run").disabled = true;
  $("watch-note").classList.add("watch-" + config.watch);
  $("watch-run").addEventListener("click", function () {
    $("watch-result").classList.add("busy");
    $("watch-result").textContent = "running…";
    getJSON("api/watch", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ program: $("watch-program").value })
    }).then(function (data) {
      $("watch-result").classList.remove("busy");
      if (data.html !== undefined) { $("watch-result").innerHTML = data.html; return; }
      $("watch-result").innerHTML = "";
      var div = document.createElement("div");
      div.className = "watch-error";
      div.textContent = data.error;
      $("watch-result").appendChild(div);
    });
  });

  loadTour(tour.lang);
  if (params.get("expr")) { $("expr").value = params.get("expr"); run(); }
})();
