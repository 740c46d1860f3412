// The page's only script besides htmx: 4xx answers are readable fragments (swap them),
// every htmx request carries the page's CSRF token (its <meta name="csrf-token">),
// drag-and-drop onto the upload zone submits the form.
htmx.config.responseHandling = [
  { code: "204", swap: false },
  { code: "[23]..", swap: true },
  { code: "4..", swap: true, error: false },
  { code: "...", swap: false, error: true },
];

document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta && meta.content) event.detail.headers["X-CSRF-Token"] = meta.content;
});

document.addEventListener("DOMContentLoaded", function () {
  var zone = document.getElementById("drop-zone");
  if (!zone) return;
  var input = zone.querySelector("input[type=file]");
  var form = zone.closest("form");
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (event) {
      event.preventDefault();
      zone.classList.add("over");
    });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function () { zone.classList.remove("over"); });
  });
  zone.addEventListener("drop", function (event) {
    event.preventDefault();
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    input.files = event.dataTransfer.files;
    htmx.trigger(form, "submit");
  });
  input.addEventListener("change", function () {
    if (input.files.length) htmx.trigger(form, "submit");
  });
});
