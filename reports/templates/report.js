/* termqa report: filters, search, sortable tables, reviewer decisions, and the occurrences themselves
   (cards, folded rows, reference tables), made from the page's data when opened (reports/compact.py).
   Vanilla JS; without it the page still lists every problem, and says what it leaves out.
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
    $('#no-script').remove();  // it ran
    var blocks = $$('[data-concept-block]');
    var groups = $$('[data-group]');
    var names = {};
    data.documents.forEach(function (d) { names[d.key] = d.name; });
    data.concepts.forEach(function (c) { names[c.key] = c.name + ' ' + c.id; });
    // Every occurrence the filters count, with its search text (what it shows plus its concept and
    // document names). Both kinds are rows of the page's data (reports/compact.py), made elements
    // only when asked for: a flagged one is a card under its flag (its verdict and label are the
    // flag's), a conforming one a row under its rendering.
    var occs = [], byConcept = {};
    var FOLD = {}, CARD = {};  // a row's fields by name: their positions in a row of data.folded
    data.folded.fields.forEach(function (f, i) { FOLD[f] = i; });
    data.folded.card_fields.forEach(function (f, i) { CARD[f] = i; });
    var SEGS = data.folded.segments;
    groups.forEach(function (g) {
      var concept = g.closest('[data-concept-block]').dataset.conceptBlock;
      byConcept[concept] = byConcept[concept] || [];
      var cards = data.folded.cards[g.dataset.cards];
      g.recs = cards.rows.map(function (row) {
        var doc = 'd' + row[CARD.doc], seg = SEGS[row[CARD.seg]] || [row[CARD.source_text], row[CARD.target_text]];
        // its decide data (as decide_view.OCC_FIELDS), from the parts its flag's occurrences share
        var part = cards.parts[row[CARD.part]];
        data.decide.occ[String(row[CARD.k])] = [part[0], part[1], row[CARD.source_text], part[2], row[CARD.segment_key],
          cards.docs[String(row[CARD.doc])], row[CARD.unit], row[CARD.id_segment], row[CARD.id_document], part[3]];
        var ref = row[CARD.reference] || [];
        var rec = { el: null, group: g, card: row, k: String(row[CARD.k]), anchor: row[CARD.anchor],
                    own: row[CARD.own_anchor], outcome: g.dataset.outcome, label: g.dataset.label, doc: doc,
                    concept: concept,
                    hay: fold([row[CARD.penalty], whereText(row, CARD), seg[0], seg[1], row[CARD.reason] || '']
                      .concat(ref.filter(function (x) { return x !== null; })).join(' ') + ' ' + names[concept] +
                      ' ' + names[doc]) };
        occs.push(rec);
        byConcept[concept].push(rec);
        return rec;
      });
    });
    function whereText(row, F) {
      return names['d' + row[F.doc]] + ' · unit ' + row[F.unit] + (row[F.segment] ? ' · segment ' + row[F.segment] : '') + ' #';
    }
    var folds = [], foldedOf = {}, foldEls = {};
    $$('details[data-fold]').forEach(function (el) { foldEls[el.dataset.fold] = el; });
    Object.keys(data.folded.concepts).forEach(function (concept) {
      byConcept[concept] = byConcept[concept] || [];
      foldedOf[concept] = [];
      data.folded.concepts[concept].forEach(function (r, i) {
        var f = { el: foldEls[concept + '.' + i], target: r.target, recs: [] };
        folds.push(f);
        r.rows.forEach(function (row) {
          var doc = 'd' + row[FOLD.doc];
          var rec = { el: null, fold: f, row: row, k: String(row[FOLD.k]), anchor: row[FOLD.anchor],
                      own: row[FOLD.own_anchor], outcome: 'conforming', label: '', doc: doc, concept: concept,
                      hay: fold(whereText(row, FOLD) + ' ' + row[FOLD.source_text] + ' ' +
                                (r.target === null ? '—' : r.target) + ' ' + data.folded.reasons[row[FOLD.reason]] +
                                ' ' + names[concept] + ' ' + names[doc]) };
          f.recs.push(rec);
          byConcept[concept].push(rec);
          foldedOf[concept].push(rec);
          occs.push(rec);
          // its decide data (as decide_view.OCC_FIELDS), from the parts its rendering shares
          var docPart = r.docs[String(row[FOLD.doc])];
          data.decide.occ[String(row[FOLD.k])] = [r.concept, r.source_form, row[FOLD.source_text], r.target,
            row[FOLD.segment_key], docPart[0], row[FOLD.unit], row[FOLD.id_segment], docPart[1], r.id_project];
        });
      });
    });

    // ------------------------------------------------------------------ filters
    var form = $('#filters');
    var fLabel = $('#f-label'), fDoc = $('#f-doc'), fConcept = $('#f-concept'), fQ = $('#f-q');
    var status = $('#f-status'), none = $('#f-none');
    data.labels.forEach(function (l) {
      fLabel.add(new Option(l.code + (l.name !== l.code ? ' – ' + l.name : '') + ' (' + l.count + ')', l.code));
    });
    data.documents.forEach(function (d) { fDoc.add(new Option(d.name, d.key)); });
    // a delivery in several target languages: a language filter (documents carry their language)
    var fLang = $('#f-lang'), docLang = data.doc_langs || {};
    if (fLang) { (data.languages || []).forEach(function (l) { fLang.add(new Option(l.name + ' (' + l.lang + ')', l.lang)); }); }
    data.concepts.forEach(function (c) { fConcept.add(new Option(c.name, c.key)); });

    function state() {
      var outcomes = {};
      $$('input[name=outcome]', form).forEach(function (i) { outcomes[i.value] = i.checked; });
      return { outcomes: outcomes, label: fLabel.value, doc: fDoc.value, concept: fConcept.value,
               q: fold(fQ.value.trim()), lang: fLang ? fLang.value : '' };
    }

    function apply() {
      var s = state();
      var active = s.label || s.doc || s.concept || s.q || s.lang ||
        Object.keys(s.outcomes).some(function (k) { return !s.outcomes[k]; });
      var shown = 0;
      occs.forEach(function (o) {
        var ok = s.outcomes[o.outcome] !== false &&
          (!s.label || o.label === s.label) &&
          (!s.doc || o.doc === s.doc) &&
          (!s.lang || docLang[o.doc] === s.lang) &&
          (!s.concept || o.concept === s.concept) &&
          (!s.q || o.hay.indexOf(s.q) !== -1);
        o.shown = ok;
        if (o.el) { o.el.classList.toggle('filtered-out', !ok); }
        if (ok) { shown += 1; }
      });
      $$('tr.d-row').forEach(function (r) {  // a row's decide controls go with the row
        r.classList.toggle('filtered-out', r.previousElementSibling.classList.contains('filtered-out'));
      });
      function seen(o) { return o.shown; }
      groups.forEach(function (g) {
        var any = g.recs.some(seen);
        g.classList.toggle('filtered-out', Boolean(active && !any));
        if (active && any && s.q) { g.open = true; buildCards(g); }
      });
      var unfold = Boolean(active && (s.q || !s.outcomes.justified));  // what a filter looks for is shown
      blocks.forEach(function (b) {
        var visible = (foldedOf[b.dataset.conceptBlock] || []).filter(seen).length;
        var any = (byConcept[b.dataset.conceptBlock] || []).some(seen);
        b.classList.toggle('filtered-out', Boolean(active && !any));
        $$('details.conf', b).forEach(function (d) {
          d.classList.toggle('filtered-out', Boolean(active && !visible));
          if (unfold && visible) { d.open = true; }
        });
      });
      folds.forEach(function (f) {
        var any = f.recs.some(seen);
        f.el.classList.toggle('filtered-out', Boolean(active && !any));
        if (unfold && any) { f.el.open = true; build(f); }
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
      if (s.lang) { p.push('lang=' + encodeURIComponent(s.lang)); }
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
      if (fLang) { pick(fLang, params.lang); }
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

    $$('[data-filter-lang]').forEach(function (b) {
      b.addEventListener('click', function (e) {
        if (!fLang) { return; }
        e.preventDefault();
        reset();
        fLang.value = b.dataset.filterLang;
        changed();
        $('#concepts').scrollIntoView();
      });
    });

    // ------------------------------------------------------------------ anchors
    function reveal() {
      if (fromHash()) { apply(); return; }
      var id = decodeURIComponent(location.hash.slice(1));
      var el = id && (document.getElementById(id) || unfoldRow(id));
      if (!el) { return; }
      if (el.closest('.filtered-out')) { reset(); }
      var d = el.closest('details');
      if (d) { d.open = true; }
      el.scrollIntoView();
    }
    window.addEventListener('hashchange', reveal);

    // ------------------------------------------------------------------ folded conforming occurrences
    // A rendering's rows are made from the page's data the first time it is opened, with the markup,
    // filter state and decide controls they would have had in the page. Text goes in as text only.
    function make(tag, cls, text) {
      var e = document.createElement(tag);
      if (cls) { e.className = cls; }
      if (text) { e.textContent = text; }
      return e;
    }
    function whereOf(docKey, docIndex, unit, segment, anchor) {  // as the template's "where" macro was
      var where = make('span', 'where'), doc = make('span', 'doc', names[docKey]);
      doc.title = data.documents[docIndex].id;
      where.appendChild(doc);
      where.appendChild(document.createTextNode(' · unit '));
      where.appendChild(make('code', 'uid', unit));
      if (segment) {
        where.appendChild(document.createTextNode(' · segment '));
        where.appendChild(make('code', 'uid', segment));
      }
      where.appendChild(document.createTextNode(' '));
      var link = make('a', 'permalink', '#');
      link.href = '#' + anchor;
      link.title = 'Link to this segment';
      where.appendChild(link);
      return where;
    }
    function rowOf(rec, target) {
      var row = rec.row, tr = make('tr');
      tr.setAttribute('data-occ', '');
      tr.dataset.k = String(row[FOLD.k]);
      tr.dataset.outcome = 'conforming';
      tr.dataset.label = '';
      tr.dataset.doc = rec.doc;
      tr.dataset.concept = rec.concept;
      if (row[FOLD.own_anchor]) { tr.id = row[FOLD.anchor]; }
      var where = whereOf(rec.doc, row[FOLD.doc], row[FOLD.unit], row[FOLD.segment], row[FOLD.anchor]);
      var cells = [make('td', 'small'), make('td', '', row[FOLD.source_text]),
                   make('td', '', target === null ? '—' : target),
                   make('td', 'small muted', data.folded.reasons[row[FOLD.reason]])];
      cells[0].appendChild(where);
      cells[1].lang = data.langs.source;
      cells[2].lang = docLang[rec.doc] || data.langs.target;
      cells.forEach(function (c) { tr.appendChild(c); });
      return tr;
    }
    function build(f) {
      if (f.built) { return; }
      f.built = true;
      var wrap = make('div', 'scroll'), table = make('table', 'data compact');
      var head = make('thead'), hr = make('tr'), body = make('tbody');
      ['Location', 'Source', 'Rendering', 'Why'].forEach(function (h) {
        var th = make('th', '', h);
        th.scope = 'col';
        hr.appendChild(th);
      });
      head.appendChild(hr);
      f.recs.forEach(function (rec) {
        rec.el = rowOf(rec, f.target);
        if (rec.shown === false) { rec.el.classList.add('filtered-out'); }
        body.appendChild(rec.el);
      });
      table.appendChild(head);
      table.appendChild(body);
      wrap.appendChild(table);
      f.el.appendChild(wrap);
      equipRows(f.el);
      markRows(f.recs.map(function (rec) { return rec.el; }), stateOf());  // rows decided before they were made
    }
    function unfoldRow(id) {
      // a link to a segment: the element its anchor names is made, and what holds it opened
      var rec = occs.filter(function (o) { return o.own && o.anchor === id; })[0];
      if (!rec) { return null; }
      if (rec.group) {
        equip(rec.group);
        rec.group.open = true;
      } else {
        build(rec.fold);
        rec.fold.el.open = true;
        rec.fold.el.parentNode.closest('details').open = true;
      }
      return rec.el;
    }

    // ------------------------------------------------------------------ a flag's occurrences
    // Each in its segment, as a card made from the page's data when the flag is first opened: the
    // segment's text is written once in the page however many occurrences it holds. Offsets count
    // code points (Array.from), as Python does; text goes in as text only.
    function marked(p, text, span) {
      var chars = Array.from(text), parts = span ? [chars.slice(0, span[0]), chars.slice(span[0], span[1]), chars.slice(span[1])]
        : [chars];
      parts.forEach(function (cs, i) {
        // U+2028 is where an inline code separates two words (formats.inline): the space a reader sees
        var s = cs.join('').replace(/\u2028/g, ' ');
        if (!s) { return; }
        if (span && i === 1) { p.appendChild(make('mark', '', s)); } else { p.appendChild(document.createTextNode(s)); }
      });
    }
    function seg(lang, label) {
      var d = make('div', 'seg'), p = make('p');
      d.appendChild(make('span', 'lang', label));
      if (lang !== null) { p.lang = lang; }
      d.appendChild(p);
      return d;
    }
    function abbr(text, title, cls) { var a = make('abbr', cls || '', text); a.title = title; return a; }
    function refline(row, ref) {  // as the template's refline macro
      var p = make('p', 'refline small');
      p.appendChild(make('span', 'k', 'Reference'));
      p.appendChild(document.createTextNode(' '));
      p.appendChild(ref[0] === null ? make('span', 'muted', 'none') : inLang('span', '', ref[0], docLang['d' + row[CARD.doc]] || data.langs.target));
      p.appendChild(document.createTextNode(' '));
      p.appendChild(make('span', 'prov p-' + ref[1], ref[1] || '?'));
      p.appendChild(document.createTextNode(' '));
      var m = make('span', 'muted', '· source “' + row[CARD.source_text] + '”' + (ref[2] ? ' (' + ref[2] + ')' : '') +
                   (ref[3] ? ' · rendering: ' + ref[3] : '') + ' · ');
      m.appendChild(abbr('chain of ' + ref[4], data.words.chain));
      if (row[CARD.first_mention]) {
        m.appendChild(document.createTextNode(' · '));
        m.appendChild(abbr('first mention', data.words['first mention']));
      }
      if (ref[5]) { m.appendChild(document.createTextNode(' · ' + ref[5] + (ref[6] ? ', prompt ' + ref[6] : ''))); }
      p.appendChild(m);
      return p;
    }
    function cardOf(rec) {
      var row = rec.card, g = rec.group, c = make('div', 'occ b-' + rec.outcome);
      c.setAttribute('data-occ', '');
      c.dataset.k = rec.k;
      c.dataset.doc = rec.doc;
      if (rec.own) { c.id = rec.anchor; }
      var head = make('div', 'occ-head');
      if (row[CARD.penalty]) {
        var pen = make('span', 'pen', 'penalty ');
        pen.appendChild(make('b', '', row[CARD.penalty]));
        head.appendChild(pen);
      }
      var shared = !row[CARD.reference];
      if (shared && row[CARD.first_mention]) { head.appendChild(abbr('first mention', data.words['first mention'], 'small muted')); }
      head.appendChild(whereOf(rec.doc, row[CARD.doc], row[CARD.unit], row[CARD.segment], rec.anchor));
      c.appendChild(head);
      var pair = make('div', 'pair'), tlang = docLang[rec.doc] || data.langs.target;
      var src = seg(data.langs.source, data.langs.source || 'source'), tgt = seg(tlang, tlang || 'target');
      var s = SEGS[row[CARD.seg]];
      if (s) {
        marked(src.lastChild, s[0], row[CARD.source_span]);
        if (s[1] !== null) { marked(tgt.lastChild, s[1], row[CARD.target_span]); }
        if (row[CARD.missing]) {
          tgt.lastChild.appendChild(document.createTextNode(' '));
          tgt.lastChild.appendChild(make('span', 'missing', '(term not found in the target)'));
        }
      } else {
        src.lastChild.removeAttribute('lang');
        tgt.lastChild.removeAttribute('lang');
        src.lastChild.appendChild(make('mark', '', row[CARD.source_text]));
        src.lastChild.appendChild(document.createTextNode(' '));
        src.lastChild.appendChild(make('span', 'muted small', '(segment text not in the result)'));
        tgt.lastChild.appendChild(row[CARD.target_text] === null ? make('span', 'missing', '(term not found in the target)')
          : make('mark', '', row[CARD.target_text]));
      }
      pair.appendChild(src);
      pair.appendChild(tgt);
      c.appendChild(pair);
      if (row[CARD.reason] !== null) {
        var why = make('p', 'why');
        why.appendChild(make('span', 'k', 'Why'));
        why.appendChild(document.createTextNode(' ' + row[CARD.reason]));
        c.appendChild(why);
      }
      if (!shared) { c.appendChild(refline(row, row[CARD.reference])); }
      return c;
    }
    function buildCards(g) {
      if (g.built) { return; }
      g.built = true;
      g.recs.forEach(function (rec) {
        rec.el = cardOf(rec);
        if (rec.shown === false) { rec.el.classList.add('filtered-out'); }
        g.appendChild(rec.el);
      });
    }

    // ------------------------------------------------------------------ a concept's reference tables
    // "Source forms and references" and "Renderings", made from the page's data when their fold is
    // first opened (reports/compact.py reference_tables), as the template would have written them.
    var OUTCOME = {};
    data.outcomes.forEach(function (o) { OUTCOME[o.key] = o; });
    function badge(outcome, count) {
      var o = OUTCOME[outcome] || { name: outcome, icon: '•' };
      var b = make('span', 'badge o-' + outcome), ico = make('span', 'ico', o.icon);
      ico.setAttribute('aria-hidden', 'true');
      b.appendChild(ico);
      b.appendChild(document.createTextNode(' ' + o.name + ' '));
      b.appendChild(make('b', '', String(count)));
      return b;
    }
    function chip(code) {
      var l = data.tables.labels[code], c = make('span', 'chip k-' + l[1]);
      c.title = code + ': ' + l[2];
      if (l[1] === 'error') { c.appendChild(make('code', '', code)); c.appendChild(document.createTextNode(' ')); }
      c.appendChild(document.createTextNode(l[0]));
      return c;
    }
    function inLang(tag, cls, text, lang) { var s = make(tag, cls, text); s.lang = lang; return s; }
    function table(cls, heads) {
      var t = make('table', cls), head = make('thead'), hr = make('tr');
      heads.forEach(function (h) {
        var th = make('th', h[1] || '', h[0]);
        th.scope = 'col';
        if (h[2]) { th.setAttribute('data-nosort', ''); }
        hr.appendChild(th);
      });
      head.appendChild(hr);
      t.appendChild(head);
      t.appendChild(make('tbody'));
      return t;
    }
    function cell(tr, cls, child) {
      var td = make('td', cls);
      if (typeof child === 'string') { td.textContent = child; } else if (child) { td.appendChild(child); }
      tr.appendChild(td);
      return td;
    }
    function formsTable(forms) {
      var t = table('data compact', [['Source form'], ['Document'], ['Reference'], ['Occ.', 'num']]);
      forms.forEach(function (f) {  // form, its other spellings, variation types, per document [doc, reference, provenance, count]
        f[3].forEach(function (d, i) {
          var tr = make('tr');
          if (i === 0) {
            var td = cell(tr, '', inLang('b', '', f[0], data.langs.source));
            td.rowSpan = f[3].length;
            if (f[1].length) {
              td.appendChild(make('div', 'small muted', 'as ' + f[1].map(function (s) { return '“' + s + '”'; }).join(', ')));
            }
            if (f[2].length) { td.appendChild(make('div', 'small muted', f[2].join(', '))); }
          }
          var doc = data.documents[d[0]];
          cell(tr, 'docname small', doc.name).title = doc.id;
          var ref = cell(tr, '', d[1] === null ? make('span', 'muted', 'none')
            : inLang('span', '', d[1], docLang[doc.key] || data.langs.target));
          ref.appendChild(document.createTextNode(' '));
          var prov = make('span', 'prov p-' + d[2], d[2] || '?');
          prov.title = data.tables.provenance[d[2]] || '';
          ref.appendChild(prov);
          cell(tr, 'num', String(d[3]));
          t.tBodies[0].appendChild(tr);
        });
      });
      return t;
    }
    function renderingsTable(rends, lang) {
      var t = table('data compact sortable', [['Source form'], ['Rendering'], ['Count', 'num'],
                                              ['Verdicts', '', true], ['Labels', '', true]]);
      rends.forEach(function (r) {  // form, rendering, count, [outcome, count], [label, count]
        var tr = make('tr');
        cell(tr, '', r[0]);
        cell(tr, '', r[1] === null ? make('span', 'muted', '(no rendering found)') : inLang('span', '', r[1], lang));
        cell(tr, 'num strong', String(r[2]));
        var v = cell(tr, '');
        r[3].forEach(function (oc) { v.appendChild(badge(oc[0], oc[1])); v.appendChild(document.createTextNode(' ')); });
        var l = cell(tr, '');
        r[4].forEach(function (lab) {
          l.appendChild(chip(lab[0]));
          l.appendChild(document.createTextNode((lab[1] > 1 ? '×' + lab[1] : '') + ' '));
        });
        t.tBodies[0].appendChild(tr);
      });
      sortable(t);
      return t;
    }
    function buildTables(d) {
      if (d.dataset.built) { return; }
      d.dataset.built = '1';
      var c = data.tables.concepts[d.dataset.tablesOf] || { forms: [], renderings: [] };
      // the renderings' language: their documents' when they agree (a glossary applies to one language)
      var langs = {};
      c.forms.forEach(function (f) { f[3].forEach(function (x) { langs[docLang[data.documents[x[0]].key] || ''] = 1; }); });
      var keys = Object.keys(langs), lang = keys.length === 1 && keys[0] ? keys[0] : data.langs.target;
      [['forms', 'Source forms and references', formsTable(c.forms)],
       ['renderings', 'Renderings', renderingsTable(c.renderings, lang)]].forEach(function (x) {
        var box = $('[data-tables="' + x[0] + '"]', d), wrap = make('div', 'scroll');
        wrap.appendChild(x[2]);
        box.textContent = '';
        box.appendChild(make('h4', '', x[1]));
        box.appendChild(wrap);
      });
    }
    var infos = $$('details[data-tables-of]');
    infos.forEach(function (d) {
      d.addEventListener('toggle', function () { if (d.open) { buildTables(d); } });
      if (d.open) { buildTables(d); }
    });

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
    $$('table.sortable').forEach(sortable);
    function sortable(table) {
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
    }

    // ------------------------------------------------------------------ reviewer decisions
    // Accept / reject a flag in the page; the decisions file is written here exactly as
    // termqa.formats.decisions writes it (ids, segment keys and document names come precomputed
    // from the report builder) and merged with the run's own file: same identity, newer `at` wins.
    var dd = data.decide;
    var STORE = 'termqa-decisions:' + dd.sig, BY = 'termqa-reviewer';
    var SCOPE_ID = { segment: 7, document: 8, project: 9 };
    function stored(key, fallback) {
      try { var v = localStorage.getItem(key); return v === null ? fallback : JSON.parse(v); } catch (e) { return fallback; }
    }
    function store(key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: kept for this visit only */ }
    }
    var actions = stored(STORE, []);
    if (!Array.isArray(actions)) { actions = []; }
    var byInput = $('#rv-by');
    byInput.value = stored(BY, '') || '';
    byInput.addEventListener('change', function () { store(BY, byInput.value.trim()); });

    function stamp() { return new Date().toISOString().replace(/\.\d+Z$/, 'Z'); }
    function decisionFor(k, verdict, scope, label, by, comment, at) {
      var o = dd.occ[k];  // concept, form, source, rendering, segment key, document, unit, ids per scope
      var d = { concept: o[0], source_form: o[1], rendering: o[3], decision: verdict, scope: scope,
                segment: scope === 'segment' ? o[4] : null, document: scope !== 'project' ? o[5] : null,
                label: verdict === 'reject' ? label : null, source: o[2], by: by, at: at, comment: comment,
                unit: scope === 'segment' ? o[6] : null, id: o[SCOPE_ID[scope]] };
      var out = {};
      Object.keys(d).sort().forEach(function (key) {
        // as Decision.to_dict: empty values left out, `rendering` always there (null: none found)
        if (key === 'rendering' || (d[key] !== null && d[key] !== undefined && d[key] !== '')) { out[key] = d[key]; }
      });
      return out;
    }
    function merged() {
      var byId = {}, order = [];
      function put(d) {
        var old = byId[d.id];
        if (!old) { order.push(d.id); byId[d.id] = d; } else if ((d.at || '') >= (old.at || '')) { byId[d.id] = d; }
      }
      dd.run.decisions.forEach(put);
      actions.forEach(function (a) { a.decisions.forEach(put); });
      return order.map(function (id) { return byId[id]; });
    }
    function orderKey(d) {
      return [d.concept, d.source_form, d.scope, d.document || '', d.segment || '', d.rendering || '', d.id];
    }
    function cmp(a, b) {
      var x = orderKey(a), y = orderKey(b);
      for (var i = 0; i < x.length; i += 1) { if (x[i] !== y[i]) { return x[i] < y[i] ? -1 : 1; } }
      return 0;
    }
    function fileText() {
      var ds = merged().map(function (d) {
        var out = {};
        Object.keys(d).sort().forEach(function (key) { out[key] = d[key]; });
        return out;
      }).sort(cmp);
      return JSON.stringify({ decisions: ds, termqa_decisions: 1 }, null, 1) + '\n';
    }

    function ksOf(g) { return g.recs.map(function (rec) { return rec.k; }); }
    function stateOf() {
      // the latest page decision per occurrence, for the marks
      var st = {};
      actions.forEach(function (a) { a.ks.forEach(function (k) { st[k] = a; }); });
      return st;
    }
    function markText(a) {
      return (a.verdict === 'accept' ? 'Accepted' : 'Rejected as ' + a.label) + ' for ' +
        { segment: 'the segment', document: 'the document', project: 'the project' }[a.scope] +
        (a.by ? ' by ' + a.by : '') + ' (in this page)';
    }
    function markRows(els, st) {
      els.forEach(function (el) {
        var a = st[el.dataset.k];
        el.classList.toggle('decided', Boolean(a));
        var below = el.nextElementSibling;  // a table row's controls are in the row under it
        var m = $('.dstate', el) || (below && below.classList.contains('d-row') ? $('.dstate', below) : null);
        if (m) { m.textContent = a ? markText(a) : ''; }
      });
    }
    function refresh() {
      var st = stateOf();
      markRows($$('[data-occ][data-k]'), st);
      groups.forEach(function (g) {
        var ks = ksOf(g), done = ks.filter(function (k) { return st[k]; });
        var mark = $('.dmark', g);
        if (!mark) {
          mark = document.createElement('span');
          mark.className = 'dmark';
          $('.gline', g).appendChild(mark);
        }
        var all = done.length && done.length === ks.length && done.every(function (k) { return st[k] === st[ks[0]]; });
        mark.textContent = !done.length ? '' : all ? (st[ks[0]].verdict === 'accept' ? '✓ accepted' : '✗ rejected ' + st[ks[0]].label)
          : done.length + ' of ' + ks.length + ' decided';
        mark.hidden = !done.length;
        var gm = g.querySelector(':scope > .decide .dstate');
        if (gm) { gm.textContent = all ? markText(st[ks[0]]) : ''; }
      });
      var list = $('#rv-list');
      list.textContent = '';
      actions.slice().reverse().forEach(function (a) {
        var li = document.createElement('li');
        li.textContent = a.what + ' ';
        var undo = document.createElement('button');
        undo.type = 'button';
        undo.className = 'linkish';
        undo.textContent = 'Undo';
        undo.addEventListener('click', function () {
          actions = actions.filter(function (x) { return x !== a; });
          store(STORE, actions);
          refresh();
        });
        li.appendChild(undo);
        list.appendChild(li);
      });
      var n = actions.reduce(function (t, a) { return t + a.decisions.length; }, 0);
      $('#rv-count').textContent = String(n);
      $('#rv-empty').hidden = actions.length > 0;
      var run = dd.run.decisions.length;
      $('#rv-run').textContent = (dd.run.name
        ? 'The download also holds the ' + run + ' decision' + (run !== 1 ? 's' : '') + ' of ' + dd.run.name +
          ' this run used (where both answer the same question, the newer one is kept).'
        : 'This run used no decisions file.') + (dd.run.note ? ' ' + dd.run.note : '');
      $('#rv-text').value = fileText();
      return n;
    }

    function decide(ks, verdict, scope, label, comment, what) {
      var by = byInput.value.trim(), at = stamp(), seen = {}, ds = [];
      store(BY, by);
      ks.forEach(function (k) {
        if (!dd.occ[k] || !dd.occ[k][SCOPE_ID[scope]]) { return; }
        var d = decisionFor(k, verdict, scope, label, by, comment, at);
        if (!seen[d.id]) { seen[d.id] = true; ds.push(d); }
      });
      if (!ds.length) { return null; }
      var a = { verdict: verdict, scope: scope, label: label, by: by, at: at, ks: ks, decisions: ds,
                what: (verdict === 'accept' ? 'Accepted ' : 'Rejected (' + label + ') ') + what + ' for ' +
                  { segment: ks.length > 1 ? 'each segment' : 'this segment',
                    document: new Set(ks.map(function (k) { return dd.occ[k][5]; })).size > 1 ? 'their documents' : 'the document',
                    project: 'the whole project' }[scope] + ' (' + ks.length + ' occurrence' + (ks.length !== 1 ? 's' : '') + ')' };
      actions.push(a);
      store(STORE, actions);
      refresh();
      return a;
    }

    function option(select, value, text) { select.add(new Option(text, value)); }
    function controls(ks, group, label, what) {
      var box = document.createElement('div');
      box.className = 'decide';
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', group ? 'Decide this flag' : 'Decide this occurrence');
      function el(tag, cls, text) {
        var e = document.createElement(tag);
        if (cls) { e.className = cls; }
        if (text) { e.textContent = text; }
        return e;
      }
      var acc = el('button', 'd-accept', group ? 'Accept all' : 'Accept');
      var rej = el('button', 'd-reject', group ? 'Reject all' : 'Reject');
      acc.type = rej.type = 'button';
      var lab = el('select', 'd-label');
      lab.setAttribute('aria-label', 'Error label of the rejection');
      option(lab, '', 'label…');
      dd.labels.forEach(function (l) { option(lab, l[0], l[1]); });
      if (label && dd.labels.some(function (l) { return l[0] === label; })) { lab.value = label; }
      var scope = el('select', 'd-scope');
      scope.setAttribute('aria-label', 'Where the decision holds');
      // a group is one rendering across its documents: decided for those documents by default;
      // one occurrence is one sentence read: decided for that segment by default
      option(scope, 'segment', group ? 'each segment' : 'this segment');
      var docs = {};
      ks.forEach(function (k) { docs[dd.occ[k][5]] = true; });
      option(scope, 'document', Object.keys(docs).length > 1 ? 'their documents' : 'this document');
      option(scope, 'project', 'whole project');
      scope.value = group ? 'document' : 'segment';
      var cmt = el('input', 'd-comment');
      cmt.type = 'text';
      cmt.placeholder = 'comment (why)';
      cmt.setAttribute('aria-label', 'Comment');
      var msg = el('span', 'dstate');
      msg.setAttribute('aria-live', 'polite');
      var forLabel = el('label', 'd-for', 'for ');
      forLabel.appendChild(scope);
      [acc, rej, lab, forLabel, cmt, msg].forEach(function (e) { box.appendChild(e); });
      acc.addEventListener('click', function () {
        var a = decide(ks, 'accept', scope.value, null, cmt.value.trim(), what);
        msg.textContent = a ? markText(a) : 'No segment text in this result: choose the document or project.';
      });
      rej.addEventListener('click', function () {
        if (!lab.value) { msg.textContent = 'Choose the error label first.'; lab.focus(); return; }
        var a = decide(ks, 'reject', scope.value, lab.value, cmt.value.trim(), what);
        msg.textContent = a ? markText(a) : 'No segment text in this result: choose the document or project.';
      });
      return box;
    }
    function whatOf(k) {
      var o = dd.occ[k];
      return '“' + (o[2] || o[1]) + '” → ' + (o[3] === null ? 'no rendering' : '“' + o[3] + '”');
    }
    function equip(g) {
      if (g.dataset.equipped) { return; }
      g.dataset.equipped = '1';
      buildCards(g);
      var ks = ksOf(g);
      if (!ks.length) { return; }
      var head = g.querySelector(':scope > .refline') || g.querySelector(':scope > .why') ||
        g.querySelector(':scope > summary');
      head.insertAdjacentElement('afterend', controls(ks, true, g.dataset.label,
        whatOf(ks[0]) + (ks.length > 1 ? ' ×' + ks.length : '')));
      $$('[data-occ][data-k]', g).forEach(function (occ) {
        occ.appendChild(controls([occ.dataset.k], false, g.dataset.label, whatOf(occ.dataset.k) +
          ' (unit ' + (dd.occ[occ.dataset.k][6] || '?') + ')'));
      });
      refreshSoon();
    }
    var pending = null;
    function refreshSoon() {
      // once for all the flags a search or a link opens at a time, not once per flag
      if (pending === null) { pending = setTimeout(function () { pending = null; refresh(); }, 0); }
    }
    groups.forEach(function (g) {
      g.addEventListener('toggle', function () { if (g.open) { equip(g); } });
      if (g.open) { equip(g); }
    });
    // conforming occurrences (a table row each): a "Decide…" button opens the controls below the row
    function equipRows(d) {
      if (d.dataset.equipped) { return; }
      d.dataset.equipped = '1';
      $$('tr[data-occ][data-k]', d).forEach(function (tr) {
        var k = tr.dataset.k, cell = tr.cells[tr.cells.length - 1];
        var open = document.createElement('button');
        open.type = 'button';
        open.className = 'linkish d-open';
        open.textContent = 'Decide…';
        open.setAttribute('aria-expanded', 'false');
        cell.appendChild(document.createTextNode(' '));
        cell.appendChild(open);
        open.addEventListener('click', function () {
          var next = tr.nextElementSibling;
          if (!next || !next.classList.contains('d-row')) {
            next = document.createElement('tr');
            next.className = 'd-row';
            var td = document.createElement('td');
            td.colSpan = tr.cells.length;
            td.appendChild(controls([k], false, '', whatOf(k) + ' (unit ' + (dd.occ[k][6] || '?') + ')'));
            next.appendChild(td);
            tr.insertAdjacentElement('afterend', next);
            next.hidden = true;
          }
          next.hidden = !next.hidden;
          open.setAttribute('aria-expanded', String(!next.hidden));
        });
      });
    }
    folds.forEach(function (f) {
      f.el.addEventListener('toggle', function () { if (f.el.open) { build(f); } });
      if (f.el.open) { build(f); }
    });
    $('#rv-download').addEventListener('click', function () {
      var blob = new Blob([fileText()], { type: 'application/json' });
      var a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = dd.file;
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 2000);
    });
    refresh();

    // ------------------------------------------------------------------ print: unfold everything
    var folded = [];
    window.addEventListener('beforeprint', function () {
      folds.forEach(build);  // paper cannot ask for them
      groups.forEach(buildCards);
      infos.forEach(buildTables);
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
        buildCards(g0);  // as opening it does (its toggle event would come after this measure)
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
      groups.forEach(equip);  // the decide controls are made when a flag is opened: measure them too
      folds.forEach(build);
      infos.forEach(buildTables);
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
        // text wider than its own box (a long token, a path) overflows without widening the box; a form
        // control draws its value inside its box, clipped (Chromium 150 reports a select's longest option
        // as its scroll width)
        if (!/^(SELECT|INPUT|TEXTAREA|BUTTON)$/.test(el.tagName) &&
            el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 &&
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
