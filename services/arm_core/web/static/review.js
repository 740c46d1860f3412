// The document page's keyboard (docs/review-page.md «Клавиши»), in a file of its own: the
// pages allow no inline script.
//   n / p     the next / previous doubt of the whole document (header fields, line codes,
//             values), opened with its value selected; on an ОСВ the next / previous failed
//             control sum (across pages of rows);
//   Enter     in the opened value: saves it — unchanged it is confirmed;
//   typing    on a cell or in the opened value: replaces the value;
//   Esc       leaves the input for its cell (and closes the «doubts left» question);
//   arrows    move between the cells of a table (only doubts are Tab stops).
(function () {
  "use strict";

  var opened = null; // the cell whose panel is open
  var typed = null; // what was typed on a cell, to replace the value once its panel is open

  function doubts() {
    return Array.prototype.slice.call(document.querySelectorAll("#doc-body [data-doubt]"));
  }

  function announce(text) {
    var message = document.getElementById("panel-message");
    if (message) message.textContent = text;
  }

  function isCell(element) {
    return !!element && element.classList && element.classList.contains("cell");
  }

  function inPanel(element) {
    return !!element && !!element.closest && !!element.closest("#panel");
  }

  function open(cell) {
    opened = cell;
    cell.focus();
    cell.click();
  }

  function step(forward) {
    var link = document.getElementById(forward ? "next-error" : "prev-error");
    if (!document.getElementById("grid")) {
      if (link) link.click();
      return;
    }
    var list = doubts();
    if (!list.length) {
      announce("Сомнительных значений не осталось.");
      return;
    }
    var from = inPanel(document.activeElement) ? opened : document.activeElement;
    var at = list.indexOf(from);
    var target;
    if (at >= 0) {
      target = list[(at + (forward ? 1 : list.length - 1)) % list.length];
    } else if (from && from !== document.body) {
      // The first doubt after (or the last before) the focused element, in page order.
      var after = list.filter(function (d) {
        return from.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING;
      });
      var before = list.filter(function (d) { return after.indexOf(d) < 0; });
      target = forward ? (after[0] || list[0]) : (before[before.length - 1] || list[list.length - 1]);
    } else {
      target = forward ? list[0] : list[list.length - 1];
    }
    open(target);
  }

  function move(cell, key) {
    var td = cell.closest("td");
    var tr = td && td.parentElement;
    if (!tr) return;
    var column = Array.prototype.indexOf.call(tr.cells, td);
    var found = null;
    if (key === "ArrowLeft" || key === "ArrowRight") {
      var cells = Array.prototype.slice.call(tr.querySelectorAll("button.cell"));
      found = cells[cells.indexOf(cell) + (key === "ArrowRight" ? 1 : -1)] || null;
    } else {
      var row = key === "ArrowDown" ? tr.nextElementSibling : tr.previousElementSibling;
      while (row && !found) {
        var other = row.cells[column];
        found = other ? other.querySelector("button.cell") : null;
        row = key === "ArrowDown" ? row.nextElementSibling : row.previousElementSibling;
      }
    }
    if (found) found.focus();
  }

  function leave() {
    var question = document.getElementById("doubts-left");
    if (question) {
      question.remove();
      var mark = document.getElementById("mark-reviewed");
      if (mark) mark.focus();
      return;
    }
    if (opened && document.body.contains(opened)) opened.focus();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var amountInput = target && (target.id === "value-input" || target.id === "code-input");
    var typing = target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) && !amountInput;
    if (event.key === "Escape") {
      leave();
      return;
    }
    if (typing) return;
    if (event.key === "n" || event.key === "p" || event.key === "т" || event.key === "з") {
      // n / p, and the same keys on a Russian layout (т / з)
      event.preventDefault();
      step(event.key === "n" || event.key === "т");
      return;
    }
    if (!isCell(target)) return;
    if (event.key.indexOf("Arrow") === 0) {
      event.preventDefault();
      move(target, event.key);
    } else if (event.key === "Enter") {
      opened = target;
    } else if (event.key.length === 1 && event.key !== " " && target.closest("#doc-body")) {
      event.preventDefault();
      typed = (typed || "") + event.key;
      if (opened !== target || !document.getElementById("value-input")) open(target);
      else fill();
    }
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (!target || !target.closest) return;
    var nav = target.closest("#next-doubt, #prev-doubt");
    if (nav) {
      step(nav.id === "next-doubt");
      return;
    }
    if (target.closest("#cancel-reviewed")) {
      leave();
      return;
    }
    var cell = target.closest("#doc-body button.cell");
    if (cell) opened = cell;
  });

  function fill() {
    var input = document.querySelector("#value-input, #field-input, #code-input");
    if (!input) return;
    input.focus();
    if (typed !== null) {
      input.value = typed;
      typed = null;
      input.setSelectionRange(input.value.length, input.value.length);
    } else {
      input.select();
    }
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (!target) return;
    if (target.id === "panel-content") {
      fill();
      return;
    }
    if (target.id === "panel-message") {
      // The «doubts left» question: the safe answer (back to the doubts) has the focus.
      var cancel = document.getElementById("cancel-reviewed");
      if (cancel) cancel.focus();
      return;
    }
    if (target.id === "doc-body" || (target.closest && target.closest("#doc-body"))) {
      // After a save the page focuses the next doubtful value: open it, ready to confirm.
      var next = document.querySelector("#doc-body button.cell[autofocus]");
      if (next && next.hasAttribute("data-doubt")) {
        open(next);
        announce("Сохранено. Следующее сомнение открыто.");
      }
    }
  });
})();
