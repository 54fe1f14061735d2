/**
 * The app's one script, served at /static/app.js: plain ES2020 for the browser, no framework, no
 * build step. Every page works without it (forms post, the job page refreshes itself); it adds
 * drag and drop, a size check before a long upload, live filtering and live progress.
 * Kept in a module so the TypeScript build carries it into dist/; it uses no backticks.
 */
export const APP_SCRIPT = String.raw`
'use strict';
(function () {
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';

  function formatBytes(n) {
    if (n >= 1048576) return (Math.round(n / 104857.6) / 10) + ' MB';
    if (n >= 1024) return Math.round(n / 1024) + ' KB';
    return n + ' bytes';
  }

  // Forms that start work: one press is enough, a second would only queue the same work again.
  document.querySelectorAll('form[method="post"]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      var button = form.querySelector('button[type="submit"]');
      if (!button) return;
      window.setTimeout(function () {
        if (event.defaultPrevented) return;
        button.disabled = true;
        button.setAttribute('data-label', button.textContent);
        button.textContent = 'Working…';
      }, 0);
    });
  });
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    document.querySelectorAll('button[data-label]').forEach(function (button) {
      button.disabled = false;
      button.textContent = button.getAttribute('data-label');
    });
  });

  // Upload: drop zone, chosen file, size check.
  var uploadForm = document.querySelector('form.upload-form');
  if (uploadForm) {
    var input = uploadForm.querySelector('input[type="file"]');
    var zone = uploadForm.querySelector('[data-drop-zone]');
    var chosen = uploadForm.querySelector('[data-chosen]');
    var errorBox = uploadForm.querySelector('[data-upload-error]');
    var maxBytes = Number(uploadForm.getAttribute('data-max-bytes'));
    var maxLabel = uploadForm.getAttribute('data-max-label');
    var showError = function (text) {
      errorBox.textContent = text;
      errorBox.hidden = !text;
    };
    var checkFile = function () {
      var file = input.files && input.files[0];
      showError('');
      if (!file) { chosen.textContent = ''; return false; }
      chosen.textContent = 'Chosen: ' + file.name + ' (' + formatBytes(file.size) + ')';
      if (file.size > maxBytes) {
        showError(file.name + ' is ' + formatBytes(file.size) + ', more than the ' + maxLabel + ' this app accepts. Split the sheet into smaller files.');
        return false;
      }
      if (!/\.(csv|xlsx|tsv|txt)$/i.test(file.name)) {
        showError(file.name + ' is not a CSV or XLSX file. Save the sheet as .xlsx or .csv and try again.');
        return false;
      }
      return true;
    };
    input.addEventListener('change', checkFile);
    uploadForm.addEventListener('submit', function (event) {
      if (!checkFile()) { event.preventDefault(); input.focus(); }
    });
    ['dragenter', 'dragover'].forEach(function (type) {
      zone.addEventListener(type, function (event) { event.preventDefault(); zone.classList.add('is-dragging'); });
    });
    ['dragleave', 'dragend'].forEach(function (type) {
      zone.addEventListener(type, function () { zone.classList.remove('is-dragging'); });
    });
    zone.addEventListener('drop', function (event) {
      event.preventDefault();
      zone.classList.remove('is-dragging');
      var files = event.dataTransfer && event.dataTransfer.files;
      if (!files || files.length === 0) return;
      var transfer = new DataTransfer();
      transfer.items.add(files[0]);
      input.files = transfer.files;
      // Dropping is the user's "check this one": go straight on, as the button would.
      if (checkFile()) uploadForm.requestSubmit();
    });
  }

  // Verdict rows: live filter by status and text (one page of rows; longer sheets filter on the server).
  var filterForm = document.querySelector('[data-filter-form]');
  var table = document.querySelector('[data-rows-table]');
  if (filterForm && table) {
    var paged = filterForm.getAttribute('data-paged') === 'true';
    var countBox = document.querySelector('[data-filter-count]');
    var emptyBox = document.querySelector('[data-filter-empty]');
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    var applyFilter = function () {
      var show = (filterForm.querySelector('input[name="show"]:checked') || { value: 'all' }).value;
      var q = filterForm.querySelector('input[name="q"]').value.trim().toLowerCase();
      var visible = 0;
      rows.forEach(function (row, i) {
        var status = row.getAttribute('data-status');
        var ok = show === 'all' || (show === 'warnings' ? row.getAttribute('data-warn') === '1' : status === show);
        if (ok && q) ok = texts[i].indexOf(q) !== -1;
        row.hidden = !ok;
        if (ok) visible++;
      });
      countBox.textContent = 'Showing ' + visible + (visible === 1 ? ' row' : ' rows') + ' of ' + rows.length + '.';
      emptyBox.hidden = visible !== 0;
      var url = new URL(window.location.href);
      url.searchParams.set('show', show);
      if (q) url.searchParams.set('q', q); else url.searchParams.delete('q');
      url.searchParams.delete('page');
      window.history.replaceState(null, '', url.pathname + url.search);
    };
    if (!paged) {
      var timer = 0;
      filterForm.addEventListener('submit', function (event) { event.preventDefault(); applyFilter(); });
      filterForm.addEventListener('change', applyFilter);
      filterForm.querySelector('input[name="q"]').addEventListener('input', function () {
        window.clearTimeout(timer);
        timer = window.setTimeout(applyFilter, 150);
      });
    } else {
      filterForm.addEventListener('change', function () { filterForm.requestSubmit(); });
    }
  }

  // Job progress: poll the JSON twin of the page; reload once the job has finished for the full outcome.
  var job = document.querySelector('[data-job]');
  if (job && (job.getAttribute('data-state') === 'queued' || job.getAttribute('data-state') === 'running')) {
    var id = job.getAttribute('data-job');
    var bar = job.querySelector('[data-job-progress]');
    var message = job.querySelector('[data-job-message]');
    var lastAnnounced = -1;
    var failures = 0;
    var set = function (selector, text) {
      var el = job.querySelector(selector);
      if (el) el.textContent = text;
    };
    var formatEta = function (s) {
      if (s === null || s === undefined) return '';
      if (s < 60) return ', about ' + Math.max(1, Math.round(s)) + ' s left';
      var m = Math.round(s / 60);
      return m < 60 ? ', about ' + m + ' min left' : ', about ' + Math.floor(m / 60) + ' h ' + (m % 60) + ' min left';
    };
    var poll = function () {
      fetch('/jobs/' + id + '/progress', { headers: { accept: 'application/json', 'x-csrf-token': csrf }, cache: 'no-store' })
        .then(function (response) {
          // The session ended (idle, logged out, account disabled): the page itself goes to the login.
          if (response.status === 401) { window.location.reload(); return null; }
          if (!response.ok) throw new Error('HTTP ' + response.status);
          return response.json();
        })
        .then(function (p) {
          if (p === null) return;
          failures = 0;
          if (p.state !== 'queued' && p.state !== 'running') { window.location.reload(); return; }
          bar.max = Math.max(1, p.total);
          bar.value = p.done;
          bar.textContent = p.percent + '%';
          set('[data-job-done]', String(p.done));
          set('[data-job-total]', String(p.total));
          set('[data-job-eta]', p.done < p.total ? formatEta(p.etaSeconds) : '');
          Object.keys(p.counts).forEach(function (status) { set('[data-progress-count="' + status + '"]', String(p.counts[status])); });
          // The status line is a live region: speak at each tenth, not at every order.
          var tenth = Math.floor(p.percent / 10);
          if (p.cancelRequestedBy) { if (lastAnnounced !== 'cancel') { lastAnnounced = 'cancel'; message.textContent = p.message; } }
          else if (tenth !== lastAnnounced) { lastAnnounced = tenth; message.textContent = p.message; }
          window.setTimeout(poll, 500);
        })
        .catch(function () {
          failures++;
          message.textContent = 'Lost contact with the order-batch server; trying again…';
          window.setTimeout(poll, Math.min(10000, 500 * Math.pow(2, failures)));
        });
    };
    window.setTimeout(poll, 500);
  }
  // Correcting a bad cell in the verdict table: the order is checked again at once, then the page shows it.
  document.querySelectorAll('button[data-edit-row]').forEach(function (button) {
    button.addEventListener('click', function () {
      var cell = button.closest('td');
      if (!cell || cell.querySelector('form.cell-form')) return;
      var form = document.createElement('form');
      form.className = 'cell-form';
      var input = document.createElement('input');
      input.type = 'text';
      input.value = button.getAttribute('data-edit-value') || '';
      input.setAttribute('aria-label', button.getAttribute('aria-label') || 'Corrected value');
      var save = document.createElement('button');
      save.type = 'submit';
      save.className = 'button';
      save.textContent = 'Save';
      var status = document.createElement('span');
      status.className = 'cell-status';
      status.setAttribute('role', 'status');
      form.appendChild(input);
      form.appendChild(save);
      form.appendChild(status);
      cell.appendChild(form);
      button.hidden = true;
      input.focus();
      input.select();
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        save.disabled = true;
        status.textContent = 'Checking…';
        var id = window.location.pathname.split('/')[2];
        fetch('/uploads/' + id + '/cells', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrf },
          body: JSON.stringify({ row: Number(button.getAttribute('data-edit-row')), col: Number(button.getAttribute('data-edit-col')), value: input.value })
        })
          .then(function (response) {
            return response.json().then(function (body) {
              if (!response.ok) throw new Error(body.message || ('HTTP ' + response.status));
              return body;
            });
          })
          .then(function () { window.location.reload(); })
          .catch(function (error) {
            save.disabled = false;
            status.textContent = 'Not saved: ' + error.message;
          });
      });
      input.addEventListener('keydown', function (event) {
        if (event.key !== 'Escape') return;
        form.remove();
        button.hidden = false;
        button.focus();
      });
    });
  });

  // The mapping step: the required fields not covered yet, as columns, joins and constants are chosen.
  var mappingForm = document.querySelector('form[data-mapping-form]');
  if (mappingForm) {
    var required = (mappingForm.getAttribute('data-required') || '').split(' ');
    var missingBox = mappingForm.querySelector('[data-missing-box]');
    var missingText = mappingForm.querySelector('[data-missing]');
    var hasConstant = { sourceOfSale: true, customerLineItemId: true };
    var refresh = function () {
      var chosen = {};
      mappingForm.querySelectorAll('select[data-field-choice]').forEach(function (select) { if (select.value) chosen[select.value] = true; });
      var missing = required.filter(function (field) { return field && !chosen[field] && !hasConstant[field]; });
      missingText.textContent = missing.join(', ');
      missingBox.hidden = missing.length === 0;
    };
    mappingForm.addEventListener('change', refresh);
  }
})();
`;
