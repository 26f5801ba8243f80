/* termqa report: filters, search, sortable tables. Vanilla JS; the page is complete without it.
   Allowed by the page's CSP through the sha256 hash of this exact text. */
(function () {
  'use strict';
  var errors = [];
  var violations = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message || e.type)); });
  document.addEventListener('securitypolicyviolation', function (e) {
    violations.push(e.violatedDirective + ' ' + (e.blockedURI || ''));
  });

  function main() {
    function $(sel, root) { return (root || document).querySelector(sel); }
    function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
    function fold(s) {
      // Case- and accent-insensitive search ("reglee" finds "réglée").
      return String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
    }

    var data = JSON.parse($('#termqa-data').textContent);
    var occs = $$('[data-occ]');
    var blocks = $$('[data-concept-block]');
    var groups = $$('[data-group]');
    var names = {};
    data.documents.forEach(function (d) { names[d.key] = d.name; });
    data.concepts.forEach(function (c) { names[c.key] = c.name + ' ' + c.id; });
    // Search text of each occurrence: what it shows plus its concept and document names.
    var hay = occs.map(function (el) {
      return fold(el.textContent + ' ' + names[el.dataset.concept] + ' ' + names[el.dataset.doc]);
    });

    // ------------------------------------------------------------------ filters
    var form = $('#filters');
    var fLabel = $('#f-label'), fDoc = $('#f-doc'), fConcept = $('#f-concept'), fQ = $('#f-q');
    var status = $('#f-status'), none = $('#f-none');
    data.labels.forEach(function (l) {
      fLabel.add(new Option(l.code + (l.name !== l.code ? ' – ' + l.name : '') + ' (' + l.count + ')', l.code));
    });
    data.documents.forEach(function (d) { fDoc.add(new Option(d.name, d.key)); });
    data.concepts.forEach(function (c) { fConcept.add(new Option(c.name, c.key)); });

    function state() {
      var outcomes = {};
      $$('input[name=outcome]', form).forEach(function (i) { outcomes[i.value] = i.checked; });
      return { outcomes: outcomes, label: fLabel.value, doc: fDoc.value, concept: fConcept.value,
               q: fold(fQ.value.trim()) };
    }

    function apply() {
      var s = state();
      var active = s.label || s.doc || s.concept || s.q ||
        Object.keys(s.outcomes).some(function (k) { return !s.outcomes[k]; });
      var shown = 0;
      occs.forEach(function (el, i) {
        var ok = s.outcomes[el.dataset.outcome] !== false &&
          (!s.label || el.dataset.label === s.label) &&
          (!s.doc || el.dataset.doc === s.doc) &&
          (!s.concept || el.dataset.concept === s.concept) &&
          (!s.q || hay[i].indexOf(s.q) !== -1);
        el.classList.toggle('filtered-out', !ok);
        if (ok) { shown += 1; }
      });
      groups.forEach(function (g) {
        var any = g.querySelector('[data-occ]:not(.filtered-out)');
        g.classList.toggle('filtered-out', Boolean(active && !any));
        if (active && any && s.q) { g.open = true; }
      });
      blocks.forEach(function (b) {
        var any = b.querySelector('[data-occ]:not(.filtered-out)');
        b.classList.toggle('filtered-out', Boolean(active && !any));
        $$('details.conf', b).forEach(function (d) {
          var rows = $$('[data-occ]', d);
          var visible = rows.filter(function (r) { return !r.classList.contains('filtered-out'); });
          d.classList.toggle('filtered-out', Boolean(active && !visible.length));
          if (active && visible.length && (s.q || !s.outcomes.justified)) { d.open = true; }
        });
      });
      status.textContent = active
        ? 'Showing ' + shown + ' of ' + occs.length + ' occurrences.'
        : 'All ' + occs.length + ' occurrences (conforming ones are folded under each concept).';
      none.hidden = !(active && shown === 0);
      return shown;
    }

    // ------------------------------------------------------------------ filter state in the URL
    // "#filter?o=error.unjustified&l=A4&d=d0&c=k1&q=text": a link that opens the same view.
    var HASH = '#filter?';
    function toHash() {
      var s = state(), p = [];
      var off = Object.keys(s.outcomes).filter(function (k) { return !s.outcomes[k]; });
      if (off.length) {
        p.push('o=' + Object.keys(s.outcomes).filter(function (k) { return s.outcomes[k]; }).join('.'));
      }
      if (s.label) { p.push('l=' + encodeURIComponent(s.label)); }
      if (s.doc) { p.push('d=' + encodeURIComponent(s.doc)); }
      if (s.concept) { p.push('c=' + encodeURIComponent(s.concept)); }
      if (fQ.value.trim()) { p.push('q=' + encodeURIComponent(fQ.value.trim())); }
      return p.length ? HASH + p.join('&') : '';
    }
    function saveHash() {
      var h = toHash();
      if (h === location.hash || (!h && location.hash.indexOf(HASH) !== 0)) { return; }
      try {
        history.replaceState(null, '', h || location.pathname + location.search);
      } catch (e) {
        // some browsers refuse history changes on file:// pages; the filters still work
      }
    }
    function fromHash() {
      if (location.hash.indexOf(HASH) !== 0) { return false; }
      var params = {};
      location.hash.slice(HASH.length).split('&').forEach(function (kv) {
        var i = kv.indexOf('=');
        if (i > 0) { params[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); }
      });
      form.reset();
      if (params.o !== undefined) {
        var on = params.o.split('.');
        $$('input[name=outcome]', form).forEach(function (b) { b.checked = on.indexOf(b.value) !== -1; });
      }
      function pick(sel, value) {
        if (value && $$('option', sel).some(function (o) { return o.value === value; })) { sel.value = value; }
      }
      pick(fLabel, params.l); pick(fDoc, params.d); pick(fConcept, params.c);
      fQ.value = params.q || '';
      return true;
    }

    function changed() { apply(); saveHash(); }
    form.addEventListener('input', changed);
    form.addEventListener('change', changed);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.addEventListener('reset', function () { setTimeout(changed, 0); });

    function reset() { form.reset(); apply(); }

    var copyBtn = $('#copy-todo');
    if (copyBtn) {
      copyBtn.addEventListener('click', function () {
        var ta = $('#todo-text');
        ta.focus();
        ta.select();
        var done = function () { copyBtn.textContent = 'Copied'; };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(ta.value).then(done, function () {
            if (document.execCommand('copy')) { done(); }
          });
        } else if (document.execCommand('copy')) { done(); }
      });
    }

    $$('[data-filter-label]').forEach(function (b) {
      b.addEventListener('click', function () {
        reset();
        fLabel.value = b.dataset.filterLabel;
        changed();
        $('#concepts').scrollIntoView();
        fLabel.focus({ preventScroll: true });
      });
    });

    // ------------------------------------------------------------------ anchors
    function reveal() {
      if (fromHash()) { apply(); return; }
      var id = decodeURIComponent(location.hash.slice(1));
      var el = id && document.getElementById(id);
      if (!el) { return; }
      if (el.closest('.filtered-out')) { reset(); }
      var d = el.closest('details');
      if (d) { d.open = true; }
      el.scrollIntoView();
    }
    window.addEventListener('hashchange', reveal);

    // ------------------------------------------------------------------ sortable tables
    function cellKey(td) {
      if (!td) { return ''; }
      if (td.hasAttribute('data-sort')) {
        var v = td.getAttribute('data-sort');
        return v === '' ? null : parseFloat(v);
      }
      var t = td.textContent.trim();
      var n = t.replace(/[%\s,]/g, '');
      return /^-?\d+(\.\d+)?$/.test(n) ? parseFloat(n) : fold(t);
    }
    function compare(a, b) {
      if (a === b) { return 0; }
      if (a === null || a === '—') { return 1; }   // missing values last, whatever the direction
      if (b === null || b === '—') { return -1; }
      if (typeof a === 'number' && typeof b === 'number') { return a - b; }
      return String(a).localeCompare(String(b));
    }
    $$('table.sortable').forEach(function (table) {
      var heads = $$('thead th', table);
      heads.forEach(function (th, col) {
        if (!th.textContent.trim() || th.hasAttribute('data-nosort')) { return; }
        var btn = document.createElement('button');
        btn.type = 'button';
        btn.className = 'sort';
        while (th.firstChild) { btn.appendChild(th.firstChild); }
        th.appendChild(btn);
        btn.addEventListener('click', function () {
          var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
          heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
          th.setAttribute('aria-sort', dir);
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows);
          var keyed = rows.map(function (r, i) { return { r: r, k: cellKey(r.cells[col]), i: i }; });
          keyed.sort(function (x, y) {
            if (x.k === null || y.k === null) { return compare(x.k, y.k) || x.i - y.i; }
            var c = compare(x.k, y.k);
            return (dir === 'ascending' ? c : -c) || x.i - y.i;
          });
          keyed.forEach(function (x) { body.appendChild(x.r); });
        });
      });
    });

    // ------------------------------------------------------------------ print: unfold everything
    var folded = [];
    window.addEventListener('beforeprint', function () {
      folded = $$('details:not([open])');
      folded.forEach(function (d) { d.open = true; });
    });
    window.addEventListener('afterprint', function () {
      folded.forEach(function (d) { d.open = false; });
      folded = [];
    });

    $$('.js-only').forEach(function (el) { if (el.id !== 'f-none') { el.hidden = false; } });
    apply();
    reveal();

    // ------------------------------------------------------------------ self-test (#selftest)
    // Used by the browser test: applies each filter and writes the visible counts into the page.
    if (location.hash === '#selftest') {
      var out = { total: occs.length, initial: apply(), outcome: {}, label: {}, doc: {}, concept: {},
                  page_height: document.documentElement.scrollHeight,
                  blocks_visible_error_only: 0 };
      var boxes = $$('input[name=outcome]', form);
      data.outcomes.forEach(function (o) {
        reset();
        boxes.forEach(function (b) { b.checked = b.value === o.key; });
        out.outcome[o.key] = apply();
        if (o.key === 'error') {
          out.blocks_visible_error_only = blocks.filter(function (b) {
            return !b.classList.contains('filtered-out');
          }).length;
        }
      });
      data.labels.forEach(function (l) { reset(); fLabel.value = l.code; out.label[l.code] = apply(); });
      data.documents.forEach(function (d) { reset(); fDoc.value = d.key; out.doc[d.name] = apply(); });
      data.concepts.forEach(function (c) { reset(); fConcept.value = c.key; out.concept[c.id] = apply(); });
      out.search = {};
      ['garniture', 'REGLEE', '\x3cscript>alert(1)\x3c/script>', 'u9"><b>', 'zzz-nothing'].forEach(function (q) {
        reset(); fQ.value = q; out.search[q] = apply();
      });
      out.none_message_shown = !$('#f-none').hidden;
      reset();
      var docTable = $('#doc-table');
      if (docTable) {
        var scoreBtn = $$('thead th', docTable)[5].querySelector('button.sort');
        scoreBtn.click();
        out.docs_by_score_asc = $$('tbody tr', docTable).map(function (r) { return r.cells[0].textContent; });
        scoreBtn.click();
        out.docs_by_score_desc = $$('tbody tr', docTable).map(function (r) { return r.cells[0].textContent; });
      }
      out.sort_buttons = $$('button.sort').length;
      out.scripts = $$('script').length;
      out.imgs = $$('img').length;
      out.bold = $$('main b').map(function (b) { return b.textContent; }).filter(function (t) { return t === 'x' || t === 'de'; });
      out.pwned = window.__pwned || null;
      out.hostile_text = ['\x3cscript>alert(1)\x3c/script>', '"\x3e\x3cimg src=x onerror=alert(1)\x3e',
                          '\x3c/script>\x3cscript>window.__pwned=1\x3c/script>'].map(function (t) {
        return document.body.textContent.indexOf(t) !== -1;
      });
      // the URL hash round trip: set filters, write the hash, reset, read it back
      function roundTrip(on, label, q) {
        reset();
        boxes.forEach(function (b) { b.checked = on.indexOf(b.value) !== -1; });
        fLabel.value = label;
        fQ.value = q;
        var before = apply();
        var hash = toHash();
        reset();
        history.replaceState(null, '', location.pathname + hash);  // as if the link was opened
        fromHash();
        return { hash: hash, before: before, shown: apply(), q: fQ.value, label: fLabel.value,
                 outcomes: boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.value; }) };
      }
      out.hash_trips = [roundTrip(['error', 'unjustified'], '', ''),
                        roundTrip(['conforming', 'justified', 'unjustified', 'error', 'unjudged'],
                                  data.labels.length ? data.labels[0].code : '', ''),
                        roundTrip(['conforming', 'justified', 'unjustified', 'error', 'unjudged'], '', 'REGLEE'),
                        roundTrip(['error'], '', 'é & x=1#?')];
      reset();
      out.groups = groups.length;
      var g0 = groups[0];
      if (g0) {
        out.group_closed_height = g0.getBoundingClientRect().height;
        g0.open = true;
        out.group_open_height = g0.getBoundingClientRect().height;
        g0.open = false;
      }
      out.banner = ($('.banner .word') || {}).textContent || null;
      // layout: nothing wider than the viewport, nothing sticking out of its card
      var vw = document.documentElement.clientWidth;
      out.viewport = vw;
      out.page_overflow = document.documentElement.scrollWidth - vw;
      $$('details').forEach(function (d) { d.dataset.wasOpen = d.open ? '1' : ''; d.open = true; });
      out.overflowing = [];
      $$('body *').forEach(function (el) {
        if (el.closest('.scroll') && !el.classList.contains('scroll')) { return; }
        var r = el.getBoundingClientRect();
        if (r.width === 0) { return; }
        var name = (el.tagName + '.' + String(el.className)).slice(0, 60);
        var box = el.parentElement.closest('.panel, .concept, .banner, .warnings, details.grp, section, .wrap');
        var limit = box ? box.getBoundingClientRect().right : vw;
        if (r.right > Math.min(limit, vw) + 1) {
          out.overflowing.push(name + ' sticks out ' + Math.round(r.right - Math.min(limit, vw)));
        }
        // text wider than its own box (a long token, a path) overflows without widening the box
        if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 &&
            getComputedStyle(el).overflowX === 'visible') {
          out.overflowing.push(name + ' content ' + (el.scrollWidth - el.clientWidth));
        }
      });
      out.overflowing = out.overflowing.slice(0, 20);
      $$('details').forEach(function (d) { d.open = d.dataset.wasOpen === '1'; });
      history.replaceState(null, '', location.pathname + '#selftest');
      out.controls_visible = !form.hidden;
      out.errors = errors;
      out.violations = violations;
      var pre = $('#selftest-out');
      pre.textContent = JSON.stringify(out);
      pre.setAttribute('data-done', '1');
    }
  }

  try {
    main();
  } catch (e) {
    // Leave a trace the browser test (and a curious reader of the DOM) can see.
    var pre = document.getElementById('selftest-out');
    if (pre) { pre.textContent = JSON.stringify({ fatal: String(e && e.stack || e), errors: errors }); }
    throw e;
  }
}());
