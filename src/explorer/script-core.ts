// The explorer's script, first half: a JSON-RPC client of the node's own origin (fetch POST and one
// WebSocket), DOM and number helpers, the live feed (newHeads, and under the flashblocks profile
// newFlashblocks in its raw payload form, with the pre-confirmations a block did not keep marked
// dropped, and the faults pcnodeFaults pushes: drops, halts, restarts, reorgs) and the router (#block/…, #tx/…, #address/…, #userop/… and the search box).
// Plain browser JavaScript kept as a string: it runs inline under the page's hash-pinned CSP.

export const SCRIPT_CORE = String.raw`
'use strict';
var nextId = 0;
async function rpc(method, params) {
  var res = await fetch('/', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method: method, params: params || [] }) });
  var body = await res.json();
  if (body.error) { var e = new Error(body.error.message); e.code = body.error.code; e.data = body.error.data; throw e; }
  return body.result;
}
/** The answer, or undefined when the node does not serve the method or refuses the call. */
async function maybe(method, params) { try { return await rpc(method, params); } catch (e) { return undefined; } }

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  if (attrs) for (var k in attrs) { if (attrs[k] !== undefined) node.setAttribute(k, attrs[k]); }
  (children || []).forEach(function (c) {
    if (c === undefined || c === null) return;
    node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  });
  return node;
}
function link(hashPath, text, cls) { return el('a', { href: '#' + hashPath, 'class': cls }, [text]); }
function short(hex) { return hex && hex.length > 20 ? hex.slice(0, 10) + '…' + hex.slice(-8) : hex; }
function num(q) { return q === undefined || q === null ? undefined : BigInt(q); }
function units(q, decimals) {
  var v = num(q); if (v === undefined) return '';
  var neg = v < 0n; if (neg) v = -v;
  var base = 10n ** BigInt(decimals), whole = v / base, frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + whole.toString() + (frac ? '.' + frac : '');
}
function eth(q) { return units(q, 18) + ' ETH'; }
function gwei(q) { return units(q, 9) + ' gwei'; }
function dec(q) { var v = num(q); return v === undefined ? '' : v.toString(); }
// A block's time: to the millisecond on Denim blocks (timestampMs, --profile base), else its second.
function msOf(b) { return b.timestampMs ? Number(BigInt(b.timestampMs)) : Number(BigInt(b.timestamp)) * 1000; }
function when(b) {
  var d = new Date(msOf(b));
  if (!b.timestampMs) return d.toLocaleTimeString();
  return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}
function dl(pairs) {
  var list = el('dl');
  pairs.forEach(function (p) { if (p && p[1] !== undefined && p[1] !== '') { list.appendChild(el('dt', null, [p[0]])); list.appendChild(el('dd', { 'data-field': p[0] }, [p[1]])); } });
  return list;
}
function show(title, nodes) {
  var view = document.getElementById('view');
  view.replaceChildren(el('h2', null, [title]));
  nodes.forEach(function (n) { if (n) view.appendChild(n); });
  view.hidden = false;
}

// The live feed: the latest blocks, newest first.
var MAX_BLOCKS = 12;
var shown = new Set();
function blockRow(b) {
  return el('li', { 'data-number': dec(b.number) }, [
    link('block/' + dec(b.number), '#' + dec(b.number)),
    el('span', { 'class': 'muted' }, [when(b)]),
    el('span', null, [b.transactions.length + ' txs']),
    el('span', null, [dec(b.gasUsed) + ' gas']),
  ]);
}
function addBlock(b) {
  if (!b || shown.has(b.hash)) return;
  shown.add(b.hash);
  var list = document.getElementById('blocks');
  var row = blockRow(b), n = BigInt(b.number), before = null;
  for (var i = 0; i < list.children.length; i++) { if (BigInt(list.children[i].dataset.number) < n) { before = list.children[i]; break; } }
  list.insertBefore(row, before);
  while (list.children.length > MAX_BLOCKS) list.removeChild(list.lastChild);
}
async function loadRecent() {
  var head = BigInt(await rpc('eth_blockNumber'));
  var from = head >= BigInt(MAX_BLOCKS) ? head - BigInt(MAX_BLOCKS) + 1n : 0n;
  for (var n = from; n <= head; n++) addBlock(await rpc('eth_getBlockByNumber', ['0x' + n.toString(16), false]));
}
// The open block's flashblocks as they stream: when each arrived and the transactions it added (the
// payload's metadata.receipts, keyed by hash); when the next block opens, this one's timeline stays
// below as the last block's, marked sealed once its newHeads arrives.
var flashBlock = null, flashNumber = null;
function clock(d) { return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0'); }
function addFlashblock(p) {
  var list = document.getElementById('flash-list');
  document.getElementById('flash').hidden = false;
  if (p.index === 0 || p.payload_id !== flashBlock) {
    var number = p.base ? dec(p.base.block_number) : (p.metadata ? String(p.metadata.block_number) : '?');
    if (flashBlock !== null && list.children.length) {
      document.getElementById('flash-prev-list').replaceChildren.apply(document.getElementById('flash-prev-list'), Array.from(list.children));
      // The same block again: its stream restarted (pcnode_restartFlashblocks, pcnode_dropPreconfirmed).
      var fate = number === flashNumber ? ' · stream restarted' : lastSealed.n === flashNumber ? ' · sealed ' + lastSealed.at : '';
      document.getElementById('flash-prev-block').textContent = 'block #' + flashNumber + fate;
      document.getElementById('flash-prev').hidden = false;
    }
    flashBlock = p.payload_id;
    list.replaceChildren();
    flashNumber = number;
    document.getElementById('flash-block').textContent = 'block #' + flashNumber;
  }
  var hashes = Object.keys((p.metadata && p.metadata.receipts) || {});
  var txs = el('span', { 'class': 'mono' });
  hashes.forEach(function (h) { txs.appendChild(link('tx/' + h, short(h))); txs.appendChild(document.createTextNode(' ')); });
  list.appendChild(el('li', { 'data-block': flashNumber }, [
    el('span', null, ['flashblock ' + p.index]),
    el('span', null, [p.diff.transactions.length + ' txs']),
    el('span', { 'class': 'muted' }, [dec(p.diff.gas_used) + ' gas so far']),
    el('span', { 'class': 'muted' }, [clock(new Date())]),
    txs,
  ]));
}
// A transaction a flashblock pre-confirmed that its block did not keep (a fault dropped it as the
// block sealed, or took it back and restarted the stream): marked in the timeline, and listed once,
// when the node announces the drop (pcnodeFaults) or else when the block without it arrives.
var dropListed = new Set();
function markDropped(h) {
  document.querySelectorAll('#flash li a[href="#tx/' + h + '"]').forEach(function (a) {
    if (a.classList.contains('bad')) return;
    a.classList.add('bad');
    a.after(el('span', { 'class': 'bad' }, [' dropped']));
  });
}
function dropRow(h, text) {
  if (dropListed.has(h)) return;
  dropListed.add(h);
  var drops = document.getElementById('drops-list');
  drops.prepend(el('li', null, [el('span', { 'class': 'muted' }, [clock(new Date())]), link('tx/' + h, short(h), 'mono bad'),
    el('span', null, [text])]));
  while (drops.children.length > 20) drops.removeChild(drops.lastChild);
  document.getElementById('drops').hidden = false;
}
function markDrops(b) {
  if (!b) return;
  var kept = new Set(b.transactions), n = dec(b.number);
  document.querySelectorAll('#flash li[data-block="' + n + '"] a').forEach(function (a) {
    var h = a.getAttribute('href').slice(4);
    if (kept.has(h)) return;
    markDropped(h);
    dropRow(h, 'pre-confirmed in block #' + n + ', left out of it');
  });
}

// Faults as the node injects them: the pcnodeFaults subscription pushes each drop, halt, resume,
// restart, cadence change and reorg (anvil_reorg too) the moment it happens, with the node's own
// words (its terminal log line). A node refusing the subscription is polled instead, as each head
// arrives: pcnode_getPreconfFaults' counts against the last answer, and a head that went back.
var faultsPushed = false, faultsSeen, headSeen;
function faultRow(text) {
  var drops = document.getElementById('drops-list');
  drops.prepend(el('li', { 'class': 'fault' }, [el('span', { 'class': 'muted' }, [clock(new Date())]), el('span', { 'class': 'bad' }, [text])]));
  while (drops.children.length > 20) drops.removeChild(drops.lastChild);
  document.getElementById('drops').hidden = false;
}
function pushedFault(f) {
  // Settings changes are not faults: the terminal logs them, the page does not.
  if (f.kind === 'settings') return;
  if (f.kind === 'drop' && f.hash) {
    markDropped(f.hash);
    var where = f.blockNumber ? 'pre-confirmed in block #' + dec(f.blockNumber) + ', left out of it' : 'pre-confirmation dropped';
    var why = f.reason ? ' (flashblock ' + dec(f.flashblockIndex) + ': ' + f.reason + '; ' + (f.requeued ? 'back to the pool' : 'discarded') + ')' : '';
    dropRow(f.hash, where + why);
    return;
  }
  faultRow(f.message);
}
async function checkFaults(head) {
  var n = BigInt(head.number);
  if (headSeen !== undefined && n <= headSeen) faultRow('reorg: the head went back from #' + headSeen + ' to #' + n);
  headSeen = n;
  var now = await maybe('pcnode_getPreconfFaults');
  if (!now) return;
  var was = faultsSeen; faultsSeen = now;
  if (!was) return;
  if (now.injected.halts > was.injected.halts) faultRow('flashblocks halted: blocks go on without pre-confirmations');
  if (was.halted && !now.halted) faultRow('flashblocks resumed');
  if (now.injected.restarts > was.injected.restarts) faultRow('flashblock stream restarted (' + (now.injected.restarts - was.injected.restarts) + ')');
  if (now.injected.reorgedBlocks > was.injected.reorgedBlocks) faultRow('reorg: ' + (now.injected.reorgedBlocks - was.injected.reorgedBlocks) + ' sealed block(s) replaced');
}

// The head usually arrives before the next block's flashblock 0: kept until that moves this timeline down.
var lastSealed = {};
function markSealed(head) {
  lastSealed = { n: dec(head.number), at: clock(new Date()) };
  var prev = document.getElementById('flash-prev-block');
  if (prev.textContent === 'block #' + lastSealed.n) prev.textContent += ' · sealed ' + lastSealed.at;
}
// Only the flashblocks profile splits a block into flashblocks (Denim blocks under --profile base and
// --profile ethereum's are whole, and their newFlashblocks sends nothing), so only there are they
// shown; the OP profiles' chains have the OP Stack's L1Block predeploy, the ethereum one none.
var L1_BLOCK = '0x4200000000000000000000000000000000000015';
var opStack = false;
async function detectProfile() {
  var code = await maybe('eth_getCode', [L1_BLOCK, 'latest']);
  opStack = !!code && code !== '0x';
}
function connect() {
  var ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/');
  var kinds = {};
  ws.onopen = function () {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'heads', method: 'eth_subscribe', params: ['newHeads'] }));
    if (opStack) ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'flash', method: 'eth_subscribe', params: ['newFlashblocks', { format: 'payload' }] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'faults', method: 'eth_subscribe', params: ['pcnodeFaults'] }));
    document.getElementById('live').textContent = 'live';
  };
  ws.onmessage = function (ev) {
    var m = JSON.parse(ev.data);
    if (m.id !== undefined) {
      if (m.result) kinds[m.result] = m.id;
      if (m.id === 'faults') faultsPushed = !!m.result;
      return;
    }
    if (m.method !== 'eth_subscription') return;
    var kind = kinds[m.params.subscription], r = m.params.result;
    if (kind === 'heads') {
      markSealed(r);
      if (!faultsPushed) checkFaults(r).catch(function () {});
      rpc('eth_getBlockByHash', [r.hash, false]).then(function (b) { addBlock(b); markDrops(b); }, function () {});
    }
    else if (kind === 'flash') addFlashblock(r);
    else if (kind === 'faults') pushedFault(r);
  };
  ws.onclose = function () { document.getElementById('live').textContent = 'reconnecting…'; setTimeout(connect, 2000); };
}

// The router: the search box and links set location.hash; each hash names one view.
function route() {
  var parts = location.hash.slice(1).split('/');
  var kind = parts[0], arg = parts[1];
  var run = kind === 'tx' ? showTx : kind === 'address' ? showAddress : kind === 'block' ? showBlock : kind === 'userop' ? showUserOp : undefined;
  if (!run || !arg) { document.getElementById('view').hidden = true; return; }
  show('Loading…', []);
  run(arg).catch(function (e) { show('Not found', [el('p', { 'class': 'bad' }, [String(e && e.message || e)])]); });
}
async function search(q) {
  q = q.trim();
  if (/^\d+$/.test(q)) { go('block/' + q); return; }
  if (/^0x[0-9a-fA-F]{40}$/.test(q)) { go('address/' + q); return; }
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) {
    if (await rpc('eth_getTransactionByHash', [q])) { go('tx/' + q); return; }
    if (await rpc('eth_getBlockByHash', [q, false])) { go('block/' + q); return; }
    var st = await maybe('pcnode_transactionStatus', [q]);
    if (st && st.status === 'dropped') { go('tx/' + q); return; }
    if (await maybe('eth_getUserOperationByHash', [q])) { go('userop/' + q); return; }
    show('Not found', [el('p', null, ['No transaction, block or user operation has the hash ' + q + '.'])]);
    return;
  }
  show('Not understood', [el('p', null, ['Give a block number, a block or transaction hash (0x + 64 hex digits) or an address (0x + 40).'])]);
}
`
