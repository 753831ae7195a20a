"""The inline script of `timeline.html` (engine/observe/timeline.py), kept apart for readability.

It reads the JSON in `#run-data`, draws an SVG with one row per worker and one
`<g class="task">` per task (a rectangle per phase), shows a task's details on
hover, and zooms (wheel, buttons) and pans (drag) the time axis. Plain DOM
calls only: the page must work offline.
"""

SCRIPT = r"""
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("run-data").textContent);
  var PHASE_NAMES = data.phase_names;
  var ROW = 24, LEFT = 170, TOP = 26, RIGHT = 10;
  var end = Math.max(data.t1, 1e-6);
  data.tasks.forEach(function (t) { end = Math.max(end, t.end); });
  var view = [0, end];
  var box = document.getElementById("timeline");
  var tip = document.getElementById("tip");
  var width = Math.max(600, box.clientWidth || 1000);
  var height = TOP + ROW * data.rows.length + 4;

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }
  function x(seconds) { return LEFT + (seconds - view[0]) / (view[1] - view[0]) * (width - LEFT - RIGHT); }
  function secondsAt(px) { return view[0] + (px - LEFT) / (width - LEFT - RIGHT) * (view[1] - view[0]); }
  function fmt(seconds) { return seconds === null ? "?" : seconds.toFixed(3) + " s"; }

  var legend = document.getElementById("legend");
  Object.keys(PHASE_NAMES).forEach(function (phase) {
    var item = document.createElement("span");
    var swatch = document.createElement("i");
    swatch.className = "swatch " + phase;
    item.appendChild(swatch);
    item.appendChild(document.createTextNode(PHASE_NAMES[phase]));
    legend.appendChild(item);
  });

  var svg = el("svg", {width: width, height: height, id: "timeline-svg"}, box);
  var axis = el("g", {"class": "axis"}, svg);
  var clip = el("clipPath", {id: "plot-area"}, el("defs", {}, svg));
  el("rect", {x: LEFT, y: 0, width: width - LEFT - RIGHT, height: height}, clip);
  data.rows.forEach(function (name, i) {
    el("rect", {x: 0, y: TOP + i * ROW, width: width, height: ROW, fill: i % 2 ? "#fafafa" : "#f0f0f0"}, svg);
    el("text", {x: 4, y: TOP + i * ROW + 16, "class": "row-label"}, svg).textContent = name;
  });
  var plot = el("g", {"clip-path": "url(#plot-area)", "class": "tasks"}, svg);
  var segments = [];
  data.tasks.forEach(function (t) {
    var group = el("g", {"class": "task" + (t.ok ? "" : " failed"), id: "task-" + t.id,
                         "data-task": t.id, "data-label": t.label}, plot);
    var y = TOP + t.row * ROW;
    t.phases.forEach(function (p) {
      var wait = p[0] === "wait";
      var rect = el("rect", {"class": "seg " + p[0], "data-phase": p[0],
                             y: wait ? y + 17 : y + 3, height: wait ? 5 : 13}, group);
      segments.push([rect, p[1], p[2]]);
    });
    el("title", {}, group).textContent = t.label + " #" + t.id;
    group.addEventListener("mousemove", function (event) { showTip(t, event); });
    group.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  });

  function showTip(t, event) {
    var lines = ["task " + t.id + " " + t.label + (t.ok ? "" : "  (FAILED)"), "kind: " + t.kind,
                 "command: " + t.command, "worker: " + data.rows[t.row],
                 "submit: " + fmt(t.submit) + "   start: " + fmt(t.start) + "   end: " + fmt(t.end)];
    t.phases.forEach(function (p) { lines.push(PHASE_NAMES[p[0]] + ": " + fmt(p[2] - p[1])); });
    if (t.bytes_in !== null || t.bytes_out !== null) {
      lines.push("bytes in: " + (t.bytes_in === null ? "?" : t.bytes_in) +
                 "   bytes out: " + (t.bytes_out === null ? "?" : t.bytes_out));
    }
    tip.textContent = lines.join("\n");
    tip.style.display = "block";
    tip.style.left = (event.clientX + 12) + "px";
    tip.style.top = (event.clientY + 12) + "px";
  }

  function drawAxis() {
    while (axis.firstChild) axis.removeChild(axis.firstChild);
    var span = view[1] - view[0];
    var step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    if (span / step > 20) step *= 5; else if (span / step > 10) step *= 2;
    for (var s = Math.ceil(view[0] / step) * step; s <= view[1]; s += step) {
      el("line", {x1: x(s), x2: x(s), y1: TOP - 4, y2: height, stroke: "#ddd"}, axis);
      el("text", {x: x(s) + 2, y: TOP - 8, "class": "tick"}, axis).textContent =
        s.toFixed(Math.max(0, -Math.floor(Math.log10(step)))) + " s";
    }
  }
  function redraw() {
    segments.forEach(function (seg) {
      seg[0].setAttribute("x", x(seg[1]));
      seg[0].setAttribute("width", Math.max(0.5, x(seg[2]) - x(seg[1])));
    });
    drawAxis();
  }
  function zoom(factor, atSeconds) {
    var span = Math.min(end, Math.max(1e-6, (view[1] - view[0]) * factor));
    var share = (atSeconds - view[0]) / (view[1] - view[0]);
    var start = Math.min(Math.max(0, atSeconds - share * span), end - span);
    view = [start, start + span];
    redraw();
  }
  svg.addEventListener("wheel", function (event) {
    event.preventDefault();
    var px = event.clientX - svg.getBoundingClientRect().left;
    zoom(event.deltaY < 0 ? 0.8 : 1.25, px < LEFT ? view[0] : secondsAt(px));
  }, {passive: false});
  var dragFrom = null;
  svg.addEventListener("mousedown", function (event) { dragFrom = [event.clientX, view.slice()]; });
  window.addEventListener("mouseup", function () { dragFrom = null; });
  window.addEventListener("mousemove", function (event) {
    if (!dragFrom) return;
    var span = dragFrom[1][1] - dragFrom[1][0];
    var shift = (dragFrom[0] - event.clientX) / (width - LEFT - RIGHT) * span;
    var start = Math.min(Math.max(0, dragFrom[1][0] + shift), end - span);
    view = [start, start + span];
    redraw();
  });
  function middle() { return (view[0] + view[1]) / 2; }
  document.getElementById("zoom-in").addEventListener("click", function () { zoom(0.5, middle()); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoom(2, middle()); });
  document.getElementById("zoom-reset").addEventListener("click", function () { view = [0, end]; redraw(); });
  redraw();
  document.body.setAttribute("data-drawn-tasks", String(data.tasks.length));
})();
"""
