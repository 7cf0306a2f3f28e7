// The buyer's page: read the inputs from the URL's query (names as recommend's flags), look the
// answers up in the data the run embedded, show them. Nothing is computed here that recommend
// decides: the run answered every combination of inputs the page offers (models/answers.py).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("page-data").textContent);
  var A = data.answers, R = data.rent;
  var form = document.getElementById("inputs");
  var names = ["budget", "min_memory", "use_case", "vendor", "include_legacy", "hours_per_week", "kwh_price"];

  function usd(v) { return "$" + Math.round(v).toLocaleString("en-US"); }
  function key(v) { return v === null || v === false ? "" : (v === true ? "1" : String(v)); }
  function position(list, value) {
    for (var i = 0; i < list.length; i++) { if (key(list[i]) === value) { return i; } }
    return -1;
  }
  // An off-grid budget or memory is answered as the page's nearest step at or below it, and says so.
  function snap(list, value) {
    var exact = position(list, value);
    if (exact >= 0 || value === "") { return exact < 0 ? 0 : exact; }
    var wanted = parseFloat(value), best = 0;
    for (var i = 0; i < list.length; i++) {
      if (list[i] !== null && list[i] <= wanted) { best = i; }
    }
    return best;
  }

  function readQuery() {
    var q = new URLSearchParams(window.location.search), notes = [];
    names.forEach(function (name) {
      var select = form.elements[name], value = q.get(name);
      if (value === null) {
        if (name === "hours_per_week" || name === "kwh_price") { value = key(data.defaults[name]); } else { return; }
      }
      if (name === "use_case" || name === "vendor") {
        var match = Array.prototype.find.call(select.options, function (o) { return o.value.toLowerCase() === value.toLowerCase(); });
        select.value = match ? match.value : "";
        return;
      }
      if (name === "include_legacy") { select.value = value && value !== "0" ? "1" : ""; return; }
      var dims = name in A.dims ? A.dims[name] : R.dims[name];
      var at = snap(dims, value);
      select.value = key(dims[at]);
      if (q.get(name) !== null && key(dims[at]) !== value) {
        notes.push(name + "=" + value + " is answered as " + (select.options[select.selectedIndex] || {}).text);
      }
    });
    return notes;
  }

  function chosen(name) { return form.elements[name].value; }
  function flat(dims, order) {
    var index = 0;
    order.forEach(function (name) {
      var list = dims[name], value = name === "include_legacy" ? chosen(name) === "1" : chosen(name);
      var at = name === "include_legacy" ? (value ? 1 : 0) : position(list, value);
      index = index * list.length + Math.max(at, 0);
    });
    return index;
  }

  function writeQuery() {
    var q = new URLSearchParams();
    names.forEach(function (name) {
      var value = chosen(name);
      if (value !== "" && !((name === "hours_per_week" || name === "kwh_price") && value === key(data.defaults[name]))) {
        q.set(name, value);
      }
    });
    var text = q.toString();
    try { history.replaceState(null, "", text ? "?" + text : window.location.pathname); } catch (e) { /* a file: URL may refuse */ }
  }

  function ageFlag(card) {
    if (card.price_tier === "older") { return " <span class=\"age-flag\">older price, " + card.price_age + " old</span>"; }
    if (card.stale) { return " <span class=\"age-flag\">stale, " + card.price_age + " old</span>"; }
    return "";
  }
  function deciding(name, card, entry) {
    if (name === "fastest") { return entry[5].toFixed(2) + "x " + data.reference_gpu.replace(/^GeForce /, ""); }
    if (name === "best_value") { return (entry[5] / entry[4] * 1000).toFixed(2) + " speed per $1k"; }
    return usd(entry[4]);
  }
  function esc(text) { var d = document.createElement("div"); d.textContent = text == null ? "" : String(text); return d.innerHTML; }

  function showAnswers(notes) {
    var found = A.answers[A.index[flat(A.dims, ["budget", "min_memory", "use_case", "vendor", "include_legacy"])]];
    var picked = {};
    ["fastest", "best_value", "cheapest"].forEach(function (name, i) {
      var slot = document.querySelector('[data-answer="' + name + '"]'), entry = found[i];
      slot.classList.remove("stale", "older");
      if (!entry) {
        slot.setAttribute("data-model", "");
        slot.querySelector(".model").textContent = "none";
        ["decides", "price", "left", "caveats", "reason"].forEach(function (c) { slot.querySelector("." + c).textContent = ""; });
        return;
      }
      var card = A.cards[entry[0]];
      picked[entry[0]] = true;
      slot.setAttribute("data-model", entry[0]);
      if (card.stale) { slot.classList.add("stale"); }
      if (card.price_tier === "older") { slot.classList.add("older"); }
      slot.querySelector(".model").textContent = (entry[3] > 1 ? entry[3] + "x " : "") + entry[0];
      slot.setAttribute("data-gpus", String(entry[3]));
      slot.querySelector(".decides").textContent = deciding(name, card, entry);
      slot.querySelector(".price").innerHTML = usd(card.price_usd) + " " + esc(card.price_kind) + " (" + card.price_n +
        " listings), as of " + esc(card.price_as_of) + " · " + esc(card.price_source || "source unknown") + ageFlag(card) +
        "<br><span class=\"small\">speed " + entry[5].toFixed(2) + "x, " + esc(card.perf_source) + " (" +
        esc(card.perf_precision) + "); " + (card.memory_gb == null ? "memory unknown" : card.memory_gb + " GB") + "</span>";
      // The CLI's own figure ("$100 left"), never recomputed here: 100.50 rounds to 100 there, half to even.
      slot.querySelector(".left").textContent = entry[6] + " of the budget left";
      // The setup's own caveats as recommend prints them under it: the framework support, the scaling, the power.
      slot.querySelector(".caveats").innerHTML = entry[7].map(function (t) { return "<li>" + esc(A.texts[t]) + "</li>"; }).join("");
      slot.querySelector(".reason").textContent = entry[2] === null ? "" : A.texts[entry[2]];
    });
    var why = document.querySelector("#answers .why");
    why.hidden = found[4] === null;
    why.textContent = found[4] === null ? "" : A.texts[found[4]];
    document.querySelector("#answers .notes").textContent =
      notes.concat(found[3].map(function (t) { return A.texts[t]; })).join(" · ");
    var budget = parseFloat(chosen("budget")), floor = found[5] || 0, vendor = chosen("vendor");
    document.querySelectorAll("#frontier .mark").forEach(function (mark) {
      var model = mark.getAttribute("data-model"), memory = parseFloat(mark.getAttribute("data-memory") || "0");
      var out = parseFloat(mark.getAttribute("data-price")) > budget || memory < floor ||
        (vendor && mark.getAttribute("data-vendor") !== vendor);
      mark.classList.toggle("picked", !!picked[model]);
      mark.classList.toggle("out", out && !picked[model]);
    });
    document.querySelectorAll(".history-of").forEach(function (fig) { fig.hidden = !picked[fig.getAttribute("data-model")]; });
  }

  function showRent() {
    var box = document.querySelector(".rent-answer");
    if (!R.answers.length) { box.innerHTML = "<p class=\"small\">No rental prices in the warehouse: rent or buy needs them.</p>"; return; }
    var p = R.answers[R.index[flat(R.dims, ["budget", "min_memory", "use_case", "hours_per_week", "kwh_price"])]];
    function opt(i) { return i === null ? null : R.options[i]; }
    var r = {verdict: p[0], buy: opt(p[1]), rent: opt(p[2]), rent_over_budget: opt(p[3]), break_even_hours_per_week: p[4],
             assumptions: R.texts[p[5]], notes: p[6].map(function (t) { return R.texts[t]; })};
    var lines = [];
    if (r.verdict) {
      lines.push("<p class=\"verdict\">" + (r.verdict === "buy" ? "Buy" : "Rent") + " for " + chosen("hours_per_week") +
        " h a week</p>");
    } else { lines.push("<p class=\"verdict\">Neither a used card nor a cloud card fits.</p>"); }
    [["buy", r.buy], ["rent", r.rent || r.rent_over_budget]].forEach(function (pair) {
      var o = pair[1];
      if (!o) { return; }
      lines.push("<p>" + (pair[0] === "buy" ? "Buy " : "Rent ") + "<strong>" + esc(o.model) + "</strong>: $" +
        o.usd_per_reference_hour.toFixed(3) + " per reference-card hour (" + (pair[0] === "buy" ? usd(o.price) :
        "$" + o.price.toFixed(3) + "/GPU-h on " + esc(o.provider)) + ", " + esc(o.basis) + ")</p>");
    });
    if (r.break_even_hours_per_week !== null) {
      lines.push("<p>Break-even: buying costs less from <strong>" + r.break_even_hours_per_week.toFixed(1) +
        " h a week</strong> of training.</p>");
    }
    lines.push("<p class=\"small\">" + esc(r.assumptions) + ". " + r.notes.map(esc).join(" · ") + "</p>");
    box.innerHTML = lines.join("");
  }

  function update(notes) { showAnswers(notes || []); showRent(); }
  var notes = readQuery();
  update(notes);
  form.addEventListener("change", function () { writeQuery(); update([]); });
  document.body.setAttribute("data-ready", "1");
})();
