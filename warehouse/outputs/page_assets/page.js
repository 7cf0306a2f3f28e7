// The buyer's page: read the inputs from the URL's query (names as recommend's flags), apply recommend's
// one rule (models/choose.py) to the candidate setups the run embedded, show the three answers. The rule
// below is the same few lines as the Python one; the table it reads is the one recommend reads.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("page-data").textContent);
  var A = data.answers, R = data.rent;
  var form = document.getElementById("inputs");
  var names = ["budget", "min_memory", "use_case", "vendor", "include_legacy", "hours_per_week", "kwh_price",
               "model_params", "method"];
  var TOLERANCE = 1e-9;

  // Dollars as Python's f"{v:,.0f}" writes them: rounded half to even.
  function usd(v) {
    var r = Math.round(v);
    if (Math.abs(v % 1) === 0.5 && r % 2 !== 0) { r -= 1; }
    return (r < 0 ? "-$" : "$") + Math.abs(r).toLocaleString("en-US");
  }
  function key(v) { return v === null || v === false ? "" : (v === true ? "1" : String(v)); }
  function esc(text) { var d = document.createElement("div"); d.textContent = text == null ? "" : String(text); return d.innerHTML; }

  // --- the rule: models/choose.py, line for line --------------------------------------------------
  function setupFloor(q, gpus) {
    var floors = [q.min_memory_gb];
    if (q.memory_by_gpus.length) { floors.push(q.memory_by_gpus[Math.min(gpus, q.memory_by_gpus.length) - 1]); }
    floors = floors.filter(function (m) { return m !== null && m !== undefined; });
    return floors.length ? Math.max.apply(null, floors) : null;
  }
  function eligible(c, q) {
    var floor = setupFloor(q, c.gpus);
    if (floor !== null && (c.memory_gb === null || c.memory_gb < floor - TOLERANCE)) { return false; }
    if (q.memory_by_gpus.length && !c.matrix_cores) { return false; }
    if (q.gpus !== null ? c.gpus !== q.gpus : c.gpus > q.max_gpus) { return false; }
    if (c.legacy && !q.include_legacy) { return false; }
    var vendor = (q.vendor || "").toLowerCase();
    if (vendor) {
      if (String(c.vendor).toLowerCase() !== vendor || !c.runs) { return false; }
    } else if (!c.supported) { return false; }
    return !(q.use_case === "beginner" && (vendor === "" || vendor === "nvidia") && !c.ampere_cuda);
  }
  function compare(a, b) {  // tuples of numbers and strings, as Python orders them
    for (var i = 0; i < a.length; i++) {
      if (a[i] < b[i]) { return -1; }
      if (a[i] > b[i]) { return 1; }
    }
    return 0;
  }
  var ORDERS = {
    fastest: function (c) { return [-c.throughput, c.cost_usd, c.gpus, c.model]; },
    best_value: function (c) { return [-c.value, -c.throughput, c.cost_usd, c.gpus, c.model]; },
    cheapest: function (c) { return [c.cost_usd, -c.throughput, c.gpus, c.model]; }
  };
  function choose(table, q) {
    var fits = table.filter(function (c) { return eligible(c, q) && c.cost_usd <= q.budget_usd + TOLERANCE; });
    var out = {};
    Object.keys(ORDERS).forEach(function (kind) {
      var best = null;
      fits.forEach(function (c) { if (best === null || compare(ORDERS[kind](c), ORDERS[kind](best)) < 0) { best = c; } });
      out[kind] = best;
    });
    return out;
  }
  // The memory floor: the asked (else the default), with the use case's minimum under it, and the hook
  // for a model's own floor (--model-params): floor = max(use case, asked or default, model).
  function floorOf(inputs) {
    var floors = [inputs.min_memory !== null ? inputs.min_memory : A.base_min_memory];
    if (inputs.use_case) { floors.push(A.use_cases[inputs.use_case].min_memory_gb); }
    if (inputs.model_floor !== null) { floors.push(inputs.model_floor); }
    floors = floors.filter(function (m) { return m !== null && m !== undefined; });
    return floors.length ? Math.max.apply(null, floors) : null;
  }
  // The query: the floor at any card count, and the fine-tuning need a card at 1, 2, ... cards (sharded).
  function queryOf(inputs) {
    var single = inputs.use_case && A.use_cases[inputs.use_case].single_card, most = single ? 1 : A.workstation_gpus;
    var q = {budget_usd: inputs.budget, min_memory_gb: floorOf({min_memory: inputs.min_memory, use_case: inputs.use_case, model_floor: null}),
             vendor: inputs.vendor, use_case: inputs.use_case, max_gpus: most, gpus: null,
             include_legacy: inputs.include_legacy, memory_by_gpus: []};
    if (inputs.model_floor !== null) {
      for (var n = 1; n <= A.workstation_gpus; n++) { q.memory_by_gpus.push(modelFloor(n)); }
    }
    // The least a card needs to take part in an answer: what the ranking, the frontier and "nothing fits" show.
    var least = null;
    for (var k = 1; k <= most; k++) { var f = setupFloor(q, k); if (f !== null && (least === null || f < least)) { least = f; } }
    q.card_floor_gb = least;
    return q;
  }

  // --- inputs ----------------------------------------------------------------------------------------
  function number(text) {
    if (text === null || text.trim() === "") { return null; }
    var v = Number(text);
    return isFinite(v) ? v : NaN;
  }
  function readQuery() {
    var q = new URLSearchParams(window.location.search), notes = [];
    var budget = number(q.get("budget"));
    if (budget !== null && !(budget > 0)) { notes.push("budget=" + q.get("budget") + " is not a positive number of USD: answered for $600"); budget = null; }
    form.elements.budget.value = budget === null ? "600" : String(budget);
    var memory = number(q.get("min_memory"));
    if (memory !== null && !(memory >= 0)) { notes.push("min_memory=" + q.get("min_memory") + " is not a number of GB: answered with the default"); memory = null; }
    form.elements.min_memory.value = memory === null ? "" : String(memory);
    ["use_case", "vendor"].forEach(function (name) {
      var value = q.get(name), select = form.elements[name];
      if (value === null || value === "") { select.value = ""; return; }
      var match = Array.prototype.find.call(select.options, function (o) { return o.value && o.value.toLowerCase() === value.trim().toLowerCase(); });
      select.value = match ? match.value : "";
      if (!match) { notes.push(name + "=" + value + " is unknown (one of " + Array.prototype.filter.call(select.options, function (o) { return o.value; }).map(function (o) { return o.value; }).join(", ") + "): answered as any"); }
    });
    // --model-params SIZE --method M: the fine-tuning memory floor (finetuneMemoryGb, recommend's rule).
    var size = q.get("model_params"), method = (q.get("method") || "").trim().toLowerCase();
    form.elements.model_params.value = size === null ? "" : size;
    form.elements.method.value = Array.prototype.some.call(form.elements.method.options, function (o) { return o.value && o.value === method; }) ? method : "";
    if (method && !form.elements.method.value) { notes.push("method=" + q.get("method") + " is unknown (one of full, lora, qlora): no fine-tuning floor"); }
    if (size !== null && size.trim() !== "" && paramsOf(size) === null) { notes.push("model_params=" + size + " is not a parameter count such as 8B, 70b, 1.5B or 350M: no fine-tuning floor"); }
    if ((size && size.trim()) && !form.elements.method.value && !method) { notes.push("model_params needs method (full, lora or qlora): no fine-tuning floor"); }
    if (form.elements.method.value && !(size && size.trim())) { notes.push("method needs model_params (the model's size, such as 8B): no fine-tuning floor"); }
    var legacy = q.get("include_legacy");
    form.elements.include_legacy.value = legacy && legacy !== "0" ? "1" : "";
    ["hours_per_week", "kwh_price"].forEach(function (name) {
      var select = form.elements[name], value = q.get(name);
      if (value === null) { value = key(data.defaults[name]); }
      var match = Array.prototype.find.call(select.options, function (o) { return Number(o.value) === Number(value); });
      select.value = match ? match.value : key(data.defaults[name]);
      if (!match && q.get(name) !== null) { notes.push(name + "=" + value + " is not one the page offers: answered as " + select.value); }
    });
    Array.from(q.keys()).forEach(function (name) {
      if (names.indexOf(name) < 0) { notes.push(name + " is not an input this page knows (" + names.join(", ") + "): ignored"); }
    });
    return notes;
  }
  function paramsOf(text) {
    var found = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmbt])\s*$/i.exec(text || "");
    if (!found) { return null; }
    var value = Number(found[1]) * {k: 1e3, m: 1e6, b: 1e9, t: 1e12}[found[2].toLowerCase()];
    return value > 0 && value <= 1e13 ? value : null;
  }
  function modelFloor(gpus) {
    var params = paramsOf(form.elements.model_params.value), method = form.elements.method.value;
    return params !== null && method ? finetuneMemoryGb(params, method, null, null, gpus || 1) : null;
  }
  function inputs() {
    var memory = number(form.elements.min_memory.value), budget = number(form.elements.budget.value);
    return {budget: budget > 0 ? budget : 600, min_memory: memory >= 0 ? memory : null,
            use_case: form.elements.use_case.value || null, vendor: form.elements.vendor.value || null,
            include_legacy: form.elements.include_legacy.value === "1", model_floor: modelFloor()};
  }
  function writeQuery() {
    var q = new URLSearchParams();
    names.forEach(function (name) {
      var value = form.elements[name].value;
      if (value !== "" && !((name === "hours_per_week" || name === "kwh_price") && value === key(data.defaults[name]))) {
        q.set(name, value);
      }
    });
    var text = q.toString();
    try { history.replaceState(null, "", text ? "?" + text : window.location.pathname); } catch (e) { /* a file: URL may refuse */ }
  }

  // --- showing --------------------------------------------------------------------------------------
  function ageFlag(card) {
    if (card.price_tier === "older" || card.stale) { return " <span class=\"age-flag\">verify: " + esc(card.price_age) + " old</span>"; }
    return "";
  }
  function label(c) { return (c.gpus > 1 ? c.gpus + "x " : "") + c.model; }
  function deciding(name, c) {
    if (name === "fastest") { return c.throughput.toFixed(2) + "x " + data.reference_gpu.replace(/^GeForce /, ""); }
    if (name === "best_value") { return c.value.toFixed(2) + " speed per $1k"; }
    return usd(c.cost_usd);
  }

  function showAnswers(notes) {
    var given = inputs(), q = queryOf(given), found = choose(A.table, q), picked = {};
    // The memory field shows the floor that applies when left empty: the use case's minimum where it binds.
    var applied = floorOf({min_memory: null, use_case: given.use_case, model_floor: given.model_floor});
    document.getElementById("in-min_memory").placeholder = applied === null ? "any" :
      applied + (given.use_case && applied === A.use_cases[given.use_case].min_memory_gb ? " (" + given.use_case + " minimum)" : " (default)");
    ["fastest", "best_value", "cheapest"].forEach(function (name) {
      var slot = document.querySelector('[data-answer="' + name + '"]'), c = found[name];
      slot.classList.remove("stale", "older");
      if (!c) {
        slot.setAttribute("data-model", "");
        slot.setAttribute("data-gpus", "");
        slot.querySelector(".model").textContent = "none";
        ["decides", "price", "left", "caveats", "reason"].forEach(function (k) { slot.querySelector("." + k).textContent = ""; });
        return;
      }
      picked[c.model] = true;
      slot.setAttribute("data-model", c.model);
      slot.setAttribute("data-gpus", String(c.gpus));
      if (c.stale) { slot.classList.add("stale"); }
      if (c.price_tier === "older") { slot.classList.add("older"); }
      slot.querySelector(".model").textContent = label(c);
      slot.querySelector(".decides").textContent = deciding(name, c);
      slot.querySelector(".price").innerHTML = usd(c.cost_usd) + (c.gpus > 1 ? " (" + usd(c.price_usd) + " a card)" : "") +
        " · " + esc(c.price_kind) + " (" + c.price_n + " listings), as of " + esc(c.price_as_of) + " · " +
        esc(c.price_source || "source unknown") + ageFlag(c) + "<br><span class=\"small\">speed " + c.throughput.toFixed(2) +
        "x, " + esc(c.speed_evidence || c.perf_source) + " (" + esc(c.perf_precision) + "); " +
        (c.memory_gb == null ? "memory unknown" : c.memory_gb + " GB" + (c.gpus > 1 ? " a card" : "")) + "</span>";
      slot.querySelector(".left").textContent = usd(q.budget_usd - c.cost_usd) + " of the budget left";
      // The setup's own caveats as recommend prints them under it: scaling, build, power, stack, price's age.
      slot.querySelector(".caveats").innerHTML = c.own.map(function (t) { return "<li>" + esc(A.texts[t]) + "</li>"; }).join("");
      slot.querySelector(".reason").textContent = "";
    });
    var why = document.querySelector("#answers .why"), none = !found.fastest;
    why.hidden = !none;
    why.textContent = none ? "Nothing that meets these inputs fits " + usd(q.budget_usd) +
      (q.card_floor_gb !== null ? " with at least " + q.card_floor_gb + " GB a card" : "") + "." : "";
    var floorWords = given.use_case ? [A.use_cases[given.use_case].words] : [];
    if (given.model_floor !== null) {
      floorWords.push("fine-tuning a model of " + form.elements.model_params.value.trim() + " parameters by " +
        form.elements.method.value + " needs " + given.model_floor + " GB a card" +
        (q.max_gpus > 1 ? ", sharded across 2 to " + q.max_gpus + " cards " + q.memory_by_gpus.slice(1, q.max_gpus).join(", ") + " GB a card (FSDP, ZeRO-3)" : "") +
        " (recommend --model-params, --method)");
    }
    document.querySelector("#answers .notes").textContent = notes.concat(floorWords).join(" · ");
    var budget = q.budget_usd, floor = q.card_floor_gb || 0, vendor = given.vendor;
    document.querySelectorAll("#frontier .mark").forEach(function (mark) {
      var model = mark.getAttribute("data-model"), memory = parseFloat(mark.getAttribute("data-memory") || "0");
      var out = parseFloat(mark.getAttribute("data-price")) > budget || memory < floor ||
        (vendor && mark.getAttribute("data-vendor") !== vendor);
      mark.classList.toggle("picked", !!picked[model]);
      mark.classList.toggle("out", out && !picked[model]);
    });
    document.querySelectorAll(".history-of").forEach(function (fig) { fig.hidden = !picked[fig.getAttribute("data-model")]; });
    showRanking(q);
  }

  // The ranking table follows the filters: the first rows whose card meets the floor, vendor and builds.
  function showRanking(q) {
    var wrap = document.querySelector("#ranking .table-wrap"), limit = parseInt(wrap.getAttribute("data-rows"), 10), shown = 0, hidden = 0;
    wrap.querySelectorAll("tbody tr").forEach(function (tr) {
      var ok = !(q.card_floor_gb !== null && parseFloat(tr.getAttribute("data-memory")) < q.card_floor_gb - TOLERANCE) &&
        !(q.vendor && tr.getAttribute("data-vendor").toLowerCase() !== q.vendor.toLowerCase()) &&
        !(tr.getAttribute("data-legacy") === "1" && !q.include_legacy);
      if (!ok) { hidden += 1; }
      tr.hidden = !ok || shown >= limit;
      if (ok) { shown += 1; }
    });
    document.querySelector("#ranking .ranking-filter").textContent = hidden ?
      hidden + " card(s) not shown: under " + (q.card_floor_gb || 0) + " GB, of another vendor or legacy builds only." : "";
  }

  // Rent or buy: answered at the page's steps at or below the asked budget and memory.
  function step(list, value) {
    var best = 0;
    for (var i = 0; i < list.length; i++) { if (list[i] !== null && list[i] <= value) { best = i; } }
    return best;
  }
  function showRent() {
    var box = document.querySelector(".rent-answer");
    if (!R.answers.length) { box.innerHTML = "<p class=\"small\">No rental prices in the warehouse: rent or buy needs them.</p>"; return; }
    var given = inputs(), d = R.dims;
    var at = [step(d.budget, given.budget), given.min_memory === null ? 0 : step(d.min_memory, given.min_memory),
              Math.max(0, d.use_case.indexOf(given.use_case)),
              Math.max(0, d.hours_per_week.map(String).indexOf(form.elements.hours_per_week.value)),
              Math.max(0, d.kwh_price.map(String).indexOf(form.elements.kwh_price.value))];
    var sizes = [d.budget.length, d.min_memory.length, d.use_case.length, d.hours_per_week.length, d.kwh_price.length];
    var index = 0;
    for (var i = 0; i < at.length; i++) { index = index * sizes[i] + at[i]; }
    var p = R.answers[R.index[index]];
    function opt(i) { return i === null ? null : R.options[i]; }
    var r = {verdict: p[0], buy: opt(p[1]), rent: opt(p[2]), rent_over_budget: opt(p[3]), break_even_hours_per_week: p[4],
             assumptions: R.texts[p[5]], notes: p[6].map(function (t) { return R.texts[t]; })};
    var lines = [];
    if (r.verdict) {
      lines.push("<p class=\"verdict\">" + (r.verdict === "buy" ? "Buy" : "Rent") + " for " + form.elements.hours_per_week.value +
        " h a week</p>");
    } else { lines.push("<p class=\"verdict\">Neither a used card nor a cloud card fits.</p>"); }
    lines.push("<p class=\"small\">Rent or buy is answered for a budget of " + usd(d.budget[at[0]]) + (at[1] ? " and " + d.min_memory[at[1]] + " GB" : "") + ".</p>");
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
