// The evidence of a scan value (the value panel): zoom with the buttons or the wheel, pan by
// dragging. Listens on the document once, so panels swapped in by htmx need nothing more;
// loaded by the panel's partial, hence the guard against a second load.
(function () {
  if (window.armEvidence) return;
  window.armEvidence = true;
  var STEP = 1.5, MIN = 1, MAX = 12;

  function zoomOf(viewport) {
    return parseFloat(viewport.dataset.scale || "1");
  }

  function setZoom(viewport, zoom, cx, cy) {
    var inner = viewport.querySelector(".evidence-zoom");
    if (!inner) return;
    var old = zoomOf(viewport);
    zoom = Math.min(MAX, Math.max(MIN, zoom));
    // keep the point under (cx, cy) — the viewport's centre by default — where it was
    if (cx === undefined) { cx = viewport.clientWidth / 2; cy = viewport.clientHeight / 2; }
    var x = (viewport.scrollLeft + cx) / old, y = (viewport.scrollTop + cy) / old;
    viewport.dataset.scale = String(zoom);
    inner.style.width = zoom * 100 + "%";
    if (zoom > 1) sharpen(inner);
    viewport.scrollLeft = x * zoom - cx;
    viewport.scrollTop = y * zoom - cy;
  }

  // The page is first drawn at the screen's 108 dpi; enlarged, it is swapped once for its
  // 216-dpi rendering (data-sharp), so zoomed digits stay readable. Same aspect ratio, and the
  // box is in percent of the page, so nothing moves.
  function sharpen(inner) {
    var img = inner.querySelector("img[data-sharp]");
    if (!img) return;
    img.src = img.dataset.sharp;
    img.removeAttribute("data-sharp");
  }

  function centreOnBox(viewport) {
    var box = viewport.querySelector("#evidence-box");
    if (!box) return;
    var inner = viewport.querySelector(".evidence-zoom");
    var x = parseFloat(box.getAttribute("x")) + parseFloat(box.getAttribute("width")) / 2;
    var y = parseFloat(box.getAttribute("y")) + parseFloat(box.getAttribute("height")) / 2;
    viewport.scrollLeft = inner.offsetWidth * x / 100 - viewport.clientWidth / 2;
    viewport.scrollTop = inner.offsetHeight * y / 100 - viewport.clientHeight / 2;
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-zoom]");
    if (!button) return;
    var viewport = button.closest(".evidence-view").querySelector(".evidence-viewport");
    var how = button.dataset.zoom;
    if (how === "fit") setZoom(viewport, 1);
    else setZoom(viewport, zoomOf(viewport) * (how === "in" ? STEP : 1 / STEP));
    if (how === "in") centreOnBox(viewport);
  });

  document.addEventListener("wheel", function (event) {
    var viewport = event.target.closest && event.target.closest(".evidence-viewport");
    if (!viewport || !(event.ctrlKey || event.altKey)) return;
    event.preventDefault();
    var rect = viewport.getBoundingClientRect();
    var factor = event.deltaY < 0 ? STEP : 1 / STEP;
    setZoom(viewport, zoomOf(viewport) * factor, event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  var drag = null;
  document.addEventListener("pointerdown", function (event) {
    var viewport = event.target.closest && event.target.closest("[data-pan]");
    if (!viewport || event.button !== 0) return;
    drag = { viewport: viewport, x: event.clientX, y: event.clientY,
             left: viewport.scrollLeft, top: viewport.scrollTop };
    viewport.classList.add("panning");
    event.preventDefault();
  });
  document.addEventListener("pointermove", function (event) {
    if (!drag) return;
    drag.viewport.scrollLeft = drag.left - (event.clientX - drag.x);
    drag.viewport.scrollTop = drag.top - (event.clientY - drag.y);
  });
  document.addEventListener("pointerup", function () {
    if (drag) drag.viewport.classList.remove("panning");
    drag = null;
  });
})();
